/**
 * The `sql` bundle on DuckDB through a real MCP client (in-process, the plugin kit's tool tester) and the built CLI (the DuckDB part of the sql bundle's acceptance list):
 * a group-by equal to `mcpgw aggregate`, every listed escape refused with no absolute path in the message, a runaway
 * cross join CANCELLED at a 1 s deadline, a 100,000-row answer paged at max_rows, exact BIGINT sums past 2^53, the
 * top 10 of 250k distinct keys, SOURCE_CHANGED between pages, syntax errors with their position, and `mcpgw sql`.
 * Every value compared comes from an independent reference: the existing aggregate, or counts built into the data.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { testTools, type ToolTester } from 'mcpgw/plugin-kit';
import { REPO, call } from '../../../test/helpers/mcp';
import { startCliHost, type CliHost } from '../../../test/helpers/cli-host';

let base: string;
let root: string;
let sibling: string;
let outside: string;
// The tools in-process through a real MCP client (the plugin kit's tool tester); the CLI's commands in one CLI host.
let conn: ToolTester;
let short: ToolTester;
let cli: CliHost;
const mcpgw = (args: string[]) => cli.run(args, base, { PATH: process.env.PATH ?? '' });

/** A top-10 distribution over 250,000 distinct keys: k000000..k249999 once each, and k0000NN (NN < 10) 100 + NN times more. */
function keysFile(): string {
  const lines: string[] = [];
  for (let i = 0; i < 250_000; i++) lines.push(`{"key":"k${String(i).padStart(6, '0')}"}`);
  for (let k = 0; k < 10; k++) for (let j = 0; j < 100 + k; j++) lines.push(`{"key":"k${String(k).padStart(6, '0')}"}`);
  return lines.join('\n') + '\n';
}

beforeAll(async () => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-sql-')));
  root = path.join(base, 'data');
  sibling = path.join(base, 'data-sibling'); // shares the root's name as a prefix
  outside = path.join(base, 'elsewhere');
  for (const d of [root, sibling, outside, path.join(root, 'sub')]) fs.mkdirSync(d, { recursive: true });
  fs.copyFileSync(path.join(REPO, 'examples', 'events.jsonl'), path.join(root, 'events.jsonl'));
  fs.writeFileSync(path.join(root, 'big.jsonl'), '{"v":9007199254740993}\n{"v":2}\n');
  fs.writeFileSync(path.join(root, 'keys.jsonl'), keysFile());
  fs.writeFileSync(path.join(root, 'sub', 'a.jsonl'), '{"n":1}\n{"n":2}\n');
  fs.writeFileSync(path.join(root, 'sub', 'b.jsonl'), '{"n":3}\n');
  // 180 columns c0…c179, each BIGINT (past 200 members DuckDB reads a JSON object as one MAP column).
  fs.mkdirSync(path.join(root, 'wide'));
  fs.writeFileSync(path.join(root, 'wide', 'wide.jsonl'), JSON.stringify(Object.fromEntries(Array.from({ length: 180 }, (_, k) => [`c${k}`, k]))) + '\n');
  fs.writeFileSync(path.join(root, 'changing.jsonl'), '{"n":1}\n{"n":2}\n{"n":3}\n');
  fs.writeFileSync(path.join(sibling, 's.jsonl'), '{"secret":1}\n');
  fs.writeFileSync(path.join(outside, 'o.jsonl'), '{"secret":2}\n');
  fs.symlinkSync(path.join(outside, 'o.jsonl'), path.join(root, 'link-file.jsonl'));
  fs.symlinkSync(outside, path.join(root, 'link-dir'));
  const profiles = {
    default: { bundles: ['sql'] },
    short: { bundles: ['sql'], limits: { requestTimeoutMs: 1000 } },
  };
  conn = await testTools('@mcpgw/tools-sql', { root, config: { profiles } });
  short = await testTools('@mcpgw/tools-sql', { root, config: { profiles, profile: 'short' } });
  cli = startCliHost();
}, 120_000);

afterAll(async () => {
  await conn?.close();
  await short?.close();
  await cli?.close();
  fs.rmSync(base, { recursive: true, force: true });
});

/** No absolute path of this machine in a text: not the test folders, not a system folder. */
function expectNoAbsolutePath(text: string): void {
  expect(text).not.toContain(base);
  expect(text).not.toMatch(/(^|[\s"'(\[=])\/(etc|root|home|tmp|usr|var|proc|work)\b/);
}

test('the bundle offers sql_tables and sql_query, only where a profile names it', async () => {
  const names = (await conn.client.listTools()).tools.map((t) => t.name).sort();
  expect(names).toEqual(['sql_query', 'sql_tables']);
  const r = await mcpgw(['list-tools', '--root', root]);
  expect(r.status).toBe(0);
  expect(r.stdout).not.toContain('sql_query');
});

test('a group-by on examples/events.jsonl equals mcpgw aggregate -g status', async () => {
  const ref = await mcpgw(['aggregate', path.join(REPO, 'examples', 'events.jsonl'), '-g', 'status', '--json']);
  expect(ref.status).toBe(0);
  const expected = (JSON.parse(ref.stdout).groups as { key: string; count: number }[]).map((g) => [g.key, g.count]).sort();
  const { data, isError } = await call(conn.client, 'sql_query', { sql: 'SELECT status, count(*) AS n FROM t GROUP BY status ORDER BY status', path: 'events.jsonl' });
  expect(isError).toBe(false);
  expect(data.engine).toBe('duckdb');
  expect(data.columns).toEqual([{ name: 'status', type: 'VARCHAR' }, { name: 'n', type: 'BIGINT' }]);
  expect(data.rows).toEqual(expected);
  expect(data.truncated).toBe(false);
  expect(expected.length).toBe(4);
});

test('the sum of 9007199254740993 and 2 is exactly 9007199254740995 on the wire', async () => {
  const { data, text, isError } = await call(conn.client, 'sql_query', { sql: 'SELECT sum(v) AS s, max(v) AS m FROM t', path: 'big.jsonl' });
  expect(isError).toBe(false);
  expect(text).toContain('"rows":[[9007199254740995,9007199254740993]]');
  expect(data.warnings).toBeUndefined();
});

test('a result that passed through doubles says so', async () => {
  const { data } = await call(conn.client, 'sql_query', { sql: 'SELECT sum(latency_ms) AS total FROM t', path: 'events.jsonl' });
  expect(data.columns).toEqual([{ name: 'total', type: 'DOUBLE' }]);
  expect(data.warnings.join(' ')).toMatch(/total.*doubles/);
});

test('a 100,000-row answer is cut at max_rows with truncated, and the cursor goes on where it stopped', async () => {
  const first = await call(conn.client, 'sql_query', { sql: 'SELECT range AS i FROM range(100000) ORDER BY i', max_rows: 1000 });
  expect(first.isError).toBe(false);
  expect(first.data.row_count).toBe(1000);
  expect(first.data.truncated).toBe(true);
  expect(first.data.rows[0]).toEqual([0]);
  expect(first.data.rows[999]).toEqual([999]);
  const second = await call(conn.client, 'sql_query', { cursor: first.data.next_cursor });
  expect(second.data.rows[0]).toEqual([1000]);
  expect(second.data.row_count).toBe(1000);
  const used = await call(conn.client, 'sql_query', { cursor: first.data.next_cursor });
  expect(used.data.error.code).toBe('NOT_FOUND');
});

test('a page is cut to stay within maxResultBytes, and says so', async () => {
  const { data } = await call(conn.client, 'sql_query', { sql: "SELECT range AS i, repeat('x', 200) AS pad FROM range(1000)", max_rows: 1000 });
  expect(data.truncated).toBe(true);
  expect(data.row_count).toBeGreaterThan(10);
  expect(data.row_count).toBeLessThan(1000);
  expect(data.warnings.join(' ')).toMatch(/maxResultBytes/);
});

test('the top 10 of 250,000 distinct keys', async () => {
  const { data, isError } = await call(conn.client, 'sql_query', {
    sql: 'SELECT key, count(*) AS n FROM t GROUP BY key ORDER BY n DESC, key LIMIT 10', path: 'keys.jsonl',
  });
  expect(isError).toBe(false);
  const expected = Array.from({ length: 10 }, (_, i) => 9 - i).map((k) => [`k${String(k).padStart(6, '0')}`, 101 + k]);
  expect(data.rows).toEqual(expected);
  const distinct = await call(conn.client, 'sql_query', { sql: 'SELECT count(DISTINCT key) FROM t', path: 'keys.jsonl' });
  expect(distinct.data.rows).toEqual([[250_000]]);
});

test('a glob is one view over its files; views name more', async () => {
  const { data } = await call(conn.client, 'sql_query', { sql: 'SELECT sum(n) AS s, count(*) AS c FROM t', path: 'sub/*.jsonl' });
  expect(data.rows).toEqual([[6, 3]]);
  const joined = await call(conn.client, 'sql_query', {
    sql: 'SELECT a.n FROM a JOIN b ON a.n + 2 = b.n', views: { a: 'sub/a.jsonl', b: 'sub/b.jsonl' },
  });
  expect(joined.data.rows).toEqual([[1]]);
});

test('a syntax error is QUERY_SYNTAX_ERROR with the engine\'s position', async () => {
  const { data, isError } = await call(conn.client, 'sql_query', { sql: 'SELECT 1 FROM t WHERE', path: 'events.jsonl' });
  expect(isError).toBe(true);
  expect(data.error.code).toBe('QUERY_SYNTAX_ERROR');
  expect(data.error.location.position).toBe(21); // the end of the 21-character text
  const binder = await call(conn.client, 'sql_query', { sql: 'SELECT nosuch FROM t', path: 'events.jsonl' });
  expect(binder.data.error.code).toBe('QUERY_SYNTAX_ERROR');
  expect(binder.data.error.location.position).toBe(7);
});

describe('escapes are refused with no absolute path in the message', () => {
  const cases: [string, () => Record<string, unknown>, string][] = [
    ['an absolute path outside the root', () => ({ sql: 'SELECT * FROM t', path: path.join(outside, 'o.jsonl') }), 'ACCESS_DENIED'],
    ['../', () => ({ sql: 'SELECT * FROM t', path: '../elsewhere/o.jsonl' }), 'ACCESS_DENIED'],
    ['a symlink out (file)', () => ({ sql: 'SELECT * FROM t', path: 'link-file.jsonl' }), 'ACCESS_DENIED'],
    ['a symlink out (folder)', () => ({ sql: 'SELECT * FROM t', path: 'link-dir/o.jsonl' }), 'ACCESS_DENIED'],
    ['a sibling folder sharing the root\'s name as prefix (path)', () => ({ sql: 'SELECT * FROM t', path: '../data-sibling/s.jsonl' }), 'ACCESS_DENIED'],
    ['a sibling folder sharing the root\'s name as prefix (in SQL)', () => ({ sql: `SELECT * FROM read_json_auto('${sibling}/s.jsonl')`, path: 'events.jsonl' }), 'ACCESS_DENIED'],
    ['an absolute path in SQL', () => ({ sql: `SELECT * FROM '${outside}/o.jsonl'` }), 'ACCESS_DENIED'],
    ['another file of the root named in SQL', () => ({ sql: `SELECT * FROM '${root}/big.jsonl'`, path: 'events.jsonl' }), 'ACCESS_DENIED'],
    ['read_text of a system file', () => ({ sql: "SELECT * FROM read_text('/etc/passwd')" }), 'ACCESS_DENIED'],
    ['COPY inside the root', () => ({ sql: `COPY (SELECT 1) TO '${root}/out.csv'`, path: 'events.jsonl' }), 'ACCESS_DENIED'],
    ['COPY of the view inside the root', () => ({ sql: `COPY t TO '${root}/out2.csv'`, path: 'events.jsonl' }), 'ACCESS_DENIED'],
    ['ATTACH inside the root', () => ({ sql: `ATTACH '${root}/x.db' AS x` }), 'ACCESS_DENIED'],
    ['EXPORT inside the root', () => ({ sql: `EXPORT DATABASE '${root}/exported'`, path: 'events.jsonl' }), 'ACCESS_DENIED'],
    ['two statements', () => ({ sql: 'SELECT 1; SELECT 2' }), 'INVALID_ARGUMENT'],
    ['a SELECT then a SET', () => ({ sql: 'SELECT 1; SET enable_external_access=true' }), 'INVALID_ARGUMENT'],
    ['SET of a locked setting', () => ({ sql: 'SET enable_external_access=true' }), 'ACCESS_DENIED'],
    ['SET lock_configuration', () => ({ sql: 'SET lock_configuration=false' }), 'ACCESS_DENIED'],
    ['RESET of allowed_paths', () => ({ sql: 'RESET allowed_paths' }), 'ACCESS_DENIED'],
    ['a setting changed inside a SELECT', () => ({ sql: "SELECT * FROM (SELECT set_config('enable_external_access', 'true'))" }), 'QUERY_SYNTAX_ERROR'],
    ['INSTALL', () => ({ sql: 'INSTALL httpfs' }), 'ACCESS_DENIED'],
    ['LOAD', () => ({ sql: 'LOAD httpfs' }), 'ACCESS_DENIED'],
    ['a URL read', () => ({ sql: "SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')" }), 'ACCESS_DENIED'],
    ['an https URL read', () => ({ sql: "SELECT * FROM 'https://example.com/data.parquet'" }), 'ACCESS_DENIED'],
    ['a glob of the file system in SQL', () => ({ sql: `SELECT * FROM glob('${base}/*')` }), 'ACCESS_DENIED'],
  ];
  test.each(cases)('%s', async (_name, args, code) => {
    const { data, text, isError } = await call(conn.client, 'sql_query', args());
    expect(isError).toBe(true);
    expect(data.error.code).toBe(code);
    expectNoAbsolutePath(text);
  });

  test('nothing was written inside the root', () => {
    expect(fs.readdirSync(root).sort()).toEqual(['big.jsonl', 'changing.jsonl', 'events.jsonl', 'keys.jsonl', 'link-dir', 'link-file.jsonl', 'sub', 'wide']);
  });

  test('settings listings and view definitions name no absolute path', async () => {
    const { data, text } = await call(conn.client, 'sql_query', {
      sql: "SELECT name, value FROM duckdb_settings() WHERE name IN ('allowed_paths', 'allowed_directories') ORDER BY name", path: 'events.jsonl',
    });
    expect(data.rows).toEqual([['allowed_directories', '[]'], ['allowed_paths', '[events.jsonl]']]);
    expectNoAbsolutePath(text);
    const views = await call(conn.client, 'sql_query', { sql: 'SELECT sql FROM duckdb_views() WHERE NOT internal', path: 'events.jsonl' });
    expect(views.data.rows[0][0]).toContain("'events.jsonl'");
    expectNoAbsolutePath(views.text);
  });
});

test('a runaway cross join is CANCELLED at a 1 s deadline', async () => {
  const started = Date.now();
  const { data, isError } = await call(short.client, 'sql_query', {
    sql: 'SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b', // 10^12 pairs, the right side 8 MB
  });
  const took = Date.now() - started;
  expect(isError).toBe(true);
  expect(data.error.code).toBe('CANCELLED');
  expect(data.error.limit).toEqual({ name: 'requestTimeoutMs', limit: 1000 });
  // The time is logged, not asserted (the machine is shared): the query would run for hours without the interrupt.
  console.log(`cross join stopped ${took} ms after the call (deadline 1000 ms)`);
  const after = await call(short.client, 'sql_query', { sql: 'SELECT 42' });
  expect(after.data.rows).toEqual([[42]]);
});

test('a file rewritten between pages is SOURCE_CHANGED', async () => {
  const first = await call(conn.client, 'sql_query', { sql: 'SELECT n FROM t', path: 'changing.jsonl', max_rows: 1 });
  expect(first.data.rows).toEqual([[1]]);
  fs.writeFileSync(path.join(root, 'changing.jsonl'), '{"n":7}\n{"n":8}\n{"n":9}\n{"n":10}\n');
  const next = await call(conn.client, 'sql_query', { cursor: first.data.next_cursor });
  expect(next.data.error.code).toBe('SOURCE_CHANGED');
});

test('sql_tables names files relative to the root, with columns and types', async () => {
  const { data, text } = await call(conn.client, 'sql_tables', { glob: 'events.jsonl' });
  expect(data.tables).toHaveLength(1);
  expect(data.tables[0].name).toBe('events.jsonl');
  expect(data.tables[0].columns).toEqual(expect.arrayContaining([{ name: 'status', type: 'VARCHAR' }, { name: 'id', type: 'BIGINT' }]));
  expectNoAbsolutePath(text);
});

test('sql_tables cuts a wide table at max_columns, with column_count, and says so', async () => {
  const { data } = await call(conn.client, 'sql_tables', { glob: 'wide/wide.jsonl' });
  expect(data.tables).toHaveLength(1);
  expect(data.tables[0].column_count).toBe(180);
  expect(data.tables[0].columns).toEqual(Array.from({ length: 100 }, (_, k) => ({ name: `c${k}`, type: 'BIGINT' })));
  expect(data.warnings).toEqual([expect.stringContaining('1 table listed only the first 100 columns')]);
  expect(data.has_more).toBe(false);
  const all = (await call(conn.client, 'sql_tables', { glob: 'wide/wide.jsonl', max_columns: 1000 })).data;
  expect(all.tables[0].columns).toHaveLength(180);
  expect(all.tables[0].column_count).toBeUndefined();
});

test('sql_tables pages with offset and next_offset: every file once, in order', async () => {
  const seen: string[] = [];
  let offset = 0;
  for (let page = 0; page < 10; page++) {
    const { data } = await call(conn.client, 'sql_tables', { glob: 'sub/*.jsonl', max_results: 1, offset });
    seen.push(...data.tables.map((t: any) => t.name));
    if (!data.has_more) { expect(data.next_offset).toBeUndefined(); break; }
    expect(data.next_offset).toBe(offset + 1);
    offset = data.next_offset;
  }
  expect(seen.sort()).toEqual(['sub/a.jsonl', 'sub/b.jsonl']);
});

test('mcpgw sql FILE "SQL" prints one JSON object per row', async () => {
  const r = await mcpgw(['sql', path.join(root, 'big.jsonl'), 'SELECT v, v + 2 AS w FROM t ORDER BY v DESC']);
  expect(r.status).toBe(0);
  expect(r.stdout).toBe('{"v":9007199254740993,"w":9007199254740995}\n{"v":2,"w":4}\n');
  const bad = await mcpgw(['sql', path.join(root, 'big.jsonl'), "SELECT * FROM read_text('/etc/passwd')"]);
  expect(bad.status).toBe(2); // a file outside the root: a fault of the command line, as for mcpgw query
  expect(bad.stderr).toMatch(/ACCESS_DENIED/);
  expectNoAbsolutePath(bad.stderr);
});

test('mcpgw sql --root DIR FILE: FILE is a path under DIR, and a FILE outside DIR is ACCESS_DENIED', async () => {
  const r = await mcpgw(['sql', '--root', root, 'sub/a.jsonl', 'SELECT sum(n) AS s, count(*) AS c FROM t']);
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe('{"s":3,"c":2}\n');
  expect(r.status).toBe(0);
  fs.writeFileSync(path.join(sibling, 's.jsonl'), '{"n":40}\n');
  const out = await mcpgw(['sql', `--root=${root}`, path.join(sibling, 's.jsonl'), 'SELECT n FROM t']);
  expect(out.status).toBe(2);
  expect(out.stdout).toBe('');
  expect(out.stderr).toMatch(/ACCESS_DENIED/);
  // without --root the file's own folder is the sandbox: the same file is read
  const own = await mcpgw(['sql', path.join(sibling, 's.jsonl'), 'SELECT n FROM t']);
  expect(own.stdout).toBe('{"n":40}\n');
});
