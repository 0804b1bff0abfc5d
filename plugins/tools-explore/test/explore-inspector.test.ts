import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { testTools } from 'mcpgw/plugin-kit';
import { NODE, REPO } from '../../../test/helpers/mcp';

/**
 * An independent client must agree: the MCP Inspector CLI (@modelcontextprotocol/inspector, a pinned
 * devDependency) lists the tools and calls open_file and get_record against the built server. It runs under the
 * repository's pinned Node 22 (its directory is put first on PATH, so `node` in the command is that Node).
 * Each Inspector CLI call is its own session, so a handle from one call is unknown to the next.
 */
const run = promisify(execFile);
const EXAMPLES = path.join(REPO, 'examples');
/** The Inspector's own bin (its package.json `bin.mcp-inspector`), run by this Node: no npx process in between. */
const INSPECTOR = path.join(REPO, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
const env = { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${path.join(REPO, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}` };

/** `mcp-inspector --cli [...options] node bin/mcpgw.js serve --root examples [...method]` → its stdout parsed. */
async function inspector(options: string[], method: string[]) {
  try {
    const { stdout, stderr } = await run(NODE, [INSPECTOR, '--cli', ...options, 'node', 'bin/mcpgw.js', 'serve', '--root', EXAMPLES, ...method], { cwd: REPO, env, timeout: 60_000 });
    return { json: JSON.parse(stdout), stderr, exitCode: 0 };
  } catch (err) {
    // The Inspector CLI exits 5 when a tool returns isError: true, after printing the result.
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (e.code !== 5) throw err;
    return { json: JSON.parse(e.stdout!), stderr: e.stderr ?? '', exitCode: 5 };
  }
}

jest.setTimeout(120_000);

test('tools/list: the Inspector sees every explorer tool, with schemas no portability check rejects', async () => {
  const { json, stderr } = await inspector(['--strict'], ['--method', 'tools/list']);
  const names = json.tools.map((t: { name: string }) => t.name);
  expect(names).toEqual(expect.arrayContaining([
    'list_files', 'open_file', 'close_file', 'get_file_info', 'get_record', 'get_record_count', 'search',
    'get_value_at_path', 'extract_keys', 'sample_records', 'get_schema', 'get_outline',
  ]));
  for (const t of json.tools) {
    expect(t.description.length).toBeLessThan(2000);
    expect(t.inputSchema.type).toBe('object');
  }
  // --strict exits 6 on an error-severity portability problem (execFile would have thrown); warnings are allowed.
  expect(stderr).not.toMatch(/^Error:/m);
});

test('tools/call open_file and get_record: the Inspector gets what our client gets', async () => {
  const opened = await inspector([], ['--method', 'tools/call', '--tool-name', 'open_file', '--tool-arg', 'path=people.ndjson']);
  // Our client: the plugin kit's tool tester (a real MCP client, in-process) on the same root.
  const t = await testTools('@mcpgw/tools-explore', { root: EXAMPLES });
  try {
    const ours = (await t.call('open_file', { path: 'people.ndjson' })).structuredContent;
    expect(opened.json.structuredContent).toEqual(ours);
    expect(opened.json.structuredContent).toMatchObject({ handle: 'file_1', file_type: 'ndjson', record_count: 10 });
    expect(JSON.parse(opened.json.content[0].text)).toEqual(ours);
  } finally {
    await t.close();
  }
  // A new Inspector session: file_1 is not open there, and the error is a result with its code.
  const rec = await inspector([], ['--method', 'tools/call', '--tool-name', 'get_record', '--tool-arg', 'handle=file_1', '--tool-arg', 'index=3']);
  expect(rec.exitCode).toBe(5);
  expect(rec.json.isError).toBe(true);
  expect(rec.json.structuredContent.error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('file_1') });
});
