/**
 * Third-party plugins, proven as a user outside this repository would meet them:
 * `npm pack` mcpgw (its built-ins bundled inside) and the fixture plugin packages in
 * test/fixtures/third-party, `npm install` the tarballs into a temp project next to a `.mcpgwrc.yaml`
 * naming the plugins, type-check a TypeScript plugin against the installed package's
 * `mcpgw/plugin-api` typings, then start the installed `mcpgw serve` and use every plugin through a
 * real MCP client.
 *
 * - mcpgw-format-csv (examples/plugins/csv): a format on the indexing kit, CommonJS, csv-parse from the registry, plugin options.
 * - mcpgw-query-jq: a query language, ESM only, jq as WebAssembly inside the jq-web package.
 * - @acme/mcpgw-tools-peek: a tool bundle in TypeScript (compiled here against the installed typings)
 *   that uses the registries, the sandboxed files, limits, progress and cancellation.
 *
 * One pack and one install of the three in beforeAll (the peek plugin is compiled against that
 * install, packed and installed second). Needs a build (`npm test` runs `tsc -b` first) and the npm
 * registry (or npm's cache) for the packages' registry dependencies.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, NODE, REPO, type Connected } from '../helpers/mcp';
import { INSTALL, ok, pack as packInto, run, stage as stageAt } from '../helpers/packages';

const FIXTURES = path.join(REPO, 'test', 'fixtures', 'third-party');
const TSC = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
const TYPES_NODE = JSON.parse(fs.readFileSync(path.join(REPO, 'node_modules', '@types', 'node', 'package.json'), 'utf8')).version as string;

let tmp: string;
let app: string;
let bin: string;

/** `npm pack` of `dir` into tmp/tarballs; returns the tarball's path. */
const pack = (dir: string) => packInto(dir, path.join(tmp, 'tarballs'));

/** Copies a fixture package outside the repository (so npm sees no workspace around it). */
const stage = (name: string) => stageAt(path.join(FIXTURES, name), path.join(tmp, 'src', name));

function mcpgw(args: string[]) {
  const r = spawnSync(NODE, [bin, ...args], { cwd: app, env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '', HOME: app }, encoding: 'utf8', timeout: 30_000 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  if (!fs.existsSync(path.join(REPO, 'dist', 'cli', 'main.js'))) throw new Error('Build first: npx tsc -b (npm test does it).');
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-3p-')));
  fs.mkdirSync(path.join(tmp, 'tarballs'));
  app = path.join(tmp, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'analytics-app', version: '1.0.0', private: true }, null, 2));

  const mcpgwTgz = pack(REPO);
  const csvTgz = pack(stageAt(path.join(REPO, 'examples', 'plugins', 'csv'), path.join(tmp, 'src', 'csv')));
  const jqTgz = pack(stage('mcpgw-query-jq'));
  const install = INSTALL;
  ok('npm', [...install, mcpgwTgz, csvTgz, jqTgz, `@types/node@${TYPES_NODE}`], app);

  // The TypeScript plugin is compiled against the typings of the mcpgw just installed (resolved by
  // walking up to app/node_modules/mcpgw and its "exports"["./plugin-api"].types), then packed.
  const peekSrc = path.join(app, 'peek-src');
  fs.cpSync(path.join(FIXTURES, 'mcpgw-tools-peek'), peekSrc, { recursive: true, filter: (p) => !p.includes(`${path.sep}dist`) });
  ok(NODE, [TSC, '-p', peekSrc], peekSrc);
  ok('npm', [...install, pack(peekSrc)], app);

  fs.mkdirSync(path.join(app, 'data'));
  for (const f of ['people.csv', 'events.jsonl']) fs.copyFileSync(path.join(FIXTURES, 'data', f), path.join(app, 'data', f));
  fs.writeFileSync(path.join(tmp, 'outside.jsonl'), '{"secret":true}\n');
  fs.writeFileSync(
    path.join(app, '.mcpgwrc.yaml'),
    [
      'root: ./data',
      'plugins:',
      '  - ["mcpgw-format-csv", { cast: true }]',
      '  - mcpgw-query-jq',
      '  - ["@acme/mcpgw-tools-peek", { maxResults: 5 }]',
      '',
    ].join('\n'),
  );
  bin = path.join(app, 'node_modules', 'mcpgw', 'bin', 'mcpgw.js');
}, 240_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the packed packages', () => {
  test('mcpgw installs with its built-in plugins inside and exposes mcpgw/plugin-api (typings) and mcpgw/plugin-kit', () => {
    const pkg = path.join(app, 'node_modules', 'mcpgw');
    const manifest = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8'));
    expect(manifest.exports['./plugin-api']).toEqual({ types: './dist/plugin-api/index.d.ts', default: './dist/plugin-api/index.js' });
    expect(manifest.exports['./plugin-kit']).toEqual({ types: './dist/plugin-kit/index.d.ts', default: './dist/plugin-kit/index.js' });
    expect(fs.existsSync(path.join(pkg, 'dist', 'plugin-api', 'index.d.ts'))).toBe(true);
    expect(fs.existsSync(path.join(pkg, 'node_modules', '@mcpgw', 'tools-explore', 'dist', 'index.js'))).toBe(true);
    expect(fs.existsSync(path.join(pkg, 'src'))).toBe(false);
    // the runtime entry resolves for a third party, through "exports"
    const api = spawnSync(NODE, ['-e', 'const a = require("mcpgw/plugin-api"), k = require("mcpgw/plugin-kit"); process.stdout.write(Object.keys(a).length + " " + k.PLUGIN_API_VERSION + " " + typeof k.definePlugin)'], { cwd: app, encoding: 'utf8' });
    expect(api.stdout).toBe('0 3.3.0 function');
    // the peek plugin was compiled against those typings
    expect(fs.readFileSync(path.join(app, 'node_modules', '@acme', 'mcpgw-tools-peek', 'dist', 'index.d.ts'), 'utf8')).toContain('mcpgw/plugin-api');
  });

  test('the typings are in force: a plugin that breaks the contract does not type-check', () => {
    const bad = path.join(app, 'bad-src');
    fs.mkdirSync(path.join(bad, 'src'), { recursive: true });
    fs.copyFileSync(path.join(FIXTURES, 'mcpgw-tools-peek', 'tsconfig.json'), path.join(bad, 'tsconfig.json'));
    fs.writeFileSync(
      path.join(bad, 'src', 'index.ts'),
      [
        "import { z } from 'zod';",
        "import { definePlugin } from 'mcpgw/plugin-kit';",
        'export default definePlugin({',
        "  name: 'bad', version: '1.0.0', apiVersion: '^3.0.0',",
        '  options: z.strictObject({ n: z.number() }),',
        "  register(registry, options) { registry.registerFormat({ name: 'x' }); const s: string = options.n; return void s; },",
        '});',
        '',
      ].join('\n'),
    );
    const r = run(NODE, [TSC, '-p', bad, '--noEmit'], bad);
    expect(r.status).not.toBe(0);
    expect(r.stdout).toMatch(/TS2345|TS2739|TS2740/); // { name: 'x' } is not a Format
    expect(r.stdout).toMatch(/extensions|detect|open/);
    expect(r.stdout).toMatch(/TS2322: Type 'number' is not assignable to type 'string'/); // options inferred from the schema
    expect(r.stdout).not.toContain('TS2307'); // 'mcpgw/plugin-kit' and 'zod' resolved
  });

  test('older TypeScript resolution (node10, which ignores "exports") finds the typings through typesVersions', () => {
    const peekSrc = path.join(app, 'peek-src');
    const r = run(NODE, [TSC, '-p', peekSrc, '--noEmit', '--module', 'commonjs', '--moduleResolution', 'node10'], peekSrc);
    expect(r.stdout).toBe('');
    expect(r.status).toBe(0);
  });

  test('mcpgw plugins (installed bin) lists the built-ins and the three packages with what each registered', () => {
    const r = mcpgw(['plugins', '--json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const list = JSON.parse(r.stdout) as { name: string; version: string; source: string; formats: string[]; queryLanguages: string[]; bundles: string[]; tools: string[] }[];
    expect(list.filter((p) => p.source === 'builtin').map((p) => p.name)).toEqual(expect.arrayContaining(['@mcpgw/format-jsonl', '@mcpgw/query-jsonpath', '@mcpgw/tools-explore']));
    const third = list.filter((p) => p.source !== 'builtin');
    expect(third).toEqual([
      { name: 'mcpgw-format-csv', version: '1.0.0', apiVersion: '^3.1.0', source: 'mcpgw-format-csv', formats: ['csv'], queryLanguages: [], bundles: [], tools: [] },
      { name: 'mcpgw-query-jq', version: '0.3.0', apiVersion: '^3.0.0', source: 'mcpgw-query-jq', formats: [], queryLanguages: ['jq'], bundles: [], tools: [] },
      { name: '@acme/mcpgw-tools-peek', version: '2.0.0', apiVersion: '^3.0.0', source: '@acme/mcpgw-tools-peek', formats: [], queryLanguages: [], bundles: ['peek'], tools: ['peek_query', 'peek_capabilities'] },
    ]);
  });

  test('bad options for an installed plugin: exit 2 naming the plugin and the key', () => {
    const cfg = path.join(app, 'bad-options.yaml');
    fs.writeFileSync(cfg, 'root: ./data\nplugins:\n  - ["mcpgw-format-csv", { delimiter: ";;", cast: "yes" }]\n');
    const r = mcpgw(['check', '--config', cfg]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('Plugin mcpgw-format-csv@1.0.0: invalid options');
    expect(r.stderr).toMatch(/delimiter: .*1 character/);
    expect(r.stderr).toMatch(/cast: .*boolean/);
  });
});

describe('the installed mcpgw serve, through a real MCP client', () => {
  let conn: Connected;
  beforeAll(async () => {
    conn = await connect([], { cwd: app, cli: bin });
  });
  afterAll(async () => {
    await conn?.close();
  });

  test('tools/list offers the built-in explorer tools and the peek bundle', async () => {
    const { tools } = await conn.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['open_file', 'search', 'get_record', 'peek_query', 'peek_capabilities']));
    const peek = tools.find((t) => t.name === 'peek_query')!;
    expect(peek.annotations?.readOnlyHint).toBe(true);
    expect(Object.keys(peek.inputSchema.properties ?? {})).toEqual(['path', 'query', 'language', 'max_results']);
  });

  test('peek_capabilities sees the CSV format and the jq language in the registries', async () => {
    const r = await call(conn.client, 'peek_capabilities', {});
    expect(r.isError).toBe(false);
    expect(r.data.formats).toEqual(expect.arrayContaining([{ name: 'csv', extensions: ['.csv'] }, { name: 'jsonl', extensions: ['.jsonl', '.ndjson'] }]));
    expect(r.data.query_languages).toContain('jq');
  });

  test('CSV (the example format plugin, CommonJS): open_file, get_record and search work on a .csv with quotes, commas and newlines in fields', async () => {
    const opened = await call(conn.client, 'open_file', { path: 'people.csv' });
    expect(opened.isError).toBe(false);
    expect(opened.data).toMatchObject({ path: 'people.csv', file_type: 'csv', format: 'csv', record_count: 3 });
    const handle = opened.data.handle as string;

    const rec = await call(conn.client, 'get_record', { handle, index: 1 });
    expect(rec.isError).toBe(false);
    expect(JSON.parse(rec.data.record)).toEqual({ id: 2, name: 'Grace "Amazing" Hopper', note: 'Wrote the first compiler\nand found a moth', score: 12345678901234567890 });
    // cast: true keeps the 20-digit score exact in the record text, key order as in the header
    expect(rec.data.record).toContain('12345678901234567890');
    expect(Object.keys(JSON.parse(rec.data.record))).toEqual(['id', 'name', 'note', 'score']);

    const third = await call(conn.client, 'get_record', { handle, index: 2 });
    expect(JSON.parse(third.data.record)).toEqual({ id: 3, name: 'Zoë Ødegaard', note: 'plain', score: 7 });

    const text = await call(conn.client, 'search', { handle, query: 'first of her kind' });
    expect(text.isError).toBe(false);
    expect(text.data.matches.map((m: { record_index: number }) => m.record_index)).toEqual([0]);
    expect(text.data.matches[0].match_path).toBe('/note');

    const caps = await call(conn.client, 'peek_capabilities', {});
    const jp = await call(conn.client, 'search', { handle, query: '$[?@ > 50]' });
    if (caps.data.query_languages.includes('jsonpath')) {
      expect(jp.isError).toBe(false);
      expect(jp.data.total_matches).toBe(2);
      expect(jp.data.matches.map((m: { record_index: number; match_path: string }) => [m.record_index, m.match_path])).toEqual([[0, '/score'], [1, '/score']]);
    } else {
      // Before the query branch is merged, @mcpgw/query-jsonpath registers nothing: the search says so.
      expect(jp.data.error.code).toBe('UNSUPPORTED_QUERY_FEATURE');
      expect(jp.data.error.message).toContain('"jsonpath"');
    }
  });

  test('jq (ESM-only query plugin) through the peek tool bundle: nodes with RFC 6901 paths, exact numbers', async () => {
    const r = await call(conn.client, 'peek_query', { path: 'events.jsonl', language: 'jq', query: '.tags[] | select(. == "a")' });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ path: 'events.jsonl', format: 'jsonl', language: 'jq', records_scanned: 3, complete: true });
    expect(r.data.matches).toEqual([
      { record_index: 0, path: '/tags/0', value: 'a' },
      { record_index: 2, path: '/tags/0', value: 'a' },
    ]);
    const big = await call(conn.client, 'peek_query', { path: 'events.jsonl', language: 'jq', query: '.amount' });
    expect(big.data.matches.map((m: { path: string }) => m.path)).toEqual(['/amount', '/amount', '/amount']);
    expect(big.text).toContain('"value":12345678901234567890');
    expect(big.text).toContain('"value":0.1000000000000000055511151231257827');
    const computed = await call(conn.client, 'peek_query', { path: 'events.jsonl', language: 'jq', query: '.user.name | ascii_downcase' });
    expect(computed.data.matches).toEqual([
      { record_index: 0, path: '', value: 'ada' },
      { record_index: 1, path: '', value: 'grace' },
      { record_index: 2, path: '', value: 'alan' },
    ]);
  });

  test('jq on the CSV rows: a third-party language over a third-party format', async () => {
    const r = await call(conn.client, 'peek_query', { path: 'people.csv', language: 'jq', query: 'select(.score < 50) | .name' });
    expect(r.data.matches).toEqual([{ record_index: 2, path: '/name', value: 'Zoë Ødegaard' }]);
  });

  test('a jq syntax error is QUERY_SYNTAX_ERROR with jq\'s message and a position', async () => {
    const r = await call(conn.client, 'peek_query', { path: 'events.jsonl', language: 'jq', query: '.a |||' });
    expect(r.isError).toBe(true);
    expect(r.data.error.code).toBe('QUERY_SYNTAX_ERROR');
    expect(r.data.error.message).toContain("syntax error, unexpected '|'");
    expect(r.data.error.location).toEqual({ position: 0 });
  });

  test('the plugin option maxResults is the default page size; maxItems caps it', async () => {
    const r = await call(conn.client, 'peek_query', { path: 'events.jsonl', language: 'jq', query: '..' });
    expect(r.data.matches).toHaveLength(5);
    expect(r.data.complete).toBe(false);
  });

  test('a third-party tool gets the sandbox and nothing more: no way around the root', async () => {
    for (const p of ['../outside.jsonl', path.join(tmp, 'outside.jsonl')]) {
      const r = await call(conn.client, 'peek_query', { path: p, language: 'jq', query: '.' });
      expect(r.isError).toBe(true);
      expect(r.data.error.code).toBe('ACCESS_DENIED');
    }
    const unknown = await call(conn.client, 'peek_query', { path: 'events.jsonl', language: 'xpath', query: '/a' });
    expect(unknown.data.error).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'Unknown query language "xpath".' });
    expect(unknown.data.error.hint).toContain('jq');
  });

  test('jq as json_read\'s language: whole-file addressing, the root of JSON Lines is the array of records', async () => {
    const tools = (await conn.client.listTools()).tools.map((t) => t.name);
    if (!tools.includes('json_read')) {
      // Conditional only until the reader branch is merged: the reader bundle is then registered.
      const bundles = (JSON.parse(mcpgw(['plugins', '--json']).stdout) as { bundles: string[] }[]).flatMap((p) => p.bundles);
      expect(bundles).not.toContain('reader');
      return;
    }
    const r = await call(conn.client, 'json_read', { path: 'events.jsonl', language: 'jq', query: '.[] | select(.amount > 1) | .user.name' });
    expect(r.isError).toBe(false);
    expect(r.data.items).toEqual([
      { path: '/0/user/name', value: 'Ada' },
      { path: '/1/user/name', value: 'Grace' },
    ]);
    const csv = await call(conn.client, 'json_read', { path: 'people.csv', language: 'jq', query: '.[2].name' });
    expect(csv.data.items).toEqual([{ path: '/2/name', value: 'Zoë Ødegaard' }]);
    const bad = await call(conn.client, 'json_read', { path: 'events.jsonl', language: 'jq', query: '.[' });
    expect(bad.data.error.code).toBe('QUERY_SYNTAX_ERROR');
  });

  test('jq in `mcpgw query -l jq` (the installed CLI, plugins from the .mcpgwrc)', () => {
    const help = mcpgw(['--help']);
    if (!/^\s+query\b/m.test(help.stdout)) {
      // Conditional only until the query branch (mcpgw query) is merged.
      expect(help.stdout).not.toContain('query');
      return;
    }
    const r = mcpgw(['query', 'data/events.jsonl', '.[0].amount', '-l', 'jq', '--no-progress']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('{"path":"/0/amount","value":12345678901234567890}\n');
  });

  test('stdout stayed protocol-only (the WebAssembly jq writes nothing there) and stderr is quiet', async () => {
    // a stray stdout line would have broken the client above; the server still answers
    const r = await call(conn.client, 'peek_capabilities', {});
    expect(r.isError).toBe(false);
    expect(conn.stderr()).toBe('');
  });
});
