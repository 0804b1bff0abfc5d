/**
 * JSON-seq records malformed by their framing (RFC 7464 §2.1: text before the first RS; §2.4: a top-level number not
 * followed by whitespace may be truncated) are skipped and reported by every tool, as open validation flags them: the
 * built CLI over stdio through a real MCP client (explorer and reader tool sets) and `mcpgw query` / `mcpgw aggregate`.
 * Expected values come from an independent reading of the files (test/helpers/seq-expected.ts).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, CLI, connect, NODE, type Connected } from '../../../test/helpers/mcp';
import { makeReaderDir, type ReaderDir } from '../../../test/helpers/reader-fixture';
import { readSequence, SEQ_FILES, type SeqRecord } from '../../../test/helpers/seq-expected';

let root: string;
let explorer: Connected;
let readerDir: ReaderDir;
let reader: Connected;
const files = Object.fromEntries(Object.entries(SEQ_FILES).map(([n, t]) => [n, Buffer.from(t, 'latin1')]));

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-seqframing-'));
  for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(root, name), bytes);
  explorer = await connect(['--root', root]);
  readerDir = makeReaderDir(files);
  reader = await connect(['--config', readerDir.config]);
});
afterAll(async () => {
  await explorer.close();
  await reader.close();
  readerDir.remove();
  fs.rmSync(root, { recursive: true, force: true });
});

const objectA = (r: SeqRecord) => (r.value !== null && typeof r.value === 'object' && !Array.isArray(r.value) ? (r.value as Record<string, unknown>).a : undefined);

describe.each(Object.keys(SEQ_FILES))('%s', (name) => {
  const records = readSequence(files[name]!);
  const good = records.filter((r) => !r.malformed);
  const bad = records.filter((r) => r.malformed).map((r) => r.index);
  const withA = good.filter((r) => objectA(r) !== undefined);
  /** The reader opens a file only in the format its content shows: `pre.json-seq` (a JSON text, a newline, then RS) reads as JSON Lines. */
  const byContent = name !== 'pre.json-seq';
  let handle: string;
  // `pre.json-seq` starts with `{`: detected by content as JSON Lines, so the format is named (as a user would)
  beforeAll(async () => {
    const opened = await call(explorer.client, 'open_file', { path: name, format: 'json-seq' });
    expect(opened.isError).toBe(false);
    handle = opened.data.handle;
  });

  test('the expected reading has malformed records to skip (the files test what they mean to)', () => {
    expect(bad.length).toBeGreaterThan(0);
    expect(good.length).toBeGreaterThan(0);
  });

  test('open_file and json_open validation:"full" flag exactly these records; get_record gives SYNTAX_ERROR', async () => {
    const opened = await call(explorer.client, 'open_file', { path: name, format: 'json-seq' });
    expect(opened.data).toMatchObject({ record_count: records.length, validation: { malformed_records: bad.length } });
    const full = await call(reader.client, 'json_open', { path: name, format: 'json-seq', validation: 'full' });
    if (!byContent) {
      // the reader opens a file only in the format its content shows
      expect(full.text).toContain('FORMAT_MISMATCH');
    } else expect(full.data.validation).toMatchObject({ malformed_records: bad.length, complete: true });
    for (const i of bad) {
      const r = await call(explorer.client, 'get_record', { handle, index: i });
      expect(r.isError).toBe(true);
      expect(r.text).toContain('SYNTAX_ERROR');
    }
  });

  test('aggregate group_by a: the well-formed records only, each malformed one in the warnings', async () => {
    const r = await call(explorer.client, 'aggregate', { handle, group_by: 'a', top: 100 });
    expect(r.isError).toBe(false);
    expect(r.data.records_matched).toBe(good.length);
    const expected = new Map<string, number>();
    for (const g of good) {
      const k = objectA(g) === undefined ? 'missing' : JSON.stringify(objectA(g));
      expected.set(k, (expected.get(k) ?? 0) + 1);
    }
    const total = [...expected.values()].reduce((a, b) => a + b, 0);
    expect(r.data.groups.reduce((n: number, g: { count: number }) => n + g.count, 0)).toBe(total);
    const missing = r.data.groups.filter((g: { key: unknown[] }) => JSON.stringify(g).includes('missing'));
    expect(missing.reduce((n: number, g: { count: number }) => n + g.count, 0)).toBe(expected.get('missing') ?? 0);
    const text = JSON.stringify(r.data.warnings ?? []);
    for (const i of bad.slice(0, 5)) expect(text).toContain(`Record ${i} `);
  });

  test('search: jsonpath, predicate and count-only list and count the well-formed records only', async () => {
    const all = await call(explorer.client, 'search', { handle, query: '$', max_results: 50 });
    expect(all.data.matches.map((m: { record_index: number }) => m.record_index)).toEqual(good.map((g) => g.index));
    expect(all.data.total_matches).toBe(good.length);
    const text = JSON.stringify(all.data.warnings ?? []);
    for (const i of bad.slice(0, 5)) expect(text).toContain(`Record ${i} `);
    const counted = await call(explorer.client, 'search', { handle, query: '$', max_results: 0 });
    expect(counted.data.total_matches).toBe(good.length);
    const predicate = await call(explorer.client, 'search', { handle, query: '$.a >= 0', max_results: 50 });
    expect(predicate.data.matches.map((m: { record_index: number }) => m.record_index)).toEqual(withA.map((g) => g.index));
    const predicateCount = await call(explorer.client, 'search', { handle, query: '$.a >= 0', max_results: 0 });
    expect(predicateCount.data.total_matches).toBe(withA.length);
  });

  test('text search: a malformed record never matches, even when its text holds the query', async () => {
    for (const i of bad) {
      const raw = files[name]!.toString('latin1');
      // a literal of the malformed record's own text: its digits or letters
      const m = /[0-9]+|[a-z]+/.exec(recordText(raw, records, i));
      if (!m) continue;
      const hits = await call(explorer.client, 'search', { handle, query: m[0], max_results: 50 });
      const holds = good.filter((g) => JSON.stringify(g.value).includes(m[0])).map((g) => g.index);
      expect(hits.data.matches.map((x: { record_index: number }) => x.record_index).filter((k: number) => bad.includes(k))).toEqual([]);
      expect(hits.data.matches.every((x: { record_index: number }) => holds.includes(x.record_index))).toBe(true);
      const counted = await call(explorer.client, 'search', { handle, query: m[0], max_results: 0 });
      expect(counted.data.total_matches).toBe(hits.data.total_matches);
    }
  });

  test('sample_records leaves the malformed records out', async () => {
    const r = await call(explorer.client, 'sample_records', { handle, count: 50 });
    const indexes = r.data.records.map((x: { record_index?: number; index?: number }) => x.record_index ?? x.index);
    expect(indexes.filter((k: number) => bad.includes(k))).toEqual([]);
  });

  test('json_read: $[*] items and count, and a malformed record by index or pointer is an error', async () => {
    if (!byContent) return; // the reader refuses it (FORMAT_MISMATCH, above)
    const items = await call(reader.client, 'json_read', { path: name, format: 'json-seq', language: 'jsonpath', query: '$[*]', max_items: 50 });
    expect(items.data.items).toEqual(good.map((g) => ({ path: '/' + g.index, value: g.value })));
    expect(items.data.stats).toEqual({ returned: good.length, skipped: bad.length });
    const count = await call(reader.client, 'json_read', { path: name, format: 'json-seq', language: 'jsonpath', query: '$[*]', count: true });
    expect(count.data.count).toBe(good.length);
    for (const i of bad) {
      const byIndex = await call(reader.client, 'json_read', { path: name, format: 'json-seq', language: 'jsonpath', query: `$[${i}]` });
      expect(byIndex.data?.items ?? []).toEqual([]);
      expect(byIndex.text).toContain('SYNTAX_ERROR');
      const byPointer = await call(reader.client, 'json_read', { path: name, format: 'json-seq', language: 'pointer', query: `/${i}` });
      expect(byPointer.data?.items ?? []).toEqual([]);
      expect(byPointer.text).toContain('SYNTAX_ERROR');
    }
  });

  test('the CLI: mcpgw query prints the well-formed records only, mcpgw aggregate counts them', () => {
    const out = execFileSync(NODE, [CLI, 'query', '--format', 'json-seq', path.join(root, name), '$[*]'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const lines = out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(lines).toEqual(good.map((g) => ({ path: '/' + g.index, value: g.value })));
    const agg = JSON.parse(execFileSync(NODE, [CLI, 'aggregate', '--format', 'json-seq', path.join(root, name), '--group-by', 'a', '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(agg.records_matched).toBe(good.length);
  });
});

/** The text of record i between its framing bytes (the test's own split of the file). */
function recordText(raw: string, records: SeqRecord[], i: number): string {
  const parts: string[] = [];
  let at = raw.indexOf('\x1e');
  const head = raw.slice(0, at === -1 ? raw.length : at);
  if (head.trim()) parts.push(head);
  while (at !== -1) {
    const next = raw.indexOf('\x1e', at + 1);
    const body = raw.slice(at + 1, next === -1 ? raw.length : next);
    if (body.trim()) parts.push(body);
    at = next;
  }
  expect(parts).toHaveLength(records.length);
  return parts[i]!;
}
