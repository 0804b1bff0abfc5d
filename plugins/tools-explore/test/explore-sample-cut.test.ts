/**
 * sample_records never builds an over-size record: its cut text is laid out from the checked record text a page at a
 * time (ctx.json), so the record's value is read only for records that fit the preview.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../format-jsonl/src/index';
import { sampleRecords } from '../src/tools/sampling';
import { fileTable } from '../src/files';
import { DEFAULT_LIMITS } from '../../../src/kernel/config/defaults';
import { FakeClock } from '../../../src/kernel/fake-clock';
import { fileService, formatsOf } from '../../../test/helpers/formats';
import { exploreContext } from '../../../test/helpers/explore-context';

let dir: string;
const BIG = { list: Array.from({ length: 20_000 }, (_, i) => ({ i, s: `v${i}` })) };
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-sample-cut-'));
  fs.writeFileSync(path.join(dir, 'r.jsonl'), `{"a":1}\n${JSON.stringify(BIG)}\n{"a":2}\n{"a":`);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('records are their compact text, never built as values; the over-size one is cut from its text; a malformed one is left out', async () => {
  const clock = new FakeClock();
  const opened = await fileService(dir, await formatsOf(jsonl)).open('r.jsonl');
  const built: number[] = [];
  const value = opened.source.value.bind(opened.source);
  opened.source.value = (i: number, w?: any) => { built.push(i); return value(i, w); };
  const ctx = exploreContext(clock, { limits: { ...DEFAULT_LIMITS, maxRecordPreviewBytes: 1000 } });
  fileTable(ctx).add({ opened, malformedRecords: 0 });
  const r = (await sampleRecords.handler({ handle: 'file_1', count: 4, strategy: 'first' } as any, ctx)) as any;
  const compact = JSON.stringify(BIG); // ASCII: bytes are characters
  expect(r.records).toEqual([
    { index: 0, record: '{"a":1}' },
    {
      index: 1,
      record: `${compact.slice(0, 1000)}… [cut at 1000 of ${compact.length} bytes: get_record 1 with record_format "compact" and offset 1000 reads on]`,
      truncated: true,
      record_bytes: compact.length,
    },
    { index: 2, record: '{"a":2}' },
  ]);
  expect(built).toEqual([]);
  expect(r.warnings.map((w: any) => [w.code, w.record_index])).toEqual([['SYNTAX_ERROR', 3]]);
});
