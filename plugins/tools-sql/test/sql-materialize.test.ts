/**
 * Materialised tables of the `sql` bundle through a real MCP client: a configured table is loaded once into a DuckDB
 * file in the cache folder, later statements read that copy, a rewritten file makes a new copy (the old one removed),
 * a copy over the folder's bound is not kept, and no answer names the cache folder. Counts come from the file itself.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO, call, connect, type Connected } from '../../../test/helpers/mcp';

let base: string;
let cache: string;
let conn: Connected;
let capped: Connected;

/** status → count, counted from the file's lines (the reference). */
function counts(file: string): [string, number][] {
  const m = new Map<string, number>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const s = (JSON.parse(line) as { status: string }).status;
    m.set(s, (m.get(s) ?? 0) + 1);
  }
  return [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1));
}
const copies = () => (fs.existsSync(cache) ? fs.readdirSync(cache).filter((n) => n.endsWith('.duckdb')) : []);
const SQL = 'SELECT status, count(*) AS n FROM ev GROUP BY status ORDER BY status';

beforeAll(async () => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-sqlmat-')));
  cache = path.join(base, 'cache');
  fs.mkdirSync(path.join(base, 'data'));
  fs.copyFileSync(path.join(REPO, 'examples', 'events.jsonl'), path.join(base, 'data', 'events.jsonl'));
  const sql = { tables: { ev: 'events.jsonl' }, materialize: ['ev'], materializeDir: cache };
  fs.writeFileSync(path.join(base, 'a.json'), JSON.stringify({ root: './data', sql, profiles: { default: { bundles: ['sql'] } } }));
  fs.writeFileSync(path.join(base, 'b.json'), JSON.stringify({ root: './data', sql: { ...sql, materializeDir: path.join(base, 'small'), materializeMaxBytes: 1000 }, profiles: { default: { bundles: ['sql'] } } }));
  conn = await connect(['--config', path.join(base, 'a.json')]);
  capped = await connect(['--config', path.join(base, 'b.json')]);
});
afterAll(async () => {
  await conn?.close();
  await capped?.close();
  fs.rmSync(base, { recursive: true, force: true });
});

test('a configured table is loaded once and later statements read the copy', async () => {
  const expected = counts(path.join(base, 'data', 'events.jsonl'));
  const first = await call(conn.client, 'sql_query', { sql: SQL });
  if (first.isError) console.log(first.text);
  expect(first.isError).toBe(false);
  expect(first.data.rows).toEqual(expected);
  expect(first.data.materialized).toEqual(['ev']);
  const [copy] = copies();
  expect(copies()).toHaveLength(1);
  const again = await call(conn.client, 'sql_query', { sql: SQL });
  expect(again.data.rows).toEqual(expected);
  expect(again.data.materialized).toEqual(['ev']);
  expect(copies()).toEqual([copy]);
});

test('a file that changed is loaded again and its old copy removed', async () => {
  const before = copies();
  fs.appendFileSync(path.join(base, 'data', 'events.jsonl'), '{"id":3001,"status":"brand-new"}\n');
  const expected = counts(path.join(base, 'data', 'events.jsonl'));
  const { data } = await call(conn.client, 'sql_query', { sql: SQL });
  expect(data.rows).toEqual(expected);
  expect(data.rows).toContainEqual(['brand-new', 1]);
  expect(copies()).toHaveLength(1);
  expect(copies()).not.toEqual(before);
});

test('a copy larger than the folder\'s bound is not kept; the answer is the same', async () => {
  const expected = counts(path.join(base, 'data', 'events.jsonl'));
  const { data } = await call(capped.client, 'sql_query', { sql: SQL });
  expect(data.rows).toEqual(expected);
  expect(data.materialized).toBeUndefined();
  expect(fs.readdirSync(path.join(base, 'small')).filter((n) => n.endsWith('.duckdb'))).toEqual([]);
});

test('no answer names the cache folder or the root', async () => {
  const { text } = await call(conn.client, 'sql_query', { sql: "SELECT path FROM duckdb_databases() UNION ALL SELECT value FROM duckdb_settings() WHERE name = 'allowed_paths'" });
  expect(text).not.toContain(base);
  const data = await call(conn.client, 'sql_query', { sql: "SELECT '/api/users?id=1' AS p, '/etc/hosts' AS q" });
  expect(data.data.rows).toEqual([['/api/users?id=1', '/etc/hosts']]); // the data's own text is left as it is
});
