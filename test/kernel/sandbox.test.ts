/**
 * The root sandbox (docs/architecture.md "The root is a wall"): one test per hazard, on real files, symlinks
 * and a real FIFO in a fresh temp folder.
 *
 * Layout built in beforeAll (T = the temp folder):
 *   T/secret.txt                  outside the root
 *   T/outside/f.jsonl             outside the root
 *   T/data-other/f.jsonl          a sibling whose name starts with the root's name
 *   T/data/                       the root
 *     f.jsonl, sub/inner.jsonl, é.jsonl, 日本/データ.jsonl, dir/
 *     link-out.jsonl  -> T/secret.txt      (escapes)
 *     dir-out         -> T/outside         (folder that escapes)
 *     link-in.jsonl   -> T/data/sub/inner.jsonl (stays inside)
 *     loop-a <-> loop-b                    (symlink loop)
 *     fifo                                 (mkfifo)
 *   T/rootlink -> T/data          the root given through a symlink
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { McpgwError } from '../../src/kernel/errors';
import { Sandbox } from '../../src/kernel/files/sandbox';
import { openInSandbox, closeQuietly } from '../../src/kernel/files/open-file';

let tmp: string; // real path of the temp folder
let root: string; // T/data
let sandbox: Sandbox;

const write = (p: string, text: string) => {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
};

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-sandbox-')));
  root = path.join(tmp, 'data');
  write(path.join(tmp, 'secret.txt'), 'top secret\n');
  write(path.join(tmp, 'outside', 'f.jsonl'), '{"outside":true}\n');
  write(path.join(tmp, 'data-other', 'f.jsonl'), '{"other":true}\n');
  write(path.join(root, 'f.jsonl'), '{"a":1}\n');
  write(path.join(root, 'sub', 'inner.jsonl'), '{"inner":1}\n');
  write(path.join(root, 'é.jsonl'), '{"accent":1}\n');
  write(path.join(root, '日本', 'データ.jsonl'), '{"kanji":1}\n');
  fs.mkdirSync(path.join(root, 'dir'));
  fs.symlinkSync(path.join(tmp, 'secret.txt'), path.join(root, 'link-out.jsonl'));
  fs.symlinkSync(path.join(tmp, 'outside'), path.join(root, 'dir-out'));
  fs.symlinkSync(path.join('sub', 'inner.jsonl'), path.join(root, 'link-in.jsonl')); // relative target, inside
  fs.symlinkSync('loop-b', path.join(root, 'loop-a'));
  fs.symlinkSync('loop-a', path.join(root, 'loop-b'));
  execFileSync('mkfifo', [path.join(root, 'fifo')]);
  fs.symlinkSync(root, path.join(tmp, 'rootlink'));
  sandbox = new Sandbox(root);
});

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Runs `fn`, expects an McpgwError, returns it. */
function thrown(fn: () => unknown): McpgwError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(McpgwError);
    return err as McpgwError;
  }
  throw new Error('expected an McpgwError, but nothing was thrown');
}

describe('Sandbox construction', () => {
  test('root is stored as its real path', () => {
    expect(sandbox.root).toBe(root);
  });

  test('a missing root is NOT_FOUND naming it', () => {
    const missing = path.join(tmp, 'no-such-root');
    const err = thrown(() => new Sandbox(missing));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toContain(missing);
  });

  test('a root that is a file is INVALID_ARGUMENT', () => {
    const err = thrown(() => new Sandbox(path.join(tmp, 'secret.txt')));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toMatch(/not a folder/);
  });
});

describe('ACCESS_DENIED: paths that leave the root', () => {
  test('`..` escape to an existing file', () => {
    const err = thrown(() => sandbox.resolve('../secret.txt'));
    expect(err.code).toBe('ACCESS_DENIED');
    expect(err.message).toContain('../secret.txt');
    expect(err.message).toMatch(/outside the root/);
  });

  test('`..` escape hidden in the middle of a path', () => {
    const err = thrown(() => sandbox.resolve('sub/../../outside/f.jsonl'));
    expect(err.code).toBe('ACCESS_DENIED');
    expect(err.message).toMatch(/outside the root/);
  });

  test('absolute path outside the root', () => {
    const p = path.join(tmp, 'secret.txt');
    const err = thrown(() => sandbox.resolve(p));
    expect(err.code).toBe('ACCESS_DENIED');
    expect(err.message).toContain(p);
  });

  test('absolute system path (/etc/passwd)', () => {
    const err = thrown(() => sandbox.resolve('/etc/passwd'));
    expect(err.code).toBe('ACCESS_DENIED');
    expect(err.message).toContain('/etc/passwd');
  });

  test('a symlink inside the root pointing to a file outside', () => {
    const err = thrown(() => sandbox.resolve('link-out.jsonl'));
    expect(err.code).toBe('ACCESS_DENIED');
    expect(err.message).toContain('link-out.jsonl');
    // openInSandbox refuses it the same way (nothing is opened)
    expect(thrown(() => openInSandbox(sandbox, 'link-out.jsonl')).code).toBe('ACCESS_DENIED');
  });

  test('a symlinked folder inside the root that escapes it', () => {
    const err = thrown(() => sandbox.resolve('dir-out/f.jsonl'));
    expect(err.code).toBe('ACCESS_DENIED');
    expect(err.message).toContain('dir-out/f.jsonl');
    expect(thrown(() => sandbox.resolve('dir-out')).code).toBe('ACCESS_DENIED');
  });

  test('a missing file under an escaping symlinked folder is ACCESS_DENIED, not NOT_FOUND', () => {
    const err = thrown(() => sandbox.resolve('dir-out/missing.jsonl'));
    expect(err.code).toBe('ACCESS_DENIED');
  });

  test('sibling folder sharing the root name as a prefix, as an absolute path', () => {
    const p = path.join(tmp, 'data-other', 'f.jsonl');
    expect(fs.existsSync(p)).toBe(true);
    const err = thrown(() => sandbox.resolve(p));
    expect(err.code).toBe('ACCESS_DENIED');
    expect(err.message).toContain('data-other');
  });

  test('sibling folder sharing the root name as a prefix, as ../data-other/f.jsonl', () => {
    const err = thrown(() => sandbox.resolve('../data-other/f.jsonl'));
    expect(err.code).toBe('ACCESS_DENIED');
    expect(err.message).toContain('../data-other/f.jsonl');
  });

  test('sibling prefix folder that does not exist is still ACCESS_DENIED', () => {
    expect(thrown(() => sandbox.resolve(root + '-nope/f.jsonl')).code).toBe('ACCESS_DENIED');
    expect(thrown(() => sandbox.resolve(root + 'x')).code).toBe('ACCESS_DENIED');
  });

  test('a missing file under a path outside the root is ACCESS_DENIED, not NOT_FOUND', () => {
    const rel = thrown(() => sandbox.resolve('../no-such-dir/x.jsonl'));
    expect(rel.code).toBe('ACCESS_DENIED');
    const abs = thrown(() => sandbox.resolve(path.join(tmp, 'no-such-dir', 'x.jsonl')));
    expect(abs.code).toBe('ACCESS_DENIED');
    const sys = thrown(() => sandbox.resolve('/no-such-top-level-dir-mcpgw/x.jsonl'));
    expect(sys.code).toBe('ACCESS_DENIED');
  });

  test('the parent of the root itself', () => {
    expect(thrown(() => sandbox.resolve('..')).code).toBe('ACCESS_DENIED');
  });
});

describe('allowed paths', () => {
  test('a symlink inside the root pointing inside is allowed and resolves to its target; it is shown as asked', () => {
    expect(sandbox.resolve('link-in.jsonl')).toBe(path.join(root, 'sub', 'inner.jsonl'));
    const opened = openInSandbox(sandbox, 'link-in.jsonl');
    try {
      expect(opened.realPath).toBe(path.join(root, 'sub', 'inner.jsonl'));
      // the client finds the path it asked for in the answer, not the link's target
      expect(opened.displayPath).toBe('link-in.jsonl');
      expect(opened.identity.size).toBe('{"inner":1}\n'.length);
    } finally {
      closeQuietly(opened.fd);
    }
  });

  test('relative paths resolve against the root, not the process cwd', () => {
    expect(process.cwd()).not.toBe(root);
    expect(sandbox.resolve('f.jsonl')).toBe(path.join(root, 'f.jsonl'));
    expect(sandbox.resolve('./sub/inner.jsonl')).toBe(path.join(root, 'sub', 'inner.jsonl'));
    expect(sandbox.resolve('sub/../f.jsonl')).toBe(path.join(root, 'f.jsonl'));
    expect(sandbox.relative(sandbox.resolve('sub/inner.jsonl'))).toBe('sub/inner.jsonl');
  });

  test('an absolute path inside the root is allowed', () => {
    expect(sandbox.resolve(path.join(root, 'sub', 'inner.jsonl'))).toBe(path.join(root, 'sub', 'inner.jsonl'));
  });

  test('unicode file and folder names (é, 日本) work', () => {
    expect(sandbox.resolve('é.jsonl')).toBe(path.join(root, 'é.jsonl'));
    const opened = openInSandbox(sandbox, '日本/データ.jsonl');
    try {
      expect(opened.displayPath).toBe('日本/データ.jsonl');
      expect(opened.realPath).toBe(path.join(root, '日本', 'データ.jsonl'));
      const buf = Buffer.alloc(opened.identity.size);
      fs.readSync(opened.fd, buf, 0, buf.length, 0);
      expect(buf.toString()).toBe('{"kanji":1}\n');
    } finally {
      closeQuietly(opened.fd);
    }
    const missing = thrown(() => sandbox.resolve('日本/なし.jsonl'));
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.message).toContain('日本/なし.jsonl');
  });

  test('the root given through a symlink works (relative paths)', () => {
    const viaLink = new Sandbox(path.join(tmp, 'rootlink'));
    expect(viaLink.root).toBe(root);
    expect(viaLink.resolve('f.jsonl')).toBe(path.join(root, 'f.jsonl'));
    const opened = openInSandbox(viaLink, 'sub/inner.jsonl');
    try {
      expect(opened.displayPath).toBe('sub/inner.jsonl');
    } finally {
      closeQuietly(opened.fd);
    }
    // and it is still a wall
    expect(thrown(() => viaLink.resolve('../secret.txt')).code).toBe('ACCESS_DENIED');
    expect(thrown(() => viaLink.resolve('link-out.jsonl')).code).toBe('ACCESS_DENIED');
  });

  test('the root given through a symlink accepts absolute paths spelled through the link', () => {
    const viaLink = new Sandbox(path.join(tmp, 'rootlink'));
    expect(viaLink.resolve(path.join(tmp, 'rootlink', 'f.jsonl'))).toBe(path.join(root, 'f.jsonl'));
    const opened = openInSandbox(viaLink, path.join(tmp, 'rootlink', 'sub', '..', 'link-in.jsonl'));
    try {
      expect(opened.realPath).toBe(path.join(root, 'sub', 'inner.jsonl'));
      expect(opened.displayPath).toBe('link-in.jsonl');
    } finally {
      closeQuietly(opened.fd);
    }
    expect(viaLink.shown('./sub//inner.jsonl', path.join(root, 'sub', 'inner.jsonl'))).toBe('sub/inner.jsonl');
  });

  test('openInSandbox opens a regular file read-only with its identity', () => {
    const opened = openInSandbox(sandbox, 'f.jsonl');
    try {
      const st = fs.statSync(path.join(root, 'f.jsonl'));
      expect(opened.identity).toEqual({ size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, inode: st.ino, dev: st.dev });
      expect(() => fs.writeSync(opened.fd, 'x')).toThrow(/EBADF/);
    } finally {
      closeQuietly(opened.fd);
    }
  });
});

describe('INVALID_ARGUMENT and NOT_FOUND', () => {
  test('a NUL byte', () => {
    const err = thrown(() => sandbox.resolve('f.jsonl\0.txt'));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toMatch(/NUL/);
    expect(thrown(() => openInSandbox(sandbox, '\0')).code).toBe('INVALID_ARGUMENT');
  });

  test('an empty path', () => {
    const err = thrown(() => sandbox.resolve(''));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toMatch(/empty/);
    expect(thrown(() => openInSandbox(sandbox, '')).code).toBe('INVALID_ARGUMENT');
  });

  test('a folder', () => {
    const err = thrown(() => openInSandbox(sandbox, 'dir'));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toBe('dir is a folder, not a regular file.');
    expect(err.hint).toMatch(/file inside it/);
  });

  test('the root folder itself', () => {
    const err = thrown(() => openInSandbox(sandbox, '.'));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toMatch(/folder/);
  });

  test('a FIFO is INVALID_ARGUMENT and returns at once (never blocks waiting for a writer)', () => {
    const fifo = path.join(root, 'fifo');
    expect(fs.statSync(fifo).isFIFO()).toBe(true);
    // Safety net: if opening blocked, this writer would unblock it after 10 s, so the test fails on
    // elapsed time (≥ 10 s; a non-blocking open takes milliseconds even on a loaded machine) instead of
    // hanging the worker. It is killed right after.
    let writer: ChildProcess | undefined;
    try {
      writer = spawn('sh', ['-c', 'sleep 10; exec 3>"$1"', 'sh', fifo], { stdio: 'ignore' });
      const start = Date.now();
      const err = thrown(() => openInSandbox(sandbox, 'fifo'));
      const elapsed = Date.now() - start;
      expect(elapsed).toBeLessThan(9000);
      expect(err.code).toBe('INVALID_ARGUMENT');
      expect(err.message).toBe('fifo is a FIFO, not a regular file.');
    } finally {
      if (writer?.pid !== undefined && writer.exitCode === null) writer.kill('SIGKILL');
    }
  }, 30_000);

  test('a missing file inside the root', () => {
    const err = thrown(() => sandbox.resolve('nope.jsonl'));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toBe('No such file: nope.jsonl');
    expect(thrown(() => openInSandbox(sandbox, 'sub/nope/deeper.jsonl')).code).toBe('NOT_FOUND');
  });

  test('a path through a regular file (f.jsonl/x) is NOT_FOUND', () => {
    expect(thrown(() => sandbox.resolve('f.jsonl/x')).code).toBe('NOT_FOUND');
  });

  test('a symlink loop is INVALID_ARGUMENT, not a hang or a crash', () => {
    const err = thrown(() => sandbox.resolve('loop-a'));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toMatch(/symbolic links/);
  });
});

describe('dangling symlinks', () => {
  test('a dangling symlink pointing outside the root is ACCESS_DENIED, not NOT_FOUND', () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-dangle-'));
    const r = path.join(base, 'root');
    fs.mkdirSync(r);
    fs.symlinkSync(path.join(base, 'missing-outside.jsonl'), path.join(r, 'out.jsonl'));
    fs.symlinkSync(path.join(r, 'missing-inside.jsonl'), path.join(r, 'in.jsonl'));
    const sb = new Sandbox(r);
    let code: string | undefined;
    try { sb.resolve('out.jsonl'); } catch (e) { code = (e as { code: string }).code; }
    expect(code).toBe('ACCESS_DENIED');
    try { sb.resolve('in.jsonl'); } catch (e) { code = (e as { code: string }).code; }
    expect(code).toBe('NOT_FOUND');
    fs.rmSync(base, { recursive: true, force: true });
  });
});
