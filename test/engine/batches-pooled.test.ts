/**
 * A source's batches read into the shared chunk buffers and give them back when the scan ends: scans one after the
 * other, interleaved, and stopped early (with a read still in flight) each see exactly their own records.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import { CHUNK_BYTES } from '../../src/engine/records/chunks';
import type { RecordBatch, RecordSource } from '../../src/kernel/contracts/format';
import { fileService, formatsOf } from '../helpers/formats';

let dir: string;
const sources: { close(): void }[] = [];

beforeAll(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-batches-')); });
afterAll(() => {
  for (const s of sources) s.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A JSON Lines file of `n` records `{"id":i,"tag":TAG,"pad":"…"}` (~200 bytes each): a record names its file and index. */
async function open(name: string, n: number, tag: string): Promise<RecordSource> {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(JSON.stringify({ id: i, tag, pad: 'x'.repeat(150 + (i % 37)) }));
  fs.writeFileSync(path.join(dir, name), lines.join('\n') + '\n');
  const files = fileService(dir, await formatsOf(jsonl));
  const opened = await files.open(name);
  sources.push(opened);
  return opened.source;
}

/** The records of a batch as [id, tag] read from its bytes now. */
function records(batch: RecordBatch): [number, string][] {
  const out: [number, string][] = [];
  for (let k = 0; k < batch.count; k++) {
    const [s, e] = batch.span(k);
    const v = JSON.parse(batch.bytes.subarray(s, e).toString('utf8')) as { id: number; tag: string };
    out.push([v.id, v.tag]);
  }
  return out;
}

/** The first record that is not the next expected one, or null when all `count` came in order with `tag`. */
function misplaced(got: [number, string][], tag: string, count: number): string | null {
  for (let i = 0; i < got.length; i++) if (got[i]![0] !== i || got[i]![1] !== tag) return `record ${i}: ${JSON.stringify(got[i])}`;
  return got.length === count ? null : `${got.length} records, not ${count}`;
}

async function all(source: RecordSource, tag: string): Promise<void> {
  const got: [number, string][] = [];
  for await (const batch of source.batches()) got.push(...records(batch));
  expect(misplaced(got, tag, source.count)).toBeNull();
}

const N = Math.ceil((3 * CHUNK_BYTES) / 190); // more than three chunks

test('scans one after the other, and interleaved, each read their own records exactly', async () => {
  const a = await open('a.jsonl', N, 'a');
  const b = await open('b.jsonl', N + 1000, 'b');
  await all(a, 'a');
  await all(b, 'b');
  await all(a, 'a');
  // interleaved: each scan holds its own pair of buffers while it runs
  const ia = a.batches()[Symbol.asyncIterator]();
  const ib = b.batches()[Symbol.asyncIterator]();
  const ga: [number, string][] = [], gb: [number, string][] = [];
  for (let doneA = false, doneB = false; !doneA || !doneB;) {
    if (!doneA) {
      const r = await ia.next();
      if (r.done) doneA = true;
      else ga.push(...records(r.value));
    }
    if (!doneB) {
      const r = await ib.next();
      if (r.done) doneB = true;
      else gb.push(...records(r.value));
    }
  }
  expect(misplaced(ga, 'a', a.count)).toBeNull();
  expect(misplaced(gb, 'b', b.count)).toBeNull();
});

test('a scan stopped early, with the next read in flight, gives its buffers back only once that read is done', async () => {
  const a = await open('c.jsonl', N, 'c');
  const b = await open('d.jsonl', N, 'd');
  for (let round = 0; round < 5; round++) {
    const it = a.batches()[Symbol.asyncIterator]();
    const first = await it.next(); // the second read is now in flight into the other buffer
    expect(records(first.value as RecordBatch)[0]).toEqual([0, 'c']);
    await it.return(undefined);
    // the next scan takes the given-back buffers: the stopped scan's read must not land in them
    await all(b, 'd');
  }
});
