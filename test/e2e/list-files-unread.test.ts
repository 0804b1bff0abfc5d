/**
 * list_files never passes off a partial listing as complete: entries the server cannot read (a folder or file it may
 * not open, a symbolic link loop, a dangling link) are left out, and the answer says `complete: false` with one
 * warning per catalogue code naming how many were left out and the first paths, relative to the root.
 * EACCES is provoked for real: the server runs unprivileged (test/helpers/unprivileged.ts).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';
import { unprivilegedEnv } from '../helpers/unprivileged';

let base: string;
let root: string;
let server: Connected;
const locked: string[] = [];

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-listunread-'));
  fs.chmodSync(base, 0o755);
  root = path.join(base, 'data');
  const file = (rel: string, mode = 0o644) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(root, rel), '{"a":1}\n');
    fs.chmodSync(path.join(root, rel), mode);
  };
  file('ok.jsonl');
  file('deep/inner/x.jsonl');
  file('deep/inner/locked2/hidden.jsonl');
  file('locked/in.jsonl');
  file('private/ok.jsonl');
  file('two/a.jsonl');
  file('two/b.jsonl');
  for (let i = 1; i <= 6; i++) file(`private/p${i}.jsonl`, 0o000);
  fs.symlinkSync('nowhere.jsonl', path.join(root, 'dangling.jsonl'));
  fs.symlinkSync('loop-b', path.join(root, 'loop-a'));
  fs.symlinkSync('loop-a', path.join(root, 'loop-b'));
  for (const d of [root, 'deep', 'deep/inner', 'private', 'two']) fs.chmodSync(path.resolve(root, d), 0o755);
  for (const d of ['locked', 'deep/inner/locked2']) {
    locked.push(path.join(root, d));
    fs.chmodSync(path.join(root, d), 0o000);
  }
  const config = path.join(base, 'mcpgw.json');
  fs.writeFileSync(config, JSON.stringify({ root: './data', profile: 'explore', profiles: { explore: { bundles: ['explore'] } } }));
  server = await connect(['--config', config], { env: unprivilegedEnv(base), cwd: base });
});

afterAll(async () => {
  await server?.close();
  for (const d of locked) fs.chmodSync(d, 0o755);
  fs.rmSync(base, { recursive: true, force: true });
});

/** list_files with `args`: its structuredContent, after checking the answer names no absolute path. */
async function list(args: Record<string, unknown>) {
  const r = await call(server.client, 'list_files', args);
  expect(r.isError).toBe(false);
  for (const where of [root, fs.realpathSync(root), base]) {
    expect(r.text).not.toContain(where);
    expect(JSON.stringify(r.data)).not.toContain(where);
  }
  return r.data;
}

test('the root: the readable files, complete: false, and a warning per code with its count and first paths', async () => {
  const data = await list({});
  expect(data.files.map((f: any) => [f.path, f.format])).toEqual([
    ['deep/inner/x.jsonl', 'jsonl'],
    ['ok.jsonl', 'jsonl'],
    ['private/ok.jsonl', 'jsonl'],
    ['two/a.jsonl', 'jsonl'],
    ['two/b.jsonl', 'jsonl'],
  ]);
  expect({ truncated: data.truncated, complete: data.complete }).toEqual({ truncated: false, complete: false });
  // Walk order is path order: dangling.jsonl, deep/…, locked, loop-a, loop-b, private/…; codes in the order first met.
  expect(data.warnings).toEqual([
    {
      code: 'NOT_FOUND',
      message: '1 entry could not be read and is not listed (first: No such file: dangling.jsonl)',
      count: 1,
      paths: ['dangling.jsonl'],
    },
    {
      code: 'ACCESS_DENIED',
      message: '8 entries could not be read and are not listed (first: Permission denied: deep/inner/locked2)',
      count: 8, // two folders and six files
      paths: ['deep/inner/locked2', 'locked', 'private/p1.jsonl', 'private/p2.jsonl', 'private/p3.jsonl'],
    },
    {
      code: 'INVALID_ARGUMENT',
      message: '2 entries could not be read and are not listed (first: Too many levels of symbolic links: loop-a)',
      count: 2,
      paths: ['loop-a', 'loop-b'],
    },
  ]);
});

test('a sub-folder: paths stay relative to the root', async () => {
  const data = await list({ path: 'deep' });
  expect(data.files.map((f: any) => f.path)).toEqual(['deep/inner/x.jsonl']);
  expect(data.complete).toBe(false);
  expect(data.warnings).toEqual([{
    code: 'ACCESS_DENIED',
    message: '1 entry could not be read and is not listed (first: Permission denied: deep/inner/locked2)',
    count: 1,
    paths: ['deep/inner/locked2'],
  }]);
});

test('a glob: unreadable files it would not list are not reported; folders and links it cannot see into are', async () => {
  const data = await list({ glob: 'x.jsonl' });
  expect(data.files.map((f: any) => f.path)).toEqual(['deep/inner/x.jsonl']);
  expect(data.complete).toBe(false);
  expect(data.warnings.map((w: any) => [w.code, w.count, w.paths])).toEqual([
    ['NOT_FOUND', 1, ['dangling.jsonl']],
    ['ACCESS_DENIED', 2, ['deep/inner/locked2', 'locked']],
    ['INVALID_ARGUMENT', 2, ['loop-a', 'loop-b']],
  ]);
});

test('a listing that read everything it lists is complete: true, with no warnings; truncated is never complete', async () => {
  // The six unreadable files in private/ do not match the glob: nothing the listing would show was left out.
  expect(await list({ path: 'private', glob: 'ok.*' })).toEqual({
    files: [{ path: 'private/ok.jsonl', size_bytes: 8, modified: expect.any(String), format: 'jsonl' }],
    truncated: false,
    total: 1,
    complete: true,
  });
  const cut = await list({ path: 'two', max_results: 1 });
  expect(cut).toEqual({ files: [expect.objectContaining({ path: 'two/a.jsonl' })], truncated: true, total: 2, next_cursor: expect.any(String), complete: false });
});

test('list_files pages: total counts every match, next_cursor walks on until the last page, which is complete', async () => {
  // by hand: the folder holds exactly the files written below, listed in name order
  const names = Array.from({ length: 7 }, (_, i) => `f${i}.jsonl`);
  fs.mkdirSync(path.join(root, 'paged'), { recursive: true });
  for (const n of names) fs.writeFileSync(path.join(root, 'paged', n), '{"a":1}\n');
  fs.writeFileSync(path.join(root, 'paged', 'other.txt'), 'x');
  const seen: string[] = [];
  let page = await list({ path: 'paged', glob: '*.jsonl', max_results: 3 });
  const totals: number[] = [];
  for (;;) {
    totals.push(page.total);
    seen.push(...page.files.map((f: any) => path.basename(f.path)));
    if (!page.next_cursor) break;
    expect(page.complete).toBe(false);
    page = await list({ cursor: page.next_cursor, max_results: 3 });
  }
  expect(seen).toEqual(names);
  expect(totals).toEqual([7, 7, 7]);
  expect(page.complete).toBe(true);
  // a cursor with another glob is refused
  const first = await list({ path: 'paged', glob: '*.jsonl', max_results: 3 });
  const wrong = await call(server.client, 'list_files', { cursor: first.next_cursor, glob: '*.txt' });
  expect(wrong.data.error.code).toBe('INVALID_ARGUMENT');
});
