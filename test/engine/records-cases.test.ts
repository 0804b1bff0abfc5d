import * as fs from 'node:fs';
import * as path from 'node:path';
import json from '../../plugins/format-json/src/index';
import jsonl from '../../plugins/format-jsonl/src/index';
import type { Format, RecordWarning } from '../../src/kernel/contracts';
import type { McpgwError } from '../../src/kernel/errors';
import { fileService, formatsOf } from '../helpers/formats';

/** Field cases C01, C11, C12 at the RecordSource level: values and warnings as tools receive them. */
const CASES = path.resolve(__dirname, '..', 'fixtures', 'cases');
const caseJson = (id: string) => JSON.parse(fs.readFileSync(path.join(CASES, id, 'case.json'), 'utf8'));
let formats: Format[];
beforeAll(async () => {
  formats = [...(await formatsOf(json)), ...(await formatsOf(jsonl))];
});

test('C12: lone surrogates come back as U+FFFD with a warning naming the record; invalid UTF-8 is an error at its byte; the rest is served', async () => {
  const { expected } = caseJson('C12');
  const { source, close } = await fileService(CASES, formats).open('C12/unicode.jsonl');
  const warnings: RecordWarning[] = [];
  const v0 = source.value(0, warnings) as Record<string, unknown>;
  expect(v0).toEqual({ k: expected.line_1.k, ok: expected.line_1.ok });
  expect(source.value(1, warnings)).toEqual(expected.line_2);
  let err: McpgwError | undefined;
  try { source.value(2, warnings); } catch (e) { err = e as McpgwError; }
  expect(err).toMatchObject({ code: 'SYNTAX_ERROR', location: { byte_offset: fs.readFileSync(path.join(CASES, 'C12', 'unicode.jsonl')).indexOf(0xff), record_index: 2 } });
  const v3 = source.value(3, warnings) as Record<string, unknown>;
  expect(v3).toEqual({ k: expected.line_4.k, ok: expected.line_4.ok });
  expect(warnings.map((w) => [w.code, w.record_index, w.path])).toEqual([['LONE_SURROGATE_REPLACED', 0, '/k'], ['LONE_SURROGATE_REPLACED', 3, '/k']]);
  for (const v of [v0, v3]) expect(JSON.stringify(v).isWellFormed()).toBe(true);
  const report = await source.validate!({ mode: 'full' });
  expect(report).toMatchObject({ malformedRecords: 1, loneSurrogates: 2, firstMalformed: [expect.objectContaining({ recordIndex: 2, line: 3 })] });
  close();
});

test('C01: values hold the exact integers (JSON.rawJSON), and serialize digit for digit', async () => {
  const { expected, extra_checks } = caseJson('C01');
  const { source, close } = await fileService(CASES, formats).open('C01/bigint.jsonl');
  expect(JSON.stringify(source.value(0))).toBe(expected.record_text);
  const id1 = (source.value(1) as { id: unknown }).id;
  expect(JSON.isRawJSON(id1)).toBe(true);
  expect(JSON.stringify(id1)).toBe(extra_checks[0].expected_raw_number);
  expect(JSON.stringify(source.node!(2, '/id')!.value())).toBe(extra_checks[1].expected_raw_number);
  expect((source.value(3) as { id: unknown }).id).toBe(12); // a safe integer stays a plain number
  close();
});

test('C11: 1,000 levels read; 100,000 levels are RESOURCE_LIMIT_EXCEEDED, and lazy access still reaches inside', async () => {
  const files = fileService(CASES, formats);
  const a = await files.open('C11/deep_1000.json');
  let v = a.source.value(0) as Record<string, unknown>;
  let depth = 0;
  while (v && typeof v === 'object' && 'a' in v) { v = v.a as Record<string, unknown>; depth++; }
  expect(v).toEqual({ x: 1 });
  expect(depth).toBeGreaterThan(900);
  a.close();
  const b = await files.open('C11/deep_100000.json');
  expect(() => b.source.value(0)).toThrow(expect.objectContaining({ code: 'RESOURCE_LIMIT_EXCEEDED' }));
  expect(b.source.node!(0, '')!.type).toMatch(/object|array/);
  b.close();
});
