/**
 * A file system for sandbox tests (registered under `Tokens.FileSystem`, or given to `new Sandbox(root, fs)`): the
 * real one underneath, with scripted faults and hooks at exact calls — what a real file system under test cannot give:
 * EACCES while the tests run as root, a system without `/proc/self/fd`, a writer acting at one exact step between the
 * sandbox's check and its open. Every call is recorded in `calls`.
 */
import { constants } from 'node:os';
import { nodeFileSystem, type FileSystem } from '../../src/kernel/files/file-system';

export type FsCall = keyof FileSystem;
type Match = RegExp | ((arg: string) => boolean);
interface Rule { call: FsCall; match: Match; run: (arg: string) => void; once: boolean; used: boolean }

/** A Node system error as node:fs throws it (`code`, negative `errno`, `syscall`, `path`). */
export function systemError(code: string, syscall: string, p: string): NodeJS.ErrnoException {
  const errno = (constants.errno as Record<string, number>)[code] ?? 0;
  return Object.assign(new Error(`${code}: scripted failure, ${syscall} '${p}'`), { code, errno: -errno, syscall, path: p });
}

export class ScriptedFileSystem implements FileSystem {
  /** Every call made, in order, with its path (or descriptor). */
  readonly calls: [FsCall, string][] = [];
  private readonly rules: Rule[] = [];

  constructor(private readonly inner: FileSystem = nodeFileSystem) {}

  /** `call` on a path matching `match` fails with system error `code` (every time, or only the first with `once`). */
  fail(call: FsCall, match: Match, code: string, options: { once?: boolean } = {}): this {
    this.rules.push({ call, match, run: (p) => { throw systemError(code, call, p); }, once: !!options.once, used: false });
    return this;
  }

  /** Runs `hook` just before `call` on a path matching `match` (a writer acting at that exact step), once by default. */
  before(call: FsCall, match: Match, hook: (arg: string) => void, options: { once?: boolean } = { once: true }): this {
    this.rules.push({ call, match, run: hook, once: options.once !== false, used: false });
    return this;
  }

  /** A system without `/proc/self/fd`: reading those links fails with ENOENT. */
  withoutProcFd(): this {
    return this.fail('readlink', /^\/proc\/self\/fd\//, 'ENOENT');
  }

  private step(call: FsCall, arg: string): void {
    this.calls.push([call, arg]);
    for (const r of this.rules) {
      if (r.call !== call || (r.once && r.used)) continue;
      if (typeof r.match === 'function' ? !r.match(arg) : !r.match.test(arg)) continue;
      r.used = true;
      r.run(arg);
    }
  }

  realpath(p: string) { this.step('realpath', p); return this.inner.realpath(p); }
  stat(p: string) { this.step('stat', p); return this.inner.stat(p); }
  lstat(p: string) { this.step('lstat', p); return this.inner.lstat(p); }
  readlink(p: string) { this.step('readlink', p); return this.inner.readlink(p); }
  open(p: string, flags: number) { this.step('open', p); return this.inner.open(p, flags); }
  fstat(fd: number) { this.step('fstat', String(fd)); return this.inner.fstat(fd); }
  close(fd: number) { this.step('close', String(fd)); this.inner.close(fd); }
  readdir(p: string) { this.step('readdir', p); return this.inner.readdir(p); }
}
