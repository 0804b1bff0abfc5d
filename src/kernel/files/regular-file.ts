import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/**
 * A path in a cache folder is not a regular file (a FIFO, a device, a folder): it is not read. `notRegular` says what
 * it is (the engine's index cache, which opens its entries with {@link openRegularFile}, reads it by that name).
 */
export class NotARegularFile extends Error {
  constructor(readonly path: string, readonly kind: string) {
    super(`${path} is ${kind}, not a regular file`);
  }

  get notRegular(): string {
    return this.kind;
  }
}

/**
 * Opens `path` for reading in a folder others may write into (the caches): without following a symlink, and without
 * blocking (`O_NONBLOCK`: opening a FIFO for reading otherwise waits for a writer, and the event loop with it), then
 * checks on the descriptor that it is a regular file.
 * @throws NotARegularFile (the descriptor is closed); the file system's errors (ENOENT, ELOOP for a symlink, …)
 */
export function openRegularFile(path: string): number {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  let st;
  try {
    st = fstatSync(fd);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  if (!st.isFile()) {
    closeSync(fd);
    throw new NotARegularFile(path, st.isFIFO() ? 'a FIFO' : st.isDirectory() ? 'a folder' : st.isSocket() ? 'a socket' : 'a device or other special file');
  }
  return fd;
}

/** The text of the regular file at `path`, read as {@link openRegularFile} opens it. */
export function readRegularFile(path: string): string {
  const fd = openRegularFile(path);
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
