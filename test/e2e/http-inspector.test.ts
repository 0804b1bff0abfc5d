import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { REPO } from '../helpers/mcp';
import { callTool, connectHttp, startHttp, type HttpServer } from '../helpers/http';

/**
 * An independent client over HTTP: the MCP Inspector CLI (a pinned devDependency) with `--transport http`
 * against the URL of a running `mcpgw serve --http` that requires a token. Each Inspector CLI call is its
 * own 2025 session, so a handle from one call is unknown to the next.
 */
const run = promisify(execFile);
const EXAMPLES = path.join(REPO, 'examples');
const TOKEN = 'inspector-token-0123456789';
const env = { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${path.join(REPO, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}` };

jest.setTimeout(120_000);

let server: HttpServer;
beforeAll(async () => {
  server = await startHttp(['--root', EXAMPLES], { env: { MCPGW_HTTP_TOKEN: TOKEN } });
});
afterAll(async () => {
  expect(await server.stop()).toBe(0);
  expect(server.stdout()).toBe('');
});

async function inspector(args: string[], token = TOKEN) {
  try {
    const { stdout } = await run('npx', ['mcp-inspector', '--cli', server.url.href, '--transport', 'http', '--header', `Authorization: Bearer ${token}`, ...args], { cwd: REPO, env, timeout: 60_000 });
    return { json: JSON.parse(stdout), exitCode: 0, stderr: '' };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    // The Inspector CLI exits 5 when a tool returns isError: true, after printing the result.
    if (e.code === 5) return { json: JSON.parse(e.stdout!), exitCode: 5, stderr: e.stderr ?? '' };
    return { json: null, exitCode: e.code ?? -1, stderr: `${e.stderr ?? ''}${e.stdout ?? ''}` };
  }
}

test('tools/list over HTTP: every explorer and reader tool', async () => {
  const { json } = await inspector(['--method', 'tools/list']);
  expect(json.tools.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['list_files', 'open_file', 'get_record', 'search', 'json_open', 'json_read', 'json_close']));
});

test('tools/call open_file and get_record: the Inspector gets what our client gets; a new session does not know the handle', async () => {
  const opened = await inspector(['--method', 'tools/call', '--tool-name', 'open_file', '--tool-arg', 'path=people.ndjson']);
  const c = await connectHttp(server.url, { token: TOKEN });
  try {
    const ours = await callTool(c, 'open_file', { path: 'people.ndjson' });
    expect(opened.json.structuredContent).toEqual(ours.data);
    expect(opened.json.structuredContent).toMatchObject({ handle: 'file_1', file_type: 'ndjson', record_count: 10 });
  } finally {
    await c.close();
  }
  const rec = await inspector(['--method', 'tools/call', '--tool-name', 'get_record', '--tool-arg', 'handle=file_1', '--tool-arg', 'index=3']);
  expect(rec.exitCode).toBe(5);
  expect(rec.json.structuredContent.error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('file_1') });
});

test('a wrong token: the Inspector fails to connect', async () => {
  const r = await inspector(['--method', 'tools/list'], 'not-the-token-0123456789');
  expect(r.exitCode).not.toBe(0);
  expect(r.json).toBeNull();
  // It took the 401 + WWW-Authenticate: Bearer as an OAuth challenge.
  expect(r.stderr).toContain('auth_required');
});
