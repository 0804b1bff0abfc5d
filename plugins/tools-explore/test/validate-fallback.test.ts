/**
 * The explorer's and the reader's validation of a record source that has no `validate` of its own (a third party's):
 * each record parsed on the engine's record loop (`ctx.scan.match`). Checked against a hand count of the file and
 * against the engine source's own `validate` on the same file: the same records examined, the same malformed ones.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../format-jsonl/src/index';
import { probeValidate } from '../src/validate';
import { validate } from '../../tools-reader/src/validate';
import { FakeClock } from '../../../src/kernel/fake-clock';
import { DEFAULT_LIMITS } from '../../../src/kernel/config/defaults';
import type { RecordSource } from '../../../src/kernel/contracts';
import { QueryScanEngine } from '../../../src/engine/scan';
import { fileService, formatsOf } from '../../../test/helpers/formats';
import { exploreContext } from '../../../test/helpers/explore-context';

let dir: string;
let source: RecordSource;
/** The same source without a `validate` of its own, as a third party's may be. */
let bare: RecordSource;
// 6 records; record 2 (line 3) and record 4 (line 5) are malformed
const lines = ['{"a":1}', '{"a":2}', '{"a":', '{"a":4}', '[1,,2]', '{"a":6}'];
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-validate-'));
  fs.writeFileSync(path.join(dir, 'v.jsonl'), lines.join('\n') + '\n');
  source = (await fileService(dir, await formatsOf(jsonl)).open('v.jsonl')).source;
  bare = Object.create(source, { validate: { value: undefined } }) as RecordSource;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function ctxWith(limits = {}) {
  const clock = new FakeClock();
  const all = { ...DEFAULT_LIMITS, ...limits };
  return exploreContext(clock, { limits: all, extra: { scan: new QueryScanEngine({ limits: () => all, clock }) } });
}

test('the explorer\'s probe of a source without validate: every record examined, the malformed ones with their lines', async () => {
  const r = await probeValidate(bare, ctxWith());
  expect(r).toMatchObject({ complete: true, records_examined: 6, bytes_examined: lines.join('').length, malformed_records: 2 });
  expect(r.first_malformed.map((m) => [m.record_index, m.code, m.line])).toEqual([[2, 'SYNTAX_ERROR', 3], [4, 'SYNTAX_ERROR', 5]]);
  const own = await probeValidate(source, ctxWith());
  expect(r.first_malformed.map((m) => m.record_index)).toEqual(own.first_malformed.map((m) => m.record_index));
  expect([r.records_examined, r.malformed_records]).toEqual([own.records_examined, own.malformed_records]);
});

test('the probe stops at probeRecords and at probeBytes (at least one record)', async () => {
  expect(await probeValidate(bare, ctxWith({ probeRecords: 3 }))).toMatchObject({ complete: false, records_examined: 3, malformed_records: 1 });
  // 7 + 7 bytes fit in 15, the third record (5 bytes) does not
  expect(await probeValidate(bare, ctxWith({ probeBytes: 15 }))).toMatchObject({ complete: false, records_examined: 2, bytes_examined: 14, malformed_records: 0 });
  expect(await probeValidate(bare, ctxWith({ probeBytes: 1 }))).toMatchObject({ records_examined: 1 });
});

test('the reader\'s full validation of a source without validate: every record, the malformed ones with their positions', async () => {
  const r = await validate(bare, 'full', ctxWith());
  expect(r).toMatchObject({ mode: 'full', complete: true, recordsExamined: 6, malformedRecords: 2 });
  expect(r.firstMalformed.map((m) => [m.recordIndex, m.line])).toEqual([[2, 3], [4, 5]]);
  const own = await validate(source, 'full', ctxWith());
  expect([r.recordsExamined, r.malformedRecords, r.firstMalformed.map((m) => m.recordIndex)]).toEqual([own.recordsExamined, own.malformedRecords, own.firstMalformed.map((m) => m.recordIndex)]);
  expect(await validate(bare, 'probe', ctxWith({ probeRecords: 2 }))).toMatchObject({ mode: 'probe', complete: false, recordsExamined: 2, malformedRecords: 0 });
});
