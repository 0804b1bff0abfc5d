/**
 * The explorer as a drop-in for Thoth's clients, end to end through a real MCP client (which checks every result
 * against the advertised output schema): prompt-shaped calls as Thoth's documentation writes them — optional
 * arguments sent as null, zero counts, unknown arguments, unknown enum values, and text queries that span JSON
 * structure (`"status":"failed"`), whose matches are counted here with a plain byte search over the file's lines.
 * The reader set keeps its closed argument objects.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../../../test/helpers/mcp';

const N = 3000;
const STATUSES = ['ok', 'failed', 'retry', 'FAILED'];

/** The lines of events.jsonl: compact JSON, a few spaced out or escaped so that raw and decoded matching differ. */
function lines(): string[] {
  const out: string[] = [];
  for (let i = 0; i < N; i++) {
    const status = STATUSES[(i * 7) % STATUSES.length]!;
    const r = { id: i, status, level: i % 5 === 0 ? 'error' : 'info', note: i % 97 === 3 ? 'was "status":"failed" before' : 'fine' };
    let line = JSON.stringify(r);
    if (i % 101 === 7) line = line.replace('"status":', '"status": '); // a space: no raw match, as in a byte search
    if (i % 103 === 9) line = line.replace('"status":"failed"', '"status":"f\\u0061iled"'); // an escape as written
    out.push(line);
  }
  return out;
}

let base: string;
let events: string[];
let c: Connected;
let handle: string;
let docHandle: string;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-thoth-e2e-'));
  events = lines();
  fs.writeFileSync(path.join(base, 'events.jsonl'), events.join('\n') + '\n');
  // One document (search counts nodes): the same events as an array, as written above.
  fs.writeFileSync(path.join(base, 'doc.json'), `{"events":[${events.join(',')}]}`);
  // One document over 1 MiB, walked in parts: its top-level members are read apart from their names.
  const features = Array.from({ length: 6000 }, (_, i) => `{"type":"Feature","properties":{"id":${i},"status":"${STATUSES[i % 4]}","pad":"${'x'.repeat(200)}"}}`);
  fs.writeFileSync(path.join(base, 'geo.json'), `{"type":"FeatureCollection", "name":"big","features":[${features.join(',')}]}`);
  c = await connect(['--root', base]);
  handle = (await call(c.client, 'open_file', { path: 'events.jsonl' })).data.handle;
  docHandle = (await call(c.client, 'open_file', { path: 'doc.json' })).data.handle;
}, 60_000);
afterAll(async () => {
  await c?.close();
  fs.rmSync(base, { recursive: true, force: true });
});

/** Records a byte search finds (the line holds the needle; ASCII folding when not matchCase) or whose decoded strings hold it. */
function expectedRecords(needle: string, matchCase: boolean): number[] {
  const fold = (s: string) => (matchCase ? s : s.toLowerCase());
  const strings = (v: unknown): string[] => (typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => [k, ...strings(x)]) : [String(v)]);
  const found: number[] = [];
  events.forEach((line, i) => {
    if (fold(line).includes(fold(needle)) || strings(JSON.parse(line)).some((s) => fold(s).includes(fold(needle)))) found.push(i);
  });
  return found;
}

/** Every page of a search, following next_cursor: the record indexes and match paths in order. */
async function allPages(args: Record<string, unknown>) {
  const seen: { record_index: number; match_path: string; preview: string }[] = [];
  let r = await call(c.client, 'search', args);
  let total = r.data.total_matches as number;
  for (;;) {
    expect(r.isError).toBe(false);
    seen.push(...r.data.matches);
    if (!r.data.next_cursor) break;
    r = await call(c.client, 'search', { ...args, cursor: r.data.next_cursor });
    total = r.data.total_matches;
  }
  return { seen, total };
}

describe('text search matches the raw record bytes too', () => {
  test('"status":"failed" counts what a byte search counts (plus decoded hits), case-insensitively by default', async () => {
    const expected = expectedRecords('"status":"failed"', false);
    // the fixture has both kinds: raw-only records, and one whose decoded note holds the text with its quotes
    expect(expected.length).toBeGreaterThan(N / 3);
    expect(events.filter((l) => l.includes('was \\"status\\":\\"failed\\"')).length).toBeGreaterThan(10);
    const r = await call(c.client, 'search', { handle, query: '"status":"failed"', max_results: 0 });
    expect(r.data).toMatchObject({ total_matches: expected.length, matches: [], complete: true, mode: 'text' });
  });

  test('paged by cursor: every matching record once, in order, the hit marked in the raw text', async () => {
    const expected = expectedRecords('"status":"failed"', false);
    const { seen, total } = await allPages({ handle, query: '"status":"failed"', max_results: 200 });
    expect(total).toBe(expected.length);
    expect(seen.map((m) => m.record_index)).toEqual(expected);
    const rawOnly = seen.find((m) => m.record_index === expected.find((i) => !events[i]!.includes('note":"was')))!;
    expect(rawOnly.match_path).toBe('/status');
    expect(rawOnly.preview).toMatch(/«"status":"(failed|FAILED)"»/);
  });

  test('match_case: only the exact bytes (or decoded text)', async () => {
    for (const q of ['"status":"FAILED"', '"status":"failed"', '"level":"error","note":"fine"']) {
      const expected = expectedRecords(q, true);
      const { seen, total } = await allPages({ handle, query: q, match_case: true, max_results: 500 });
      expect(total).toBe(expected.length);
      expect(seen.map((m) => m.record_index)).toEqual(expected);
    }
  });

  test('a query that is neither a byte nor a decoded match finds nothing (a space the file does not have)', async () => {
    const q = '"status" : "failed"';
    expect(expectedRecords(q, false)).toEqual([]);
    const r = await call(c.client, 'search', { handle, query: q });
    expect(r.data).toMatchObject({ total_matches: 0, matches: [], complete: true });
  });

  test('an escape as written matches the raw bytes; the decoded text still matches its decoded form', async () => {
    const raw = await call(c.client, 'search', { handle, query: 'f\\u0061iled', max_results: 0 });
    expect(raw.data.total_matches).toBe(events.filter((l) => l.includes('f\\u0061iled')).length);
    expect(raw.data.total_matches).toBeGreaterThan(0);
  });

  test('one document (nodes counted): every raw occurrence is a match at the member it starts in', async () => {
    const text = fs.readFileSync(path.join(base, 'doc.json'), 'utf8').toLowerCase();
    let occurrences = 0;
    for (let at = text.indexOf('"status":"failed"'); at !== -1; at = text.indexOf('"status":"failed"', at + 1)) occurrences++;
    // decoded hits: the notes holding the quoted text (their raw bytes are escaped)
    const notes = events.filter((l) => l.includes('was \\"status\\"')).length;
    const counted = await call(c.client, 'search', { handle: docHandle, query: '"status":"failed"', max_results: 0 });
    expect(counted.data).toMatchObject({ counts: 'nodes', total_matches: occurrences + notes, complete: true });
    const { seen, total } = await allPages({ handle: docHandle, query: '"status":"failed"', max_results: 300 });
    expect(total).toBe(occurrences + notes);
    expect(seen).toHaveLength(occurrences + notes);
    expect(seen.filter((m) => /^\/events\/\d+\/status$/.test(m.match_path))).toHaveLength(occurrences);
    expect(seen.filter((m) => /^\/events\/\d+\/note$/.test(m.match_path))).toHaveLength(notes);
  });

  test('one document walked in parts: a hit spanning a member\'s name and value is found, at that member', async () => {
    const text = fs.readFileSync(path.join(base, 'geo.json'), 'utf8');
    expect(text.length).toBeGreaterThan(1024 * 1024);
    const geo = (await call(c.client, 'open_file', { path: 'geo.json' })).data.handle;
    const top = await call(c.client, 'search', { handle: geo, query: '"type":"FeatureCollection"' });
    expect(top.data).toMatchObject({ counts: 'nodes', total_matches: 1, matches: [{ record_index: 0, match_path: '/type', preview: expect.stringContaining('«"type":"FeatureCollection"»') }] });
    // the comma and space before a member's name are part of its raw text; a space the file does not have is not
    expect((await call(c.client, 'search', { handle: geo, query: ', "name":"big"' })).data).toMatchObject({ total_matches: 1, matches: [{ match_path: '/name' }] });
    expect((await call(c.client, 'search', { handle: geo, query: ',"name":"big"' })).data.total_matches).toBe(0);
    const lower = text.toLowerCase();
    let occurrences = 0;
    for (let at = lower.indexOf('"type":"feature'); at !== -1; at = lower.indexOf('"type":"feature', at + 1)) occurrences++;
    expect(occurrences).toBe(6001);
    const counted = await call(c.client, 'search', { handle: geo, query: '"type":"feature', max_results: 0 });
    expect(counted.data).toMatchObject({ total_matches: occurrences, complete: true });
    const failed = await call(c.client, 'search', { handle: geo, query: '"status":"failed"', match_case: true, max_results: 0 });
    expect(failed.data.total_matches).toBe(text.split('"status":"failed"').length - 1);
  });

  test('regex mode stays on decoded names and string values (no raw-text match)', async () => {
    const r = await call(c.client, 'search', { handle, query: '"status":"failed"', regex: true, max_results: 0 });
    expect(r.data.total_matches).toBe(events.filter((l) => l.includes('was \\"status\\":\\"failed\\"')).length);
  });
});

describe('optional arguments sent as null take their defaults', () => {
  test('search, sample_records, extract_keys, get_schema, get_record, aggregate', async () => {
    const plain = await call(c.client, 'search', { handle, query: 'retry' });
    const nulls = await call(c.client, 'search', { handle, query: 'retry', mode: null, match_case: null, max_results: null, regex: null, fields: null, cursor: null });
    expect(nulls.isError).toBe(false);
    const { next_cursor: a, ...withNulls } = nulls.data;
    const { next_cursor: b, ...without } = plain.data;
    expect(withNulls).toEqual(without);
    expect([typeof a, typeof b]).toEqual(['string', 'string']);
    expect(nulls.data.matches).toHaveLength(50);

    const sample = await call(c.client, 'sample_records', { handle, count: null, strategy: null, fields: null });
    expect(sample.data.strategy).toBe('first');
    expect(sample.data.records.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3, 4]);

    const keys = await call(c.client, 'extract_keys', { handle, path: null, sample_size: null });
    expect(keys.data).toMatchObject({ keys: ['id', 'level', 'note', 'status'], records_sampled: 100 });
    const schema = await call(c.client, 'get_schema', { handle, sample_size: null });
    expect(schema.data.records_sampled).toBe(50);
    const record = await call(c.client, 'get_record', { handle, index: 2, fields: null, offset: null, length: null });
    expect(JSON.parse(record.data.record)).toEqual(JSON.parse(events[2]!));
    const agg = await call(c.client, 'aggregate', { handle, group_by: 'status', where: null, bucket: null, top: null, order: null });
    expect(agg.data.groups_total).toBe(4);
    expect(agg.data.warnings).toBeUndefined();
  });

  test('null inside a nested object is its default too', async () => {
    const agg = await call(c.client, 'aggregate', { handle, bucket: { path: 'id', width: 1000, epoch: null } });
    expect(agg.isError).toBe(false);
    expect(agg.data.groups.map((g: { key: number; count: number }) => [g.key, g.count])).toEqual([[0, 1000], [1000, 1000], [2000, 1000]]);
  });

  test('a required argument sent as null is still INVALID_ARGUMENT', async () => {
    const r = await call(c.client, 'get_record', { handle, index: null });
    expect(r.isError).toBe(true);
    expect(r.data.error.code).toBe('INVALID_ARGUMENT');
    expect(r.data.error.message).toContain('index');
  });
});

describe('zero counts, as Thoth reads them', () => {
  test('sample_records count: 0 is an empty, complete answer', async () => {
    const r = await call(c.client, 'sample_records', { handle, count: 0, strategy: 'even' });
    expect(r.data).toEqual({ records: [], total_records: N, strategy: 'even' });
  });

  test('sample_size: 0 is the default (100 for extract_keys, 50 for get_schema)', async () => {
    expect((await call(c.client, 'extract_keys', { handle, sample_size: 0 })).data.records_sampled).toBe(100);
    expect((await call(c.client, 'get_schema', { handle, sample_size: 0 })).data.records_sampled).toBe(50);
  });

  test('search max_results: 0 counts only; aggregate top: 0 counts the groups only', async () => {
    const r = await call(c.client, 'search', { handle, query: 'retry', max_results: 0 });
    expect(r.data).toMatchObject({ total_matches: events.filter((l) => l.includes('"retry"')).length, matches: [] });
    const agg = await call(c.client, 'aggregate', { handle, group_by: 'level', top: 0 });
    expect(agg.data).toMatchObject({ groups: [], groups_total: 2, records_scanned: N, complete: true });
    expect(agg.data.next_cursor).toBeUndefined();
  });
});

describe('unknown arguments are ignored, with a warning naming them', () => {
  test('search with arguments it does not have answers, and says which it ignored', async () => {
    const plain = await call(c.client, 'search', { handle, query: 'retry', max_results: 3 });
    const r = await call(c.client, 'search', { handle, query: 'retry', max_results: 3, limit: 10, fuzzy: true });
    expect(r.isError).toBe(false);
    expect(r.data.matches).toEqual(plain.data.matches);
    expect(r.data.warnings).toEqual([{ code: 'INVALID_ARGUMENT', message: 'Ignored arguments that search does not have: "limit", "fuzzy".' }]);
  });

  test('a tool whose answer has no warnings of its own gets them (get_record_count, get_file_info, close_file)', async () => {
    const count = await call(c.client, 'get_record_count', { handle, verbose: true });
    expect(count.data).toEqual({ record_count: N, warnings: [{ code: 'INVALID_ARGUMENT', message: 'Ignored an argument that get_record_count does not have: "verbose".' }] });
    const info = await call(c.client, 'get_file_info', { handle, path: 'events.jsonl' });
    expect(info.isError).toBe(false);
    expect(info.data.warnings).toEqual([{ code: 'INVALID_ARGUMENT', message: 'Ignored an argument that get_file_info does not have: "path".' }]);
  });

  test('null and unknown arguments are told once, in the server instructions, not per parameter in tools/list', async () => {
    expect(c.client.getInstructions()).toContain('Optional arguments may be null (= default); unknown ones are ignored with a warning.');
    const { tools } = await c.client.listTools();
    const explore = tools.filter((t) => ['search', 'sample_records', 'get_schema', 'extract_keys'].includes(t.name));
    expect(explore).toHaveLength(4);
    for (const t of explore) expect(JSON.stringify(t.inputSchema)).not.toContain('null');
  });
});

describe('an unknown enum value falls back as Thoth does, with a warning', () => {
  test('search mode: auto-detected instead (text, or jsonpath for a $ query)', async () => {
    const text = await call(c.client, 'search', { handle, query: 'retry', mode: 'fuzzy', max_results: 0 });
    expect(text.data).toMatchObject({ mode: 'text', total_matches: events.filter((l) => l.includes('"retry"')).length });
    expect(text.data.warnings).toEqual([{ code: 'INVALID_ARGUMENT', message: 'mode "fuzzy" is not one of "text", "jsonpath": used "text" instead.' }]);
    const path_ = await call(c.client, 'search', { handle, query: '$.status = "retry"', mode: 'predicate', max_results: 0 });
    expect(path_.data).toMatchObject({ mode: 'jsonpath', total_matches: events.filter((l) => /"status":\s?"retry"/.test(l)).length });
    expect(path_.data.warnings).toEqual([{ code: 'INVALID_ARGUMENT', message: 'mode "predicate" is not one of "text", "jsonpath": used "jsonpath" instead.' }]);
  });

  test('sample_records strategy: "first" instead', async () => {
    const r = await call(c.client, 'sample_records', { handle, count: 2, strategy: 'random' });
    expect(r.data.records.map((x: { index: number }) => x.index)).toEqual([0, 1]);
    expect(r.data.strategy).toBe('first');
    expect(r.data.warnings).toEqual([{ code: 'INVALID_ARGUMENT', message: 'strategy "random" is not one of "first", "last", "even": used "first" instead.' }]);
  });

  test('a wrong type is still INVALID_ARGUMENT (only enums fall back)', async () => {
    const r = await call(c.client, 'search', { handle, query: 'retry', max_results: 'ten' });
    expect(r.isError).toBe(true);
    expect(r.data.error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('the reader set keeps closed argument objects and strict values', () => {
  test('json_read refuses an unknown key and a null', async () => {
    const unknown = await call(c.client, 'json_read', { path: 'events.jsonl', language: 'jsonpath', query: '$[0].id', limit: 1 });
    expect(unknown.isError).toBe(true);
    expect(unknown.data.error.code).toBe('INVALID_ARGUMENT');
    expect(unknown.data.error.message).toContain('limit');
    const nul = await call(c.client, 'json_read', { path: 'events.jsonl', language: 'jsonpath', query: '$[0].id', max_items: null });
    expect(nul.isError).toBe(true);
    expect(nul.data.error.code).toBe('INVALID_ARGUMENT');
  });
});
