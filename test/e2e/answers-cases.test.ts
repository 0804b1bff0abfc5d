/**
 * Field cases C17, C20, C21 and C23 end to end through a real MCP client: inputs copied to test/fixtures/cases, each
 * expected value of case.json asserted.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, connect, REPO, type Connected } from '../helpers/mcp';

const CASES = path.join(REPO, 'test', 'fixtures', 'cases');
const caseJson = (id: string) => JSON.parse(fs.readFileSync(path.join(CASES, id, 'case.json'), 'utf8'));

let c: Connected;
beforeAll(async () => {
  c = await connect(['--root', CASES]);
});
afterAll(async () => c.close());

/** The values of a whole-file json_read (every page). */
async function readAll(file: string, query: string, extra: Record<string, unknown> = {}): Promise<{ paths: string[]; values: unknown[]; pages: any[] }> {
  const pages: any[] = [];
  let r = await call(c.client, 'json_read', { path: file, language: 'jsonpath', query, ...extra });
  for (;;) {
    expect(r.isError).toBe(false);
    pages.push(r.data);
    if (!r.data.next_cursor) break;
    r = await call(c.client, 'json_read', { cursor: r.data.next_cursor });
  }
  const items = pages.flatMap((p) => p.items);
  return { paths: items.map((i: any) => i.path), values: items.map((i: any) => i.value), pages };
}

/** Every match of an explorer search (every page). */
async function searchAll(handle: string, args: Record<string, unknown>): Promise<{ indexes: number[]; pages: any[] }> {
  const pages: any[] = [];
  let a: Record<string, unknown> = { handle, ...args };
  for (;;) {
    const r = await call(c.client, 'search', a);
    expect(r.isError).toBe(false);
    pages.push(r.data);
    if (!r.data.next_cursor) break;
    a = { ...a, cursor: r.data.next_cursor };
  }
  return { indexes: pages.flatMap((p) => p.matches.map((m: any) => m.record_index)), pages };
}

test('C17: length() counts Unicode scalar values; predicate forms are detected without mode', async () => {
  const spec = caseJson('C17');
  const file = `C17/${spec.input}`;
  expect((await readAll(file, spec.query)).values).toEqual(spec.expected);
  const [whole2, viaExplorer, auto] = spec.extra_checks;
  expect((await readAll(file, whole2.query)).values).toEqual(whole2.expected);
  const { data: open } = await call(c.client, 'open_file', { path: file });
  const explicit = await searchAll(open.handle, { query: viaExplorer.query, mode: 'jsonpath' });
  expect(explicit.indexes).toEqual(viaExplorer.expected.record_indexes);
  const detected = await searchAll(open.handle, { query: auto.query });
  expect(detected.indexes).toEqual(auto.expected.record_indexes);
  expect(detected.pages[0].mode).toBe(auto.expected.mode);
  expect(detected.pages[0].filter).toBe('length(@.s) == 1');
  // The other documented predicate form, and text that only looks like one, without mode.
  const negation = await call(c.client, 'search', { handle: open.handle, query: '!($.s)' });
  expect(negation.data).toMatchObject({ mode: 'jsonpath', filter: '!(@.s)', total_matches: 0 });
  const text = await call(c.client, 'search', { handle: open.handle, query: 'ab' });
  expect(text.data).toMatchObject({ mode: 'text', total_matches: 1 });
  expect(text.data.filter).toBeUndefined();
  // String order is code point order: U+FF61 (｡) sorts before U+1F600 (😀), though its UTF-16 unit is larger.
  expect((await readAll(file, '$[?@.s > "\uFF61"].id')).values).toEqual([1, 5, 6]);
  expect((await readAll(file, '$[?@.s < "\uD83D\uDE00"].id')).values).toEqual([2, 3, 4, 5, 6]);
  const ordered = await searchAll(open.handle, { query: '$.s > "｡"' });
  expect(ordered.indexes).toEqual([0, 4, 5]);
});

test('C21: case-insensitive equality in predicates is Unicode simple case folding, as in text search', async () => {
  const spec = caseJson('C21');
  const { data: open } = await call(c.client, 'open_file', { path: `C21/${spec.input}` });
  const first = await searchAll(open.handle, { query: spec.query });
  expect(first.indexes).toEqual(spec.expected.record_indexes);
  for (const check of spec.extra_checks.filter((x: any) => x.query)) {
    expect({ q: check.query, got: (await searchAll(open.handle, { query: check.query })).indexes }).toEqual({ q: check.query, got: check.expected.record_indexes });
  }
  const control = spec.extra_checks.find((x: any) => x.queries);
  for (const q of control.queries as string[]) {
    const r = await searchAll(open.handle, { query: q, mode: 'text' });
    if (control.expected_includes[q]) expect({ q, got: r.indexes }).toEqual({ q, got: control.expected_includes[q] });
  }
  // match_case: true compares exactly.
  expect((await searchAll(open.handle, { query: spec.query, match_case: true })).indexes).toEqual([0]);
});

test('C23: a line holding a value then more data is malformed in every path: no phantom match, count or cursor', async () => {
  const spec = caseJson('C23');
  const file = `C23/${spec.input}`;
  const { data: open } = await call(c.client, 'open_file', { path: file });
  const [byDefault, reader, opened] = spec.extra_checks;
  expect({ record_count: open.record_count, malformed_records: open.validation.malformed_records }).toEqual(opened.expected);
  const page = await call(c.client, 'search', { handle: open.handle, query: '$.id = 2', max_results: 1 });
  expect(page.data.total_matches).toBe(spec.expected.total_matches);
  expect(page.data.matches.map((m: any) => m.record_index)).toEqual(spec.expected.record_indexes);
  expect(page.data.next_cursor).toBeUndefined();
  // Records 1 and 3 hold a second value with "id": 2, record 4 trailing text: each is reported as malformed.
  expect(page.data.warnings.map((w: any) => [w.code, w.record_index])).toEqual([['SYNTAX_ERROR', 1], ['SYNTAX_ERROR', 3], ['SYNTAX_ERROR', 4]]);
  const all = await call(c.client, 'search', { handle: open.handle, query: '$.id = 2' });
  expect(all.data.total_matches).toBe(byDefault.expected.total_matches);
  expect(all.data.matches.map((m: any) => m.record_index)).toEqual(byDefault.expected.record_indexes);
  const r = await call(c.client, 'json_read', { path: file, language: 'jsonpath', query: '$[?@.id == 2]', max_items: 1 });
  expect(r.data.items.map((i: any) => i.path)).toEqual(reader.expected.items);
  expect(r.data.complete).toBe(reader.expected.complete);
  expect(r.data.next_cursor).toBeUndefined();
  // The same answers for every query shape: on-demand reads, existence tests, whole records, text search.
  expect((await readAll(file, '$[?@.s]')).paths).toEqual(['/0', '/2']);
  expect((await readAll(file, '$[*].id')).values).toEqual([1, 2]);
  expect((await searchAll(open.handle, { query: 'y' })).indexes).toEqual([]);
  expect((await call(c.client, 'get_record', { handle: open.handle, index: 1 })).data.error.code).toBe('SYNTAX_ERROR');
});

test('C20: a numeral is an integer only if its value is one, in get_schema, get_value_at_path and comparisons', async () => {
  const spec = caseJson('C20');
  const file = `C20/${spec.input}`;
  const { data: open } = await call(c.client, 'open_file', { path: file });
  const schema = (await call(c.client, 'get_schema', { handle: open.handle })).data.schema;
  for (const [key, type] of Object.entries(spec.expected)) {
    const at = key.split('.').reduce((o: any, k) => o?.[k], schema);
    expect({ key, type: at }).toEqual({ key, type });
  }
  for (const check of spec.extra_checks) {
    const m = /^get_value_at_path index (\d+) path (\w+)$/.exec(check.operation);
    if (m) {
      const r = await call(c.client, 'get_value_at_path', { handle: open.handle, index: Number(m[1]), path: m[2] });
      expect({ op: check.operation, got: r.data }).toEqual({ op: check.operation, got: expect.objectContaining(check.expected) });
    } else {
      const r = await call(c.client, 'get_record', { handle: open.handle, index: 0 });
      for (const s of check.expected_text_contains) expect(r.data.record).toContain(s);
    }
  }
  // Comparisons see the same values: 150e-2 is 1.5, 2.50e1 is 25, 1E400 is an integer larger than any double.
  expect((await readAll(file, '$[?@.neg_exp == 1.5].id')).values).toEqual([2]);
  expect((await readAll(file, '$[?@.pos_exp == 25].id')).values).toEqual([2]);
  expect((await readAll(file, '$[?@.neg_exp < 1].id')).values).toEqual([1]);
  expect((await readAll(file, '$[?@.big == 1E400].id')).values).toEqual([1, 3]);
  expect((await readAll(file, '$[?@.big > 1E399].id')).values).toEqual([1, 3]);
  expect((await readAll(file, '$[?@.zero == 0].id')).values).toEqual([1, 2, 3]);
  expect((await searchAll(open.handle, { query: '$.pos_exp = 100' })).indexes).toEqual([0]);
});
