import { constants, type Stats } from 'node:fs';
import * as path from 'node:path';
import { McpgwError, shownInput } from '../errors';
import { osError } from './os-error';
import { isPlainAbsolute, type Sandbox } from './sandbox';
import { nodeFileSystem, type FileSystem } from './file-system';

/** A descriptor opened inside the root: where it really is, and what it is. */
export interface InsideDescriptor {
  fd: number;
  /** The real path of what was opened (the kernel's name for the descriptor where it has one). */
  realPath: string;
  stats: Stats;
}

/** Per file system: whether `/proc/self/fd/N` names descriptors there (Linux); absent until first used. */
const procFd = new WeakMap<FileSystem, boolean>();

/**
 * The path the kernel gives open descriptor `fd` (Linux: the target of `/proc/self/fd/N`, which is the opened file
 * itself, whatever happened to the path it was opened by), or null where there is no such name.
 */
export function descriptorPath(fd: number, fs: FileSystem = nodeFileSystem): string | null {
  const known = procFd.get(fs);
  if (known === false) return null;
  try {
    const p = fs.readlink(`/proc/self/fd/${fd}`);
    procFd.set(fs, true);
    return p;
  } catch {
    if (known === undefined) procFd.set(fs, false);
    return null;
  }
}

/** Whether `descriptorPath` is known to name descriptors on this file system (false until a first call succeeded). */
export function descriptorPathsKnown(fs: FileSystem = nodeFileSystem): boolean {
  return procFd.get(fs) === true;
}

/** A path that reaches open folder descriptor `fd` itself (no lookup by name), or null where there is none. */
export function descriptorFolder(fd: number, fs: FileSystem = nodeFileSystem): string | null {
  return descriptorPath(fd, fs) === null ? null : `/proc/self/fd/${fd}`;
}

/**
 * Opens `real` (a path the sandbox resolved inside the root), then checks what was opened: a writer inside the root
 * can swap a folder on that path for a symlink between the check and the open. On Linux the opened descriptor's own
 * path must lie inside the root; elsewhere its device and inode must be those of `real` resolved again (symlink-free)
 * after the open. Content is then read only through the descriptor.
 * `flags` are added to O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW.
 * @throws McpgwError ACCESS_DENIED (what was opened lies outside the root, or permission), NOT_FOUND (it vanished),
 *   INVALID_ARGUMENT (a socket), IO_ERROR.
 */
export function openInside(sandbox: Sandbox, real: string, input: string, flags = 0): InsideDescriptor {
  const fs = sandbox.fs;
  let fd: number;
  try {
    fd = fs.open(real, OPEN_FLAGS | flags);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new McpgwError('NOT_FOUND', `No such file: ${shownInput(input)}`, { hint: 'It was removed or moved while it was opened.' });
    // The resolved path ends in no symlink: one there now was put there after the check.
    if (code === 'ELOOP') throw changed(input);
    throw osError(err, input, 'open');
  }
  try {
    const stats = fs.fstat(fd);
    const named = descriptorPath(fd, fs);
    if (named !== null) {
      if (!sandbox.contains(named)) throw changed(input);
      return { fd, realPath: named, stats };
    }
    let again: string;
    let st: Stats;
    try {
      again = fs.realpath(real);
      st = fs.stat(again);
    } catch {
      throw changed(input);
    }
    if (again !== real || st.ino !== stats.ino || st.dev !== stats.dev) throw changed(input);
    return { fd, realPath: real, stats };
  } catch (err) {
    fs.close(fd);
    throw err;
  }
}

/**
 * Folders `openQuickly` looked at, per file system, keyed by the root (real and as configured) and the folder: whether
 * the folder's real path lies inside the root. Kept across sandboxes (a tool builds a `within` scope per call), at most
 * FOLDERS_KEPT per file system.
 */
const verifiedFolders = new WeakMap<FileSystem, Map<string, boolean>>();
const FOLDERS_KEPT = 4096;
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY | constants.O_NOFOLLOW;

/**
 * `openInside(sandbox, sandbox.resolve(input), input)` without resolving the path first, for a plain absolute path
 * (no `.`, `..` or `//`) directly inside a folder already found to lie inside the root: the path is opened as given
 * (O_NOFOLLOW) and accepted only when the kernel's own name for what was opened lies inside the root — the check that
 * decides in `openInside` too. Null when this cannot decide — no `/proc/self/fd` names (the device-and-inode check
 * needs the resolved path), a folder not yet verified, or any failure (a final link, nothing there, what was opened
 * lies outside): then the caller takes the resolving path, which gives the answer and its error exactly as before.
 * A folder is verified once (its real path inside the root) and forgotten when an open under it led outside, so a
 * search opening thousands of session files in a few folders resolves each folder, not each file. A folder swapped for
 * a link out of the root after it was verified gets its file opened — O_NONBLOCK, never read — and closed: the same
 * as a swap between `resolve` and the open.
 */
export function openQuickly(sandbox: Sandbox, input: string): InsideDescriptor | null {
  const fs = sandbox.fs;
  if (!descriptorPathsKnown(fs) || !isPlainAbsolute(input)) return null;
  const folder = path.dirname(input);
  let folders = verifiedFolders.get(fs);
  if (!folders) verifiedFolders.set(fs, (folders = new Map()));
  const key = `${sandbox.root}\0${sandbox.given}\0${folder}`;
  let verified = folders.get(key);
  if (verified === undefined) {
    // Lexically inside (as the root is spelled, really or as configured), and really inside.
    verified = sandbox.contains(folder) || sandbox.contains(folder, sandbox.given);
    if (verified) {
      try {
        verified = sandbox.contains(fs.realpath(folder));
      } catch {
        return null; // not remembered: the resolving path reports what is wrong
      }
    }
    if (folders.size >= FOLDERS_KEPT) folders.clear();
    folders.set(key, verified);
  }
  if (!verified) return null;
  let fd: number;
  try {
    fd = fs.open(input, OPEN_FLAGS);
  } catch {
    return null;
  }
  let named: string | null;
  let stats: Stats;
  try {
    stats = fs.fstat(fd);
    named = descriptorPath(fd, fs);
  } catch {
    fs.close(fd);
    return null;
  }
  if (named === null || !sandbox.contains(named)) {
    fs.close(fd);
    folders.delete(key);
    return null;
  }
  return { fd, realPath: named, stats };
}

/** The names in open folder descriptor `fd` (through the descriptor where the system allows; else by `real`). */
export function namesIn(fd: number, real: string, fs: FileSystem = nodeFileSystem): string[] {
  return fs.readdir(descriptorFolder(fd, fs) ?? real);
}

function changed(input: string): McpgwError {
  return new McpgwError('ACCESS_DENIED', `${shownInput(input)} led outside the root folder when it was opened (a link on its path changed).`, {
    hint: 'Only files under the configured root can be opened; a folder on the path was replaced by a link while it was opened.',
  });
}
