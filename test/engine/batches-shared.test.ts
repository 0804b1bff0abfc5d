/**
 * The kernel source's batches for worker threads (aggregate-threads.ts): read into shared memory, with `reads` = 3
 * three read buffers taking turns (a batch's bytes stay valid while the next is handed out and the one after is
 * read), interleaved with iterations of two buffers resuming each other; and the records' extents (`extentsInto`, from
 * the index) trimmed of the source's padding (`trimmedSpans`) are the spans `span` gives, padding (blank lines, CRLF,
 * whitespace, an array's commas) excluded.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import json from '../../plugins/format-json/src/index';
import jsonl from '../../plugins/format-jsonl/src/index';
import type { Format, RecordBatch } from '../../src/kernel/contracts';
import { IndexedRecordSource, type KernelBatch } from '../../src/engine/records/source';
import { trimmedSpans } from '../../src/engine/scan/plan';
import { fileService, formatsOf } from '../helpers/formats';

let dir: string;
let formats: Format[];
/** 60,000 records of ~300 bytes (~18 MB: five 4 MiB reads), every 7th line ending CRLF, blank and whitespace lines between some; record i holds `i`. */
const RECORDS = 60_000;
let text: Buffer;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-shared-'));
  formats = [...(await formatsOf(jsonl)), ...(await formatsOf(json))];
  const lines: string[] = [];
  for (let i = 0; i < RECORDS; i++) {
    lines.push(`${i % 11 === 0 ? '  ' : ''}${JSON.stringify({ i, pad: 'x'.repeat(250 + (i % 61)) })}${i % 13 === 0 ? ' \t' : ''}${i % 7 === 0 ? '\r' : ''}`);
    if (i % 1000 === 5) lines.push('', '   ');
  }
  text = Buffer.from(lines.join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'shared.jsonl'), text);
  // the same records as the elements of one array, with whitespace around the commas
  const elements: string[] = [];
  for (let i = 0; i < 5000; i++) elements.push(`${i % 3 === 0 ? '\n  ' : ''}${JSON.stringify({ i, pad: 'y'.repeat(i % 97) })}${i % 5 === 0 ? ' \r\n' : ''}`);
  fs.writeFileSync(path.join(dir, 'shared.json'), `[${elements.join(',')}]\n`);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function kernelSource(name: string): Promise<IndexedRecordSource> {
  const { source } = await fileService(dir, formats).open(name);
  expect(source).toBeInstanceOf(IndexedRecordSource);
  return source as IndexedRecordSource;
}

/** Record `first + k`'s text as the test reads it from the file: the line without its padding. */
const idOf = (batch: RecordBatch, k: number) => (JSON.parse(batch.text(k)) as { i: number }).i;

describe('batches with three read buffers', () => {
  test('each batch is on shared memory; three in a row on three buffers, the fourth on the first one\'s; every record exact', async () => {
    const source = await kernelSource('shared.jsonl');
    const seen: RecordBatch[] = [];
    const ids: number[] = [];
    for await (const batch of source.batches({ reads: 3 })) {
      expect(batch.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
      for (let k = 0; k < batch.count; k++) ids.push(idOf(batch, k));
      // the batch before this one is still whole: the read in flight goes into the third buffer
      const before = seen[seen.length - 1];
      if (before) for (const k of [0, before.count >> 1, before.count - 1]) expect(idOf(before, k)).toBe(before.first + k);
      seen.push(batch);
    }
    expect(ids).toEqual(Array.from({ length: RECORDS }, (_, i) => i));
    expect(seen.length).toBeGreaterThanOrEqual(4);
    const buffers = seen.map((b) => b.bytes.buffer);
    expect(new Set(buffers.slice(0, 3)).size).toBe(3);
    for (let n = 3; n < seen.length; n++) expect(buffers[n]).toBe(buffers[n - 3]);
  }, 60_000);

  test('only reads for worker threads go into shared memory: a batch of a plain iteration is on an ordinary buffer', async () => {
    const plain = await kernelSource('shared.jsonl');
    for await (const batch of plain.batches()) expect(batch.bytes.buffer instanceof SharedArrayBuffer).toBe(false);
    const threaded = await kernelSource('shared.jsonl');
    for await (const batch of threaded.batches({ reads: 3 })) expect(batch.bytes.buffer instanceof SharedArrayBuffer).toBe(true);
  }, 60_000);

  test('by default two buffers take turns (the third batch on the first one\'s)', async () => {
    const source = await kernelSource('shared.jsonl');
    const buffers: ArrayBufferLike[] = [];
    for await (const batch of source.batches()) buffers.push(batch.bytes.buffer);
    expect(buffers.length).toBeGreaterThanOrEqual(3);
    expect(buffers[0]).not.toBe(buffers[1]);
    for (let n = 2; n < buffers.length; n++) expect(buffers[n]).toBe(buffers[n - 2]);
  }, 60_000);

  test('iterations of two and of three buffers resume each other exactly, and the third buffer is read into before the kept ones', async () => {
    const source = await kernelSource('shared.jsonl');
    /** Iterates from `from` with `reads`, stops after record `stopAt`; the ids seen and the buffers of the batches. */
    const readUntil = async (from: number, stopAt: number, reads?: number) => {
      const ids: number[] = [];
      const buffers: ArrayBufferLike[] = [];
      outer: for await (const batch of source.batches({ from, ...(reads ? { reads } : {}) })) {
        buffers.push(batch.bytes.buffer);
        for (let k = 0; k < batch.count; k++) {
          ids.push(idOf(batch, k));
          if (batch.first + k === stopAt) break outer;
        }
      }
      return { ids, buffers };
    };
    const range = (a: number, b: number) => Array.from({ length: b - a }, (_, k) => a + k);
    // two buffers, stopped inside the first batch; three resume there (the kept batch, the kept read, then a new buffer)
    const a = await readUntil(0, 100);
    expect(a.ids).toEqual(range(0, 101));
    const b = await readUntil(101, 40_000, 3);
    expect(b.ids).toEqual(range(101, 40_001));
    expect(b.buffers[0]).toBe(a.buffers[0]);
    expect(new Set(b.buffers.slice(0, 3)).size).toBe(3);
    // and back: two buffers resume where three stopped, over the kept three
    const c = await readUntil(40_001, RECORDS - 1);
    expect(c.ids).toEqual(range(40_001, RECORDS));
    // a fresh iteration after all of them still reads every record
    expect((await readUntil(0, RECORDS - 1, 3)).ids).toEqual(range(0, RECORDS));
  }, 60_000);
});

describe('extents trimmed of padding', () => {
  const check = async (name: string) => {
    const source = await kernelSource(name);
    let records = 0;
    for await (const b of source.batches({ reads: 3 })) {
      const batch = b as KernelBatch;
      const expected: number[] = [];
      for (let k = 0; k < batch.count; k++) {
        const [s, e] = batch.span(k);
        // the span holds the record's text, nothing around it
        const t = batch.bytes.subarray(s, e).toString('utf8');
        expect(t.startsWith('{') && t.endsWith('}')).toBe(true);
        expected.push(s, e);
      }
      const extents = new Float64Array(batch.count + 3).fill(-1);
      batch.extentsInto(0, batch.count, extents, 0);
      expect([...extents.subarray(batch.count + 1)]).toEqual([-1, -1]);
      expect(extents[0]).toBe(0);
      expect(extents[batch.count]).toBe(batch.bytes.length);
      expect([...trimmedSpans(extents, batch.count, batch.bytes, source.padding, new Float64Array(4))]).toEqual(expected);
      // a slice from the middle, relative to its first record's extent, on its own bytes
      const k0 = batch.count >> 2, k1 = Math.max(k0 + 1, (batch.count * 3) >> 2);
      batch.extentsInto(k0, k0, extents, 0);
      const shift = extents[0]!;
      batch.extentsInto(k0, k1, extents, shift);
      const bytes = batch.bytes.subarray(shift, shift + extents[k1 - k0]!);
      const out = new Float64Array(2 * (k1 - k0) + 2).fill(-1);
      expect(trimmedSpans(extents, k1 - k0, bytes, source.padding, out)).toBe(out);
      expect([...out]).toEqual([...expected.slice(2 * k0, 2 * k1).map((x) => x - shift), -1, -1]);
      records += batch.count;
    }
    return records;
  };
  test('JSON Lines with CRLF, blank and whitespace lines, leading and trailing whitespace: the spans span gives', async () => {
    expect(await check('shared.jsonl')).toBe(RECORDS);
  }, 60_000);
  test('the elements of a top-level array, whitespace and commas between them: the spans span gives', async () => {
    expect(await check('shared.json')).toBe(5000);
  }, 60_000);
});
