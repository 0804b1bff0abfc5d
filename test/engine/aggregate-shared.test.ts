/**
 * Aggregates on worker threads over a file of many read buffers, whose slices go to the threads on the batches' own
 * shared bytes (three read buffers taking turns) — and, for a record longer than a read buffer, copied: the groups
 * equal those counted here over the parsed lines and those of the aggregate on this thread, with CRLF, blank lines,
 * malformed records, a record past maxRecordBytes, pages stopped at a deadline and a cancellation between.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import type { AggregateOptions, AggregateResult, Format, RecordSource } from '../../src/kernel/contracts';
import { fileService, formatsOf } from '../helpers/formats';
import { aggregateEngine, engine } from '../helpers/query';

const MAX_RECORD = 6 * 1024 * 1024;
const limits = { maxRecordBytes: MAX_RECORD };
/** ~22 MB: 70,000 records of ~300 bytes; records 20,000 (5 MiB: longer than a read buffer) and 45,000 (7 MiB: past maxRecordBytes) are long. */
const N = 70_000;
const LONG = 20_000, OVERSIZED = 45_000;
const BROKEN = new Set([7, 4095, 33_333, N - 1]);
const status = (i: number) => ['ok', 'failed', 'done', 'late', 'ok'][i % 5]!;
function line(i: number): string {
  if (BROKEN.has(i)) return `{"i":${i},"status":"ok",`;
  const pad = i === LONG ? 'L'.repeat(5 * 1024 * 1024) : i === OVERSIZED ? 'O'.repeat(7 * 1024 * 1024) : 'x'.repeat(200 + (i % 97));
  return `${i % 9 === 0 ? ' ' : ''}{"i":${i},"status":"${status(i)}","pad":"${pad}"}${i % 4 === 0 ? '\r' : ''}`;
}

let dir: string;
let formats: Format[];
let source: RecordSource;
/** The counts by status computed here: every record that parses (not the malformed ones, nor the one past the limit). */
const expected = new Map<string, number>();
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-aggregate-shared-'));
  formats = await formatsOf(jsonl);
  const fd = fs.openSync(path.join(dir, 'many.jsonl'), 'w');
  for (let i = 0; i < N; i++) {
    const l = line(i);
    fs.writeSync(fd, l + (i % 1000 === 3 ? '\n\n  \n' : '\n'));
    if (i === OVERSIZED || BROKEN.has(i)) continue;
    const s = (JSON.parse(l) as { status: string }).status;
    expected.set(s, (expected.get(s) ?? 0) + 1);
  }
  fs.closeSync(fd);
  source = (await fileService(dir, formats, limits).open('many.jsonl')).source;
}, 60_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const spec = (opts: Partial<AggregateOptions> = {}): AggregateOptions => ({ source, dimensions: [{ kind: 'value', path: ['status'] }], metrics: [], order: { by: 'count', desc: true }, ...opts });
const counts = (r: AggregateResult) => new Map(r.groups.map((g) => [g.key[0] as string, g.count]));

describe('aggregates on worker threads over many read buffers', () => {
  test('the groups counted here, the same as on this thread; malformed records and the one past maxRecordBytes skipped', async () => {
    const threaded = await aggregateEngine(limits).aggregate(spec());
    expect(counts(threaded)).toEqual(expected);
    expect(threaded).toMatchObject({ recordsScanned: N, complete: true, skipped: BROKEN.size + 1 });
    const here = await engine(limits).aggregate(spec());
    expect(threaded.groups).toEqual(here.groups);
    expect(threaded.firstSkipped).toEqual(here.firstSkipped);
    expect(threaded.firstSkipped!.map((x) => [x.record_index, x.code])).toEqual([[7, 'SYNTAX_ERROR'], [4095, 'SYNTAX_ERROR'], [33_333, 'SYNTAX_ERROR'], [OVERSIZED, 'RESOURCE_LIMIT_EXCEEDED'], [N - 1, 'SYNTAX_ERROR']]);
  }, 60_000);

  test('a source that is not the kernel\'s (its batches valid until the next is asked for): slices copied, the same groups', async () => {
    const inner = source;
    const wrapped: RecordSource = {
      format: inner.format, count: inner.count, rootIsSequence: inner.rootIsSequence, identity: inner.identity,
      raw: (i) => inner.raw(i), text: (i) => inner.text(i), value: (i, w) => inner.value(i, w), location: (i) => inner.location(i),
      batches: (o) => inner.batches(o),
    };
    const r = await aggregateEngine(limits).aggregate(spec({ source: wrapped }));
    expect(counts(r)).toEqual(expected);
    expect(r).toMatchObject({ recordsScanned: N, complete: true, skipped: BROKEN.size + 1 });
  }, 60_000);

  test('pages stopped at the deadline add up to the unpaged answer', async () => {
    const eng = aggregateEngine(limits);
    let r = await eng.aggregate({ ...spec(), deadline: Date.now() - 1 });
    let pages = 1;
    while (!r.complete) {
      r = await eng.aggregate({ ...spec(), deadline: Date.now() - 1, resume: r.resume! });
      pages++;
      expect(pages).toBeLessThan(200);
    }
    expect(pages).toBeGreaterThan(3);
    expect(counts(r)).toEqual(expected);
    expect(r.recordsScanned).toBe(N);
  }, 60_000);

  test('a cancel mid-file is CANCELLED; the next aggregate on the same threads is whole', async () => {
    const eng = aggregateEngine(limits);
    const ac = new AbortController();
    let calls = 0;
    await expect(eng.aggregate({ ...spec(), signal: ac.signal, onProgress: () => { if (++calls === 3) ac.abort(); } })).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(counts(await eng.aggregate(spec()))).toEqual(expected);
  }, 60_000);
});
