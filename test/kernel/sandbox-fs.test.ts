/**
 * Sandbox edge cases a real file system under test cannot reach, driven by a scripted file system (registered as
 * the kernel's `Tokens.FileSystem` or given to the Sandbox): permission denied while the tests run as root, a system
 * without /proc/self/fd (the device-and-inode check instead), and a writer acting at one exact step between the
 * sandbox's check and its open — the swap the race test provokes by chance, here every time.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createKernel } from '../../src/compose/engine';
import { Tokens } from '../../src/kernel/contracts/tokens';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { McpgwError } from '../../src/kernel/errors';
import { openInSandbox } from '../../src/kernel/files/open-file';
import { listFiles } from '../../src/kernel/files/list-files';
import { Sandbox } from '../../src/kernel/files/sandbox';
import type { FileAccess } from '../../src/kernel/contracts/tool';
import jsonl from '../../plugins/format-jsonl/src/index';
import { ScriptedFileSystem } from '../helpers/scripted-fs';

const INSIDE = '{"inside":true}\n';
const SECRET = '{"secret":"outside"}\n';
let tmp: string;
let root: string;
let outside: string;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-sfs-')));
  root = path.join(tmp, 'root');
  outside = path.join(tmp, 'outside');
  fs.mkdirSync(path.join(root, 'd'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(root, 'd', 'f.jsonl'), INSIDE);
  fs.writeFileSync(path.join(root, 'top.jsonl'), INSIDE);
  fs.writeFileSync(path.join(outside, 'f.jsonl'), SECRET);
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The error a call throws, as its payload. */
function payload(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    if (err instanceof McpgwError) return err.toPayload();
    throw err;
  }
  throw new Error('expected an error');
}

/** Content read through an opened descriptor. */
const readAll = (fd: number) => {
  const buf = Buffer.alloc(256);
  const n = fs.readSync(fd, buf, 0, buf.length, 0);
  return buf.subarray(0, n).toString();
};

test('a folder on the path the server may not enter (EACCES at realpath, as for a non-root user): ACCESS_DENIED naming the path as given', () => {
  const scripted = new ScriptedFileSystem().fail('realpath', (p) => p.endsWith('/d/f.jsonl'), 'EACCES');
  const sandbox = new Sandbox(root, scripted);
  expect(payload(() => sandbox.resolve('d/f.jsonl'))).toEqual({
    code: 'ACCESS_DENIED', message: 'Permission denied: d/f.jsonl', hint: 'The server may not read it; its owner can change its permissions.',
  });
  expect(sandbox.resolve('top.jsonl')).toBe(path.join(root, 'top.jsonl'));
});

test('a file the server may not open (EACCES at open): ACCESS_DENIED, no descriptor left open', () => {
  const scripted = new ScriptedFileSystem().fail('open', (p) => p.endsWith('/top.jsonl'), 'EACCES');
  const sandbox = new Sandbox(root, scripted);
  expect(payload(() => openInSandbox(sandbox, 'top.jsonl'))).toMatchObject({ code: 'ACCESS_DENIED', message: 'Permission denied: top.jsonl' });
  expect(scripted.calls.filter(([c]) => c === 'close')).toEqual([]);
});

test('the final name swapped for a link out of the root right before the open: ACCESS_DENIED, nothing read from outside', () => {
  const scripted = new ScriptedFileSystem().before('open', (p) => p.endsWith('/d/f.jsonl'), (p) => {
    fs.rmSync(p);
    fs.symlinkSync(path.join(outside, 'f.jsonl'), p);
  });
  const sandbox = new Sandbox(root, scripted);
  expect(payload(() => openInSandbox(sandbox, 'd/f.jsonl'))).toMatchObject({
    code: 'ACCESS_DENIED', message: 'd/f.jsonl led outside the root folder when it was opened (a link on its path changed).',
  });
});

test('a folder on the path swapped for a link out of the root right before the open: caught by the descriptor\'s own path', () => {
  const scripted = new ScriptedFileSystem().before('open', (p) => p.endsWith('/d/f.jsonl'), () => {
    fs.renameSync(path.join(root, 'd'), path.join(root, 'd.keep'));
    fs.symlinkSync(outside, path.join(root, 'd'));
  });
  const sandbox = new Sandbox(root, scripted);
  expect(payload(() => openInSandbox(sandbox, 'd/f.jsonl'))).toMatchObject({ code: 'ACCESS_DENIED', message: expect.stringContaining('led outside the root folder') });
  expect(scripted.calls.filter(([c]) => c === 'close')).toHaveLength(1); // the descriptor of the outside file, closed unread
});

describe('a system without /proc/self/fd (the device-and-inode check)', () => {
  test('an ordinary open still works and reads the file', () => {
    const scripted = new ScriptedFileSystem().withoutProcFd();
    const sandbox = new Sandbox(root, scripted);
    scripted.calls.length = 0; // the root's own resolution
    const file = openInSandbox(sandbox, 'd/f.jsonl');
    try {
      expect(file.realPath).toBe(path.join(root, 'd', 'f.jsonl'));
      expect(readAll(file.fd)).toBe(INSIDE);
      // The check after the open resolved the path again, symlink-free.
      expect(scripted.calls.map(([c]) => c)).toEqual(['realpath', 'open', 'fstat', 'readlink', 'realpath', 'stat']);
    } finally {
      fs.closeSync(file.fd);
    }
  });

  test('a folder swapped for a link out of the root right before the open: ACCESS_DENIED by device and inode', () => {
    const scripted = new ScriptedFileSystem().withoutProcFd().before('open', (p) => p.endsWith('/d/f.jsonl'), () => {
      fs.renameSync(path.join(root, 'd'), path.join(root, 'd.keep'));
      fs.symlinkSync(outside, path.join(root, 'd'));
    });
    const sandbox = new Sandbox(root, scripted);
    expect(payload(() => openInSandbox(sandbox, 'd/f.jsonl'))).toMatchObject({ code: 'ACCESS_DENIED', message: expect.stringContaining('led outside the root folder') });
  });

  test('the file replaced (same path, another inode) between the open and the check: ACCESS_DENIED', () => {
    const scripted = new ScriptedFileSystem().withoutProcFd().before('fstat', () => true, () => {
      const p = path.join(root, 'd', 'f.jsonl');
      fs.rmSync(p);
      fs.writeFileSync(p, INSIDE);
    });
    const sandbox = new Sandbox(root, scripted);
    expect(payload(() => openInSandbox(sandbox, 'd/f.jsonl'))).toMatchObject({ code: 'ACCESS_DENIED' });
  });

  test('a listing swaps a folder for a link between naming and opening an entry: nothing from outside is listed', async () => {
    fs.mkdirSync(path.join(root, 'e'));
    fs.writeFileSync(path.join(root, 'e', 'only-inside.jsonl'), INSIDE);
    fs.writeFileSync(path.join(outside, 'only-outside.jsonl'), SECRET);
    const scripted = new ScriptedFileSystem().withoutProcFd().before('open', (p) => p === path.join(root, 'e'), () => {
      fs.renameSync(path.join(root, 'e'), path.join(root, 'e.keep'));
      fs.symlinkSync(outside, path.join(root, 'e'));
    });
    const sandbox = new Sandbox(root, scripted);
    const listing = await listFiles(sandbox, [], undefined, {});
    const names = listing.files.map((f) => f.path);
    expect(names.some((n) => n.includes('only-outside'))).toBe(false);
    expect(names).toEqual(expect.arrayContaining(['d/f.jsonl', 'top.jsonl']));
  });
});

test('the kernel builds its sandboxes on Tokens.FileSystem: a scripted one registered there decides what a tool\'s open gets', async () => {
  const kernel = createKernel({ version: '0.1.0', ownDir: tmp, log: { error() {}, warn() {}, info() {}, debug() {} }, importModule: async () => jsonl });
  fs.writeFileSync(path.join(tmp, 'jsonl.cjs'), ''); // found on disk; its module is the format-jsonl plugin (importModule)
  await kernel.load([{ id: './jsonl.cjs', options: {}, fromDir: tmp, origin: 'config' }]);
  const scripted = new ScriptedFileSystem().fail('open', (p) => p.endsWith('/top.jsonl'), 'EMFILE');
  kernel.container.register(Tokens.FileSystem, { useValue: scripted });
  const files = kernel.scope({ root, limits: DEFAULT_LIMITS }).resolve<FileAccess>(Tokens.Files);
  await expect(files.open('top.jsonl')).rejects.toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', message: 'Cannot open top.jsonl: the server has too many files open.' });
  const opened = await files.open('d/f.jsonl');
  expect(opened.source.count).toBe(1);
  opened.close();
  // within() (the session homes' walls) uses the same file system.
  const walled = files.within([path.join(root, 'd')]);
  scripted.fail('open', (p) => p.endsWith('/d/f.jsonl'), 'EACCES');
  await expect(walled.open(path.join(root, 'd', 'f.jsonl'))).rejects.toMatchObject({ code: 'ACCESS_DENIED', message: expect.stringContaining('Permission denied') });
});

describe('opening many files of one folder (plain absolute paths, as the session homes are read)', () => {
  const abs = (...p: string[]) => path.join(root, ...p);
  const open = (sandbox: Sandbox, p: string) => {
    const file = openInSandbox(sandbox, p);
    try {
      return { realPath: file.realPath, text: readAll(file.fd) };
    } finally {
      fs.closeSync(file.fd);
    }
  };

  test('the folder is resolved once; each file is opened and checked by the descriptor\'s own path, not resolved', () => {
    for (const n of ['a', 'b', 'c']) fs.writeFileSync(abs('d', `${n}.jsonl`), INSIDE);
    const scripted = new ScriptedFileSystem();
    const sandbox = new Sandbox(root, scripted);
    expect(open(sandbox, abs('d', 'f.jsonl'))).toEqual({ realPath: abs('d', 'f.jsonl'), text: INSIDE }); // resolved: the first open learns /proc/self/fd
    scripted.calls.length = 0;
    for (const n of ['a', 'b', 'c']) expect(open(sandbox, abs('d', `${n}.jsonl`))).toEqual({ realPath: abs('d', `${n}.jsonl`), text: INSIDE });
    expect(scripted.calls.filter(([c]) => c === 'realpath')).toEqual([['realpath', abs('d')]]);
    expect(scripted.calls.filter(([c]) => c === 'open').map(([, p]) => p)).toEqual(['a', 'b', 'c'].map((n) => abs('d', `${n}.jsonl`)));
  });

  test('a verified folder later swapped for a link out of the root: ACCESS_DENIED as before, the outside file closed unread, and the folder verified again', () => {
    const scripted = new ScriptedFileSystem();
    const sandbox = new Sandbox(root, scripted);
    open(sandbox, abs('top.jsonl'));
    open(sandbox, abs('d', 'f.jsonl')); // d verified
    fs.renameSync(abs('d'), abs('d.keep'));
    fs.symlinkSync(outside, abs('d'));
    scripted.calls.length = 0;
    expect(payload(() => openInSandbox(sandbox, abs('d', 'f.jsonl')))).toEqual({
      code: 'ACCESS_DENIED', message: `${abs('d', 'f.jsonl')} is outside the root folder.`, hint: 'Only files under the configured root can be opened; use a path relative to it.',
    });
    expect(scripted.calls.filter(([c]) => c === 'close')).toHaveLength(1);
    // Forgotten: the next open resolves the path first and opens nothing outside.
    scripted.calls.length = 0;
    expect(payload(() => openInSandbox(sandbox, abs('d', 'f.jsonl')))).toMatchObject({ code: 'ACCESS_DENIED' });
    expect(scripted.calls.filter(([c]) => c === 'open')).toEqual([]);
  });

  test('a link as the file\'s own name: followed inside the root as before, refused when it leads out', () => {
    fs.symlinkSync(abs('top.jsonl'), abs('d', 'in.jsonl'));
    fs.symlinkSync(path.join(outside, 'f.jsonl'), abs('d', 'out.jsonl'));
    const sandbox = new Sandbox(root, new ScriptedFileSystem());
    open(sandbox, abs('d', 'f.jsonl'));
    open(sandbox, abs('d', 'f.jsonl'));
    expect(open(sandbox, abs('d', 'in.jsonl'))).toEqual({ realPath: abs('top.jsonl'), text: INSIDE });
    expect(payload(() => openInSandbox(sandbox, abs('d', 'out.jsonl')))).toMatchObject({ code: 'ACCESS_DENIED', message: `${abs('d', 'out.jsonl')} is outside the root folder.` });
  });

  test('a folder outside the root is never opened in, whatever was opened before', () => {
    const scripted = new ScriptedFileSystem();
    const sandbox = new Sandbox(root, scripted);
    open(sandbox, abs('d', 'f.jsonl'));
    open(sandbox, abs('d', 'f.jsonl'));
    scripted.calls.length = 0;
    expect(payload(() => openInSandbox(sandbox, path.join(outside, 'f.jsonl')))).toMatchObject({ code: 'ACCESS_DENIED' });
    expect(scripted.calls).toEqual([]);
  });
});
