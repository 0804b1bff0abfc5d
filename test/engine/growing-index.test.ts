/**
 * The resumable framing passes behind growing files: feeding a file's bytes in any split (as appends arrive) gives
 * the index one pass over the whole file gives — for JSON Lines and JSON-seq.
 */
import fc from 'fast-check';
import { Float64OffsetIndex } from '../../src/engine/records/offset-index';
import { LineIndexer } from '../../plugins/format-jsonl/src/index-lines';
import { SequenceIndexer } from '../../plugins/format-jsonseq/src/sequence';

const starts = (index: Float64OffsetIndex) => Array.from({ length: index.count }, (_, i) => index.start(i));

function fed<T extends { feed(offset: number, bytes: Uint8Array): void; index: { finish(): void } }>(make: () => T, bytes: Buffer, cuts: number[]): T {
  const indexer = make();
  let at = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length)].sort((a, b) => a - b).concat(bytes.length)) {
    if (cut <= at) continue;
    indexer.feed(at, bytes.subarray(at, cut));
    indexer.index.finish(); // as after each extension
    at = cut;
  }
  return indexer;
}

const jsonLinesText = fc.array(fc.oneof(fc.constant(''), fc.constant('  '), fc.constant('\r'), fc.json()), { maxLength: 30 })
  .chain((ls) => fc.boolean().map((trailing) => ls.join('\n') + (trailing ? '\n' : '')));

test('JSON Lines: any split of the bytes indexes the same record starts as one pass (lines too)', () => {
  fc.assert(fc.property(jsonLinesText, fc.array(fc.nat(2000), { maxLength: 8 }), (text, cuts) => {
    const bytes = Buffer.from(text);
    const whole = fed(() => new LineIndexer(new Float64OffsetIndex()), bytes, []);
    const split = fed(() => new LineIndexer(new Float64OffsetIndex()), bytes, cuts);
    expect(starts(split.index as Float64OffsetIndex)).toEqual(starts(whole.index as Float64OffsetIndex));
    for (let c = 0; c * 1024 < whole.index.count; c++) expect(split.index.checkpointLine(c)).toBe(whole.index.checkpointLine(c));
  }), { numRuns: 300 });
});

test('JSON-seq: any split of the bytes indexes the same element starts as one pass', () => {
  const seqText = fc.array(fc.json(), { maxLength: 20 }).map((vs) => vs.map((v) => `\x1e${v}\n`).join(''));
  fc.assert(fc.property(seqText, fc.array(fc.nat(2000), { maxLength: 8 }), (text, cuts) => {
    const bytes = Buffer.from(text);
    const whole = fed(() => new SequenceIndexer(new Float64OffsetIndex()), bytes, []);
    const split = fed(() => new SequenceIndexer(new Float64OffsetIndex()), bytes, cuts);
    expect(starts(split.index as Float64OffsetIndex)).toEqual(starts(whole.index as Float64OffsetIndex));
  }), { numRuns: 300 });
});

test('an index finished empty still records the first line checkpoint when it grows', () => {
  const idx = new Float64OffsetIndex();
  idx.finish();
  idx.push(0, 1);
  expect(idx.checkpointLine(0)).toBe(1);
});
