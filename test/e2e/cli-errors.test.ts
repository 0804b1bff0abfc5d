/**
 * One rule for a query that does not compile, in every command that takes one (`query`, `aggregate --where`, `sql`):
 * `mcpgw: QUERY_SYNTAX_ERROR: …` with the position, exit 2 (README "Exit codes": a fault of the command line's own
 * arguments); and each command's --help names its arguments and --root as it applies there. Through the BUILT CLI
 * (test/helpers/cli-host.ts).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startCliHost, type CliHost } from '../helpers/cli-host';

let dir: string;
let host: CliHost;
beforeAll(() => {
  host = startCliHost();
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-clierr-')));
  fs.writeFileSync(path.join(dir, 'c.jsonl'), '{"a":1,"landlocked":false}\n{"a":2,"landlocked":true}\n{"a":3,"landlocked":false}\n');
});
afterAll(async () => {
  await host?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function run(...args: string[]) {
  const r = await host.run(args, dir, { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('a query that does not compile: the code, the position, exit 2', () => {
  test('mcpgw query', async () => {
    const r = await run('query', 'c.jsonl', '$[?');
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toBe('mcpgw: QUERY_SYNTAX_ERROR: JSONPath query is not well-formed at character 3: unclosed bracketed selection.');
    expect(r.out).toBe('');
  });
  test('mcpgw aggregate --where', async () => {
    const r = await run('aggregate', 'c.jsonl', '--where', '$.a >>> 1');
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toMatch(/^mcpgw: QUERY_SYNTAX_ERROR: Bad record predicate at character 5: /);
  });
  test('mcpgw sql', async () => {
    const r = await run('sql', 'c.jsonl', 'SELEC a FROM t');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^mcpgw: QUERY_SYNTAX_ERROR: .*SELEC.* \(at character 0\)\n/);
    // a file that is not there: NOT_FOUND, the same rule and words as mcpgw query
    const missing = await run('sql', 'nothere.jsonl', 'SELECT 1');
    expect(missing.code).toBe(2);
    expect(missing.err).toBe(`mcpgw: NOT_FOUND: No such file: nothere.jsonl (looked for from the current folder, ${dir}).\n`);
    expect(await run('query', 'nothere.jsonl', '$')).toEqual(missing);
  });
});

describe('--help names the arguments and --root as it applies', () => {
  test('mcpgw sql --help: <file> "SQL", --root and --config', async () => {
    const r = await run('sql', '--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: mcpgw sql <file> "SQL" \[options\]\n/);
    expect(r.out).toMatch(/\nArguments:\n {2}<file> +the file: a path under --root when given, else any file .*\n {2}"SQL" +one SELECT/);
    expect(r.out).toMatch(/\n {2}-r, --root <dir> +FILE is a path under this folder .*MCPGW_ROOT and a config's root apply to serve, not here/);
    expect(r.out).toMatch(/\n {2}-c, --config <file> /);
  });
  test('mcpgw aggregate --help: <file>, its options, then --root and --config', async () => {
    const r = await run('aggregate', '--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: mcpgw aggregate <file> \[options\]\n/);
    expect(r.out).toMatch(/\n {2}-w, --where <predicate> /);
    expect(r.out).toMatch(/\n {2}-r, --root <dir> +FILE is a path under this folder/);
    expect(r.out).toMatch(/\n {2}-c, --config <file> /);
  });
  test('mcpgw query --help: --root does not claim MCPGW_ROOT; serve --help does', async () => {
    const q = await run('query', '--help');
    expect(q.out).toMatch(/-r, --root <dir> +FILE is a path under this folder/);
    expect(q.out).not.toContain('(env MCPGW_ROOT)');
    const s = await run('serve', '--help');
    expect(s.out).toContain('(env MCPGW_ROOT)');
  });
});

test('mcpgw aggregate: an existence test that met false says so on stderr, the count unchanged', async () => {
  const r = await run('aggregate', 'c.jsonl', '--where', '$.landlocked', '--json');
  expect(r.code).toBe(0);
  expect(JSON.parse(r.out).groups[0].count).toBe(3);
  expect(r.err).toContain('In 2 records $.landlocked is false or null');
  expect(r.err).toContain('write $.landlocked == true');
});

test('mcpgw query: the same note on stderr, the node list unchanged', async () => {
  const r = await run('query', 'c.jsonl', '$[?@.landlocked].a');
  expect(r.code).toBe(0);
  expect(r.out).toBe('{"path":"/0/a","value":1}\n{"path":"/1/a","value":2}\n{"path":"/2/a","value":3}\n');
  expect(r.err).toBe('mcpgw: warning (EXISTENCE_TEST): In 2 records @.landlocked is false or null, and @.landlocked as a test only checks that it is present (RFC 9535), not that it is true. To test the value write @.landlocked == true.\n');
});
