import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, connect, REPO, type Connected } from '../helpers/mcp';

/** Field cases (inputs copied to test/fixtures/cases): each expected value is asserted here. */
const CASES = path.join(REPO, 'test', 'fixtures', 'cases');
const caseJson = (id: string) => JSON.parse(fs.readFileSync(path.join(CASES, id, 'case.json'), 'utf8'));

let c: Connected;
beforeAll(async () => {
  c = await connect(['--root', CASES]);
});
afterAll(async () => c.close());

async function readAll(handle: string, count: number): Promise<{ ok: unknown[]; errors: { index: number; error: any }[] }> {
  const ok: unknown[] = [];
  const errors: { index: number; error: any }[] = [];
  for (let index = 0; index < count; index++) {
    const r = await call(c.client, 'get_record', { handle, index });
    if (r.isError) errors.push({ index, error: r.data.error });
    else if (r.data.truncated) ok.push({ truncated: true, record_bytes: r.data.record_bytes });
    else ok.push(JSON.parse(r.data.record));
  }
  return { ok, errors };
}

test('C07: BOM, CRLF, blank and whitespace-only lines', async () => {
  const { expected } = caseJson('C07');
  const opened = await call(c.client, 'open_file', { path: 'C07/framing.jsonl', format: 'jsonl' });
  expect(opened.data.record_count).toBe(expected.record_count);
  const r0 = await call(c.client, 'get_record', { handle: opened.data.handle, index: 0 });
  const r1 = await call(c.client, 'get_record', { handle: opened.data.handle, index: 1 });
  const r2 = await call(c.client, 'get_record', { handle: opened.data.handle, index: 2 });
  expect(JSON.parse(r0.data.record)).toEqual(expected.record_0);
  expect(JSON.parse(r1.data.record)).toEqual(expected.record_1);
  expect(JSON.parse(r2.data.record)).toEqual(expected.record_2);
  expect(Object.keys(JSON.parse(r0.data.record))).toEqual(expected.record_0_keys);
  for (const r of [r0, r1, r2]) for (const bad of expected.no_value_contains as string[]) expect(r.data.record).not.toContain(bad);
  // The skipped blank lines (2 and 3) are not records, and both tools say which they were.
  expect(opened.data.blank_lines).toEqual({ count: expected.skipped_blank_lines.length, first_lines: expected.skipped_blank_lines });
  const info = await call(c.client, 'get_file_info', { handle: opened.data.handle });
  expect(info.data.malformed_records).toBe(0);
  expect(info.data.blank_lines).toEqual({ count: 2, first_lines: expected.skipped_blank_lines });
  // detected from content alone, too
  const auto = await call(c.client, 'open_file', { path: 'C07/framing.jsonl' });
  expect(auto.data).toMatchObject({ format: 'jsonl', record_count: 3 });
});

test('C09: a truncated line mid-file and a 1.25 MB line', async () => {
  const { expected } = caseJson('C09');
  const opened = await call(c.client, 'open_file', { path: 'C09/session.jsonl' });
  expect(opened.isError).toBe(false);
  const { handle, record_count } = opened.data;
  expect(record_count).toBe(6);
  expect(opened.data.validation).toMatchObject({ complete: true, malformed_records: 1 });
  expect(opened.data.warnings.map((w: { line: number }) => w.line)).toEqual(expected.malformed_lines);

  const { ok, errors } = await readAll(handle, record_count);
  expect(errors.map((e) => e.error.location.line)).toEqual(expected.malformed_lines);
  expect(errors[0]!.error.code).toBe('SYNTAX_ERROR');
  expect(ok.length).toBe(expected.valid_records);

  // uuids in order, reading the long record in parts
  const uuids: string[] = [];
  let longest = 0;
  for (let index = 0; index < record_count; index++) {
    let r = await call(c.client, 'get_record', { handle, index });
    if (r.isError) continue;
    let text = r.data.record as string;
    if (r.data.truncated) {
      text = '';
      let offset = 0;
      for (;;) {
        r = await call(c.client, 'get_record', { handle, index, offset });
        text += r.data.record;
        if (r.data.next_offset === undefined) break;
        offset = r.data.next_offset;
      }
    }
    const rec = JSON.parse(text);
    if (rec.uuid) uuids.push(rec.uuid);
    const content = rec.message?.content?.[0]?.content;
    if (typeof content === 'string') longest = Math.max(longest, content.length);
    if (rec.uuid === 'u-0004') {
      expect(rec.message.content[0].text).toBe(expected['record_with_uuid_u-0004']['message.content[0].text']);
      expect(rec.timestamp).toBe(expected['record_with_uuid_u-0004'].timestamp);
      expect(rec.timestamp).toBe(expected.last_activity);
    }
  }
  expect(uuids).toEqual(expected.uuids_in_order);
  expect(longest).toBe(expected.line_5_tool_result_length);

  // search finds u-0004 (in the summary's leafUuid and in its own record), previews stay short
  const found = await call(c.client, 'search', { handle, query: 'u-0004' });
  expect(found.data.matches.map((m: { record_index: number }) => m.record_index)).toEqual([0, 5]);
  expect(found.data.matches.map((m: { match_path: string }) => m.match_path)).toEqual(['/leafUuid', '/uuid']);
  // a hit inside the 1.25 MB line has a bounded preview and an exact path
  const inLong = await call(c.client, 'search', { handle, query: 'tool_use_id' });
  expect(inLong.data.matches).toEqual([{ record_index: 4, preview: expect.any(String), match_path: '/message/content/0/tool_use_id' }]);
  const aaa = await call(c.client, 'search', { handle, query: 'AAAA' });
  expect(aaa.data.matches[0].match_path).toBe('/message/content/0/content');
  expect(aaa.data.matches[0].preview.length).toBeLessThan(200);

  // "find uuid u-0004" as a predicate: case-insensitive (the default) and exact, = and ==; != leaves out exactly it
  for (const [query, extra] of [['$.uuid = "u-0004"', {}], ['$.uuid == "U-0004"', {}], ['$.uuid == "u-0004"', { match_case: true }]] as const) {
    const p = await call(c.client, 'search', { handle, query, ...extra });
    expect({ query, found: p.data.matches.map((m: { record_index: number }) => m.record_index), warnings: p.data.warnings }).toEqual({ query, found: [5], warnings: undefined });
  }
  const others = await call(c.client, 'search', { handle, query: '$.uuid != "u-0004"', max_results: 0 });
  // u-0001, u-0002, u-0003 and the summary, which has no uuid (Nothing != "u-0004" holds, RFC 9535 §2.3.5.2.2)
  expect(others.data.total_matches).toBe(4);
  const agg = await call(c.client, 'aggregate', { handle, where: '$.uuid == "u-0004"' });
  expect(agg.data.groups.map((g: { count: number }) => g.count)).toEqual([1]);
});

test('C22: reading in parts always advances, even when length is smaller than the next character', async () => {
  const { extra_checks } = caseJson('C22');
  const opened = await call(c.client, 'open_file', { path: 'C22/emoji.jsonl' });
  const handle = opened.data.handle;
  // the case's offsets are in the re-indented text (record_format pretty; the default is one line)
  const full = (await call(c.client, 'get_record', { handle, index: 0, record_format: 'pretty' })).data.record as string;
  expect(full).toBe('{\n  "k": "😀😁x"\n}');
  expect((await call(c.client, 'get_record', { handle, index: 0 })).data.record).toBe('{"k":"😀😁x"}');
  expect(Buffer.from(full).indexOf(Buffer.from('😀'))).toBe(10);

  // length 3 at the start of a 4-byte character: the whole character, next_offset past it
  const part = await call(c.client, 'get_record', { handle, index: 0, record_format: 'pretty', offset: 10, length: 3 });
  expect(part.data).toMatchObject({ record: '😀', next_offset: 14 });
  expect(await call(c.client, 'get_record', { handle, index: 0, record_format: 'pretty', offset: 10, length: 4 })).toMatchObject({ data: extra_checks[1].expected });

  // following next_offset with length 3 (and 1) terminates and rebuilds the text, in every tool that reads in parts
  const follow = async (tool: string, args: Record<string, unknown>, field: string, length: number) => {
    let text = '', offset = 0, calls = 0;
    for (;;) {
      const r = await call(c.client, tool, { ...args, offset, length });
      expect(r.isError).toBe(false);
      text += r.data[field];
      calls++;
      if (r.data.next_offset === undefined) break;
      expect(r.data.next_offset).toBeGreaterThan(offset);
      offset = r.data.next_offset;
      expect(calls).toBeLessThan(50);
    }
    return text;
  };
  expect(await follow('get_record', { handle, index: 0, record_format: 'pretty' }, 'record', 3)).toBe(full);
  expect(await follow('get_record', { handle, index: 0, record_format: 'pretty' }, 'record', 1)).toBe(full);
  expect(await follow('get_value_at_path', { handle, index: 0, path: 'k' }, 'value', 1)).toBe('"😀😁x"');
  const v = await call(c.client, 'get_value_at_path', { handle, index: 0, path: 'k', offset: 1, length: 2 });
  expect(v.data).toMatchObject({ value: '😀', offset: 1, next_offset: 5 });
});
