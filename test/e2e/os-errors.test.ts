/**
 * Operating-system errors end to end: every tool that takes a path answers a coded error naming the path as the
 * caller gave it (relative to the root), never the system's message, which quotes the absolute root path.
 * Each errno is provoked for real in a temp folder; EACCES needs an unprivileged server, so when the tests run as
 * root the server drops to uid/gid 65534 at start-up (a `--require` preload) and the permissions bite.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';
import { unprivilegedEnv } from '../helpers/unprivileged';

let base: string;
let root: string;
let server: Connected;

const LONG = 'n'.repeat(300); // one name over NAME_MAX (255 bytes)

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-oserr-'));
  fs.chmodSync(base, 0o755);
  root = path.join(base, 'data');
  fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(root, 'sub', 'a.jsonl'), '{"a":1}\n');
  fs.symlinkSync('loop-b', path.join(root, 'loop-a'));
  fs.symlinkSync('loop-a', path.join(root, 'loop-b'));
  fs.mkdirSync(path.join(root, 'folder.jsonl'));
  fs.mkdirSync(path.join(root, 'locked'));
  fs.writeFileSync(path.join(root, 'locked', 'in.jsonl'), '{"a":1}\n');
  fs.writeFileSync(path.join(root, 'unreadable.jsonl'), '{"a":1}\n');
  fs.chmodSync(path.join(root, 'unreadable.jsonl'), 0o000);
  fs.chmodSync(path.join(root, 'locked'), 0o000);
  for (const d of [root, path.join(root, 'sub'), path.join(root, 'folder.jsonl')]) fs.chmodSync(d, 0o755);
  fs.chmodSync(path.join(root, 'sub', 'a.jsonl'), 0o644);
  const config = path.join(base, 'mcpgw.json');
  fs.writeFileSync(config, JSON.stringify({ root: './data', profile: 'both', profiles: { both: { bundles: ['explore', 'reader'] } } }));
  server = await connect(['--config', config], { env: unprivilegedEnv(base), cwd: base });
});

afterAll(async () => {
  await server?.close();
  fs.chmodSync(path.join(root, 'locked'), 0o755);
  fs.rmSync(base, { recursive: true, force: true });
});

/** The four tools that take a path, each asked for `p`: its error payload. */
async function errorsFor(p: string) {
  const out: Record<string, { code: string; message: string }> = {};
  for (const [tool, args] of [
    ['open_file', { path: p }],
    ['list_files', { path: p }],
    ['json_open', { path: p }],
    ['json_read', { path: p, language: 'jsonpath', query: '$' }],
  ] as const) {
    const r = await call(server.client, tool, args);
    expect({ tool, isError: r.isError }).toEqual({ tool, isError: true });
    out[tool] = { code: r.data.error.code, message: r.data.error.message };
    // The text block and structuredContent never carry the server's folders.
    for (const where of [root, fs.realpathSync(root), base]) {
      expect(r.text).not.toContain(where);
      expect(JSON.stringify(r.data)).not.toContain(where);
    }
  }
  return out;
}

const all = (code: string, message: string) => ({
  open_file: { code, message },
  list_files: { code, message },
  json_open: { code, message },
  json_read: { code, message },
});

test('ENAMETOOLONG: a name over 255 bytes is INVALID_ARGUMENT naming the path as given', async () => {
  const p = `sub/${LONG}.jsonl`;
  expect(await errorsFor(p)).toEqual(all('INVALID_ARGUMENT', `The path is longer than the system allows: sub/${'n'.repeat(196)}… (310 characters)`));
});

test('ENAMETOOLONG in a folder name on the way', async () => {
  expect(await errorsFor(`${LONG}/a.jsonl`)).toEqual(all('INVALID_ARGUMENT', `The path is longer than the system allows: ${'n'.repeat(200)}… (308 characters)`));
});

test('ELOOP: links that lead to each other are INVALID_ARGUMENT', async () => {
  expect(await errorsFor('loop-a')).toEqual(all('INVALID_ARGUMENT', 'Too many levels of symbolic links: loop-a'));
  expect(await errorsFor('loop-b/x.jsonl')).toEqual(all('INVALID_ARGUMENT', 'Too many levels of symbolic links: loop-b/x.jsonl'));
});

test('EACCES: an unreadable file and a file in an unreadable folder are ACCESS_DENIED', async () => {
  expect(await errorsFor('unreadable.jsonl')).toEqual(all('ACCESS_DENIED', 'Permission denied: unreadable.jsonl'));
  expect(await errorsFor('locked/in.jsonl')).toEqual(all('ACCESS_DENIED', 'Permission denied: locked/in.jsonl'));
  expect(await errorsFor('locked')).toEqual(all('ACCESS_DENIED', 'Permission denied: locked'));
});

test('EISDIR: a folder named like a file is INVALID_ARGUMENT for the file tools (list_files lists it)', async () => {
  for (const tool of ['open_file', 'json_open'] as const) {
    const r = await call(server.client, tool, { path: 'folder.jsonl' });
    expect(r.data.error).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'folder.jsonl is a folder, not a regular file.',
      hint: 'Give the path of a file inside it; list_files shows the files.',
    });
  }
  const listed = await call(server.client, 'list_files', { path: 'folder.jsonl' });
  expect(listed.data).toEqual({ files: [], truncated: false, total: 0, complete: true });
});

test('ENOTDIR: a path through a file is NOT_FOUND', async () => {
  expect(await errorsFor('sub/a.jsonl/x.jsonl')).toEqual(all('NOT_FOUND', 'No such file: sub/a.jsonl/x.jsonl'));
});

test('a file the errors were about stays readable by the same server (the server was not wedged)', async () => {
  const r = await call(server.client, 'json_read', { path: 'sub/a.jsonl', language: 'jsonpath', query: '$[*].a' });
  expect(r.isError).toBe(false);
  expect(r.data.items.map((i: any) => i.value)).toEqual([1]);
});
