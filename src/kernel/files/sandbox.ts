import * as path from 'node:path';
import { McpgwError, shownInput } from '../errors';
import { osError } from './os-error';
import { nodeFileSystem, type FileSystem } from './file-system';

/**
 * The root sandbox (docs/architecture.md "The root is a wall"). Resolves a user path to a real path inside the
 * root, or throws:
 * - INVALID_ARGUMENT: empty path, NUL byte;
 * - ACCESS_DENIED: `..` escapes, absolute paths elsewhere, symlinks that leave the root, sibling
 *   folders that merely share the root's name as a prefix (`/data` vs `/data-other`);
 * - NOT_FOUND: nothing there (checked only after containment, so paths outside the root never
 *   reveal whether they exist).
 * Relative paths resolve against the root. Containment is decided on path segments (`path.relative`, or for a
 * plain absolute path the root followed by a separator: {@link startsInside}), never on bare string prefixes. Every
 * system call goes through `fs` (`Tokens.FileSystem`; a test gives a scripted one), and so do the opens of
 * descriptor.ts.
 */
export class Sandbox {
  /** The root's real path. */
  readonly root: string;
  /** The root as configured (absolute, symlinks not resolved): absolute paths may be spelled through it. */
  readonly given: string;

  /**
   * `fs`: the system calls to resolve and open with (default node:fs).
   * @throws McpgwError NOT_FOUND / INVALID_ARGUMENT when the root is missing or not a folder.
   */
  constructor(root: string, readonly fs: FileSystem = nodeFileSystem) {
    let real: string;
    try {
      real = fs.realpath(root);
    } catch {
      throw new McpgwError('NOT_FOUND', `The root folder ${root} does not exist.`);
    }
    if (!fs.stat(real).isDirectory()) throw new McpgwError('INVALID_ARGUMENT', `The root ${root} is not a folder.`);
    this.root = real;
    this.given = path.resolve(root);
  }

  /**
   * True when `real` is the root or inside it. An absolute POSIX path without `.`/`..` segments or doubled slashes
   * that starts with the root and a separator is inside it, decided on the string (a sandbox checks thousands of
   * session files per search); any other path goes through `path.relative`.
   */
  contains(real: string, root: string = this.root): boolean {
    if (startsInside(real, root)) return true;
    const rel = path.relative(root, real);
    return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel));
  }

  /** The real path of `input` inside the root. */
  resolve(input: string): string {
    if (typeof input !== 'string' || input.length === 0) {
      throw new McpgwError('INVALID_ARGUMENT', 'The path is empty.', { hint: 'Give a path relative to the root, e.g. "logs/app.jsonl".' });
    }
    if (input.includes('\0')) throw new McpgwError('INVALID_ARGUMENT', 'The path contains a NUL byte.');
    const lexical = isPlainAbsolute(input) ? input : path.resolve(this.root, input);
    // Lexically inside the real root or the root as configured; the realpath check below decides.
    if (!this.contains(lexical) && !this.contains(lexical, this.given)) throw this.denied(input);
    let real: string;
    try {
      real = this.fs.realpath(lexical);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        // Only say NOT_FOUND when the nearest existing ancestor is itself inside the root.
        const ancestor = this.nearestExisting(lexical);
        if (ancestor !== null && !this.contains(ancestor)) throw this.denied(input);
        // A dangling symlink whose target lies outside must not reveal whether that target exists.
        const target = this.danglingTarget(lexical);
        if (target !== null && !this.contains(target)) throw this.denied(input);
        throw new McpgwError('NOT_FOUND', `No such file: ${shownInput(input)}`, { hint: 'Paths are relative to the root; list_files shows what is there.' });
      }
      throw osError(err, input, 'resolve');
    }
    if (!this.contains(real)) throw this.denied(input);
    return real;
  }

  /** Path of a real path relative to the root, `/`-separated (`""` for the root). */
  relative(real: string): string {
    return path.relative(this.root, real).split(path.sep).join('/');
  }

  /**
   * The path shown for `input` (which resolved to `real`): relative to the root as the caller spelled it, `.` and
   * `..` segments folded, symlinks not followed (`in.jsonl`, a link to `edge.jsonl`, is shown as `in.jsonl`), so a
   * client finds the path it asked for in the answer. A spelling outside both forms of the root is shown by its real path.
   */
  shown(input: string, real: string): string {
    const lexical = isPlainAbsolute(input) ? input : path.resolve(this.root, input);
    for (const root of [this.root, this.given]) {
      if (startsInside(lexical, root) || this.contains(lexical, root)) {
        const rel = path.relative(root, lexical);
        if (rel !== '') return this.relative(path.join(this.root, rel));
      }
    }
    return this.relative(real);
  }

  private danglingTarget(p: string): string | null {
    try {
      if (!this.fs.lstat(p).isSymbolicLink()) return null;
      return path.resolve(path.dirname(p), this.fs.readlink(p));
    } catch {
      return null;
    }
  }

  private nearestExisting(p: string): string | null {
    let cur = path.dirname(p);
    for (;;) {
      try {
        return this.fs.realpath(cur);
      } catch {
        const up = path.dirname(cur);
        if (up === cur) return null;
        cur = up;
      }
    }
  }

  private denied(input: string): McpgwError {
    return new McpgwError('ACCESS_DENIED', `${shownInput(input)} is outside the root folder.`, {
      hint: 'Only files under the configured root can be opened; use a path relative to it.',
    });
  }
}

/** A `.` or `..` segment, or an empty one (`//`), in a `/`-separated path. */
const NOT_NORMAL = /\/\/|\/\.\.?(?:\/|$)/;

/** True when `p` is an absolute POSIX path that `path.resolve` leaves as it is (no `.`, `..`, `//`, trailing `/`). */
export function isPlainAbsolute(p: string): boolean {
  return path.sep === '/' && p.charCodeAt(0) === 0x2f && (p.length === 1 || p.charCodeAt(p.length - 1) !== 0x2f) && !NOT_NORMAL.test(p);
}

/**
 * True when the plain absolute path `real` is `root` or lies under it, by its segments (`/data-other` is not under
 * `/data`). False means "not decided here" (the caller asks `path.relative`). `root` is absolute and normalized.
 */
export function startsInside(real: string, root: string): boolean {
  if (!real.startsWith(root) || !isPlainAbsolute(real)) return false;
  const n = root.length;
  return real.length === n || real.charCodeAt(n) === 0x2f || root.charCodeAt(n - 1) === 0x2f;
}
