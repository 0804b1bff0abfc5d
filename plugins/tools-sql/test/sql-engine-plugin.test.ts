/**
 * The engine behind `sql` is an extension point: a plugin that provides a `sql-engine` item answering for a dataset
 * (test/fixtures/plugins/sql-memory.cjs, three rows) is used by sql_query and listed by sql_tables beside the built-in
 * DuckDB's files; sql.filesEngine naming an engine nobody provides stops start-up (exit 2) naming it.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, CLI, connect, NODE, REPO, type Connected } from '../../../test/helpers/mcp';

const PLUGIN = path.join(REPO, 'test', 'fixtures', 'plugins', 'sql-memory.cjs');
let dir: string;
let c: Connected;
beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-sql-engine-')));
  fs.mkdirSync(path.join(dir, 'data'));
  fs.writeFileSync(path.join(dir, 'data', 'a.jsonl'), '{"n":1}\n');
  fs.writeFileSync(path.join(dir, 'mcpgw.json'), JSON.stringify({ root: './data', plugins: [PLUGIN], profiles: { default: { bundles: ['sql'] } } }));
  c = await connect(['--config', path.join(dir, 'mcpgw.json')], { cwd: dir });
});
afterAll(async () => {
  await c?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('sql_query {dataset} answers through the plugin\'s engine; files still through DuckDB', async () => {
  const r = await call(c.client, 'sql_query', { sql: 'SELECT n FROM t', dataset: 'mem' });
  expect(r.isError).toBe(false);
  expect(r.data).toMatchObject({ engine: 'memory', columns: [{ name: 'n', type: 'BIGINT' }], rows: [[1], [2], [3]], truncated: false });
  const bad = await call(c.client, 'sql_query', { sql: 'SELECT 1', dataset: 'mem' });
  expect(bad.data.error).toMatchObject({ code: 'QUERY_SYNTAX_ERROR' });
  const unknown = await call(c.client, 'sql_query', { sql: 'SELECT 1', dataset: 'nope' });
  expect(unknown.data.error).toMatchObject({ code: 'NOT_FOUND', hint: 'Configured datasets: mem.' });
  const files = await call(c.client, 'sql_query', { sql: 'SELECT n FROM t', path: 'a.jsonl' });
  expect(files.data).toMatchObject({ engine: 'duckdb', rows: [[1]] });
});

test('sql_tables lists the plugin\'s dataset, then the files', async () => {
  const r = await call(c.client, 'sql_tables', {});
  expect(r.data.tables.map((t: any) => [t.name, t.kind, t.engine])).toEqual([['mem', 'dataset', 'memory'], ['a.jsonl', 'file', 'duckdb']]);
});

test('sql.filesEngine naming no provided engine: exit 2 naming it', () => {
  fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ root: './data', sql: { filesEngine: 'trino' }, profiles: { default: { bundles: ['sql'] } } }));
  const r = spawnSync(NODE, [CLI, 'check', '--config', path.join(dir, 'bad.json')], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('sql.filesEngine: no loaded plugin provides a SQL engine named "trino". Engines: duckdb.');
});
