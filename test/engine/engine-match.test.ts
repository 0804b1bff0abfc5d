/**
 * The engine's record loop over a tool's matcher (`ScanEngine.match`, src/engine/scan/match.ts), which the explorer's
 * text search and the sessions search run on: hits in file order, the records the matcher's byte prefilter ruled out
 * counted, a hit that ends the scan, the deadline (on a fake clock) stopping it after a batch, a record over
 * maxRecordBytes handed to `oversized`. Expected values are counted by hand from the generated file.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import { FakeClock } from '../../src/kernel/fake-clock';
import type { RecordBatch, RecordMatcher, RecordSource } from '../../src/kernel/contracts';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { QueryScanEngine } from '../../src/engine/scan';
import { fileService, formatsOf } from '../helpers/formats';

let dir: string;
let source: RecordSource;
// ~10 MB, three batches of 4 MiB: every 1,000th record from 7 on holds the needle
const N = 100_000;
const hits = Array.from({ length: N / 1000 }, (_, k) => k * 1000 + 7);
const line = (i: number) => `{"id":${i},"text":"${i % 1000 === 7 ? 'a needle here' : 'hay'}","pad":"${'x'.repeat(60)}"}`;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-match-'));
  fs.writeFileSync(path.join(dir, 'hay.jsonl'), Array.from({ length: N }, (_, i) => line(i)).join('\n'));
  source = (await fileService(dir, await formatsOf(jsonl)).open('hay.jsonl')).source;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const NEEDLE = Buffer.from('needle');
/** A matcher whose prefilter finds the needle's bytes, and whose test parses the record and reads its text. */
function needleMatcher(tested: number[]): RecordMatcher<{ id: number }> {
  return {
    candidates(batch: RecordBatch, onCandidate) {
      for (let k = 0; k < batch.count; k++) {
        const [s, e] = batch.span(k);
        const at = batch.bytes.indexOf(NEEDLE, s);
        if (at !== -1 && at < e && onCandidate(k) === false) return;
      }
    },
    match(batch, k) {
      tested.push(batch.first + k);
      const v = batch.value(k) as { id: number; text: string };
      return v.text.includes('needle') ? { id: v.id } : null;
    },
  };
}

const engine = (clock = new FakeClock()) => new QueryScanEngine({ limits: () => DEFAULT_LIMITS, clock });

test('every hit in file order; only the prefilter\'s candidates are tested, the others counted as unparsed', async () => {
  const tested: number[] = [];
  const got: [number, number, number][] = [];
  const r = await engine().match({ source, matcher: needleMatcher(tested), onHit: (i, h, before) => (got.push([i, h.id, before]), true) });
  expect(r).toEqual({ stoppedAt: null, unparsed: N - hits.length });
  expect(tested).toEqual(hits);
  // each hit with the records ruled out before it: all the records before it but the earlier hits
  expect(got).toEqual(hits.map((i, n) => [i, i, i - n]));
});

test('from a record on; a hit that returns false ends the scan there', async () => {
  const got: number[] = [];
  const r = await engine().match({ source, from: 1500, matcher: needleMatcher([]), onHit: (i) => (got.push(i), got.length < 3) });
  expect(got).toEqual([2007, 3007, 4007]);
  // ruled out from 1500 up to 4007, less the two earlier hits
  expect(r).toEqual({ stoppedAt: null, unparsed: 4007 - 1500 - 2 });
});

test('past the deadline the scan stops after the batch in progress, at the first record it did not scan', async () => {
  const clock = new FakeClock();
  const got: number[] = [];
  const r = await engine(clock).match({ source, deadline: clock.now() + 10, matcher: needleMatcher([]), onHit: (i) => { got.push(i); clock.advance(100); return true; } });
  expect(r.stoppedAt).not.toBeNull();
  const stop = r.stoppedAt!;
  expect(stop).toBeGreaterThan(7);
  expect(stop).toBeLessThan(N);
  expect(got).toEqual(hits.filter((i) => i < stop));
  expect(r.unparsed).toBe(stop - got.length);
});

test('a record over maxRecordBytes goes to oversized, not to the prefilter or match', async () => {
  // a record longer than a read (4 MiB) and than maxRecordBytes comes alone in a batch without its bytes
  fs.writeFileSync(path.join(dir, 'big.jsonl'), [line(0), `{"text":"needle ${'y'.repeat(5 * 1024 * 1024)}"}`, line(7)].join('\n'));
  const big = (await fileService(dir, await formatsOf(jsonl), { maxRecordBytes: 1024 * 1024 }).open('big.jsonl')).source;
  const tested: number[] = [];
  const got: [number, number][] = [];
  const r = await engine().match({
    source: big, matcher: { ...needleMatcher(tested), oversized: (i) => ({ id: -i }) }, onHit: (i, h) => (got.push([i, h.id]), true),
  });
  expect(got).toEqual([[1, -1], [2, 7]]);
  expect(tested).toEqual([2]);
  expect(r).toEqual({ stoppedAt: null, unparsed: 1 });
});
