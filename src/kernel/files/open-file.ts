import { closeSync, readSync, statSync } from 'node:fs';
import type { FileIdentity, OpenedFile } from '../contracts/format';
import { McpgwError, shownInput } from '../errors';
import { openInside, openQuickly } from './descriptor';
import type { Sandbox } from './sandbox';

/**
 * Opens a path inside the sandbox read-only: resolved inside the root, opened, and what was opened checked to lie
 * inside the root (descriptor.ts: a link swapped in between is caught); every read then goes through the descriptor.
 * A plain absolute path in a folder already verified skips the resolving (`openQuickly`, the same check after the open).
 * O_NONBLOCK makes opening a FIFO return at once (it would otherwise wait for a writer); fstat then refuses
 * anything that is not a regular file.
 * @throws McpgwError INVALID_ARGUMENT (folder, FIFO, device, socket), and the sandbox's errors.
 */
export function openInSandbox(sandbox: Sandbox, input: string): OpenedFile {
  const { fd, realPath, stats: st } = openQuickly(sandbox, input) ?? openInside(sandbox, sandbox.resolve(input), input);
  if (!st.isFile()) {
    closeSync(fd);
    const kind = st.isDirectory() ? 'a folder' : st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : 'a device';
    throw new McpgwError('INVALID_ARGUMENT', `${shownInput(input)} is ${kind}, not a regular file.`, {
      hint: st.isDirectory() ? 'Give the path of a file inside it; list_files shows the files.' : undefined,
    });
  }
  return { realPath, displayPath: sandbox.shown(input, realPath), fd, identity: identityOf(st) };
}

export function identityOf(st: { size: number; mtimeMs: number; ctimeMs: number; ino: number; dev: number }): FileIdentity {
  return { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, inode: st.ino, dev: st.dev };
}

/** Reads the first `n` bytes (fewer when the file is shorter). */
export function readHead(file: OpenedFile, n: number): Buffer {
  const buf = Buffer.allocUnsafe(Math.min(n, file.identity.size));
  let done = 0;
  while (done < buf.length) {
    const got = readSync(file.fd, buf, done, buf.length - done, done);
    if (got === 0) break;
    done += got;
  }
  return buf.subarray(0, done);
}

/**
 * Checks that the file at `realPath` is the one that was opened, unchanged — or only grew, when `grow` extends the
 * index over the appended bytes (see `RecordSource.grow`).
 * @throws McpgwError SOURCE_CHANGED naming what changed.
 */
export function verifyIdentity(realPath: string, displayPath: string, opened: FileIdentity, grow?: (now: FileIdentity) => boolean): void {
  let st;
  try {
    st = statSync(realPath);
  } catch {
    throw new McpgwError('SOURCE_CHANGED', `${displayPath} was removed after it was opened.`, { hint: 'Open it again.' });
  }
  const now = identityOf(st);
  // A file that only grew (appended to, its indexed prefix unchanged) extends its index instead.
  if (grow && now.inode === opened.inode && now.dev === opened.dev && now.size > opened.size && grow(now)) return;
  const changed =
    now.inode !== opened.inode || now.dev !== opened.dev ? 'was replaced' :
    now.size !== opened.size ? `changed size (${opened.size} → ${now.size} bytes)` :
    now.mtimeMs !== opened.mtimeMs || now.ctimeMs !== opened.ctimeMs ? 'was modified' : null;
  if (changed) throw new McpgwError('SOURCE_CHANGED', `${displayPath} ${changed} after it was opened.`, { hint: 'Open it again to read the new content.' });
}

export function closeQuietly(fd: number): void {
  try { closeSync(fd); } catch { /* already closed */ }
}
