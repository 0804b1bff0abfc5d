import { McpgwError, osErrorName, shownInput } from '../errors';

/**
 * Operating-system errors (Node's `SystemError`: `code` "ELOOP", `syscall` "open", `path` the absolute path it was
 * given) turned into catalogue errors that name the path as the caller gave it (relative to the root) — never the
 * system's message, which quotes the absolute path and so the server's folder layout.
 *
 * | errno                  | code              |
 * |------------------------|-------------------|
 * | ENOENT, ENOTDIR        | NOT_FOUND         |
 * | EACCES, EPERM          | ACCESS_DENIED     |
 * | ELOOP                  | INVALID_ARGUMENT  (too many levels of symbolic links) |
 * | ENAMETOOLONG           | INVALID_ARGUMENT  (a name over 255 bytes, a path over 4,096) |
 * | EISDIR, ENXIO, ENODEV  | INVALID_ARGUMENT  (not a regular file) |
 * | EMFILE, ENFILE         | RESOURCE_LIMIT_EXCEEDED (open files) |
 * | anything else          | IO_ERROR naming the errno and the operation |
 *
 * @param err what the system call threw
 * @param shown the path as the caller gave it (quoted cut past 200 characters)
 * @param action what was being done, for IO_ERROR: "open", "resolve", "read"
 */
export function osError(err: unknown, shown: string, action: string): McpgwError {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const p = shownInput(shown);
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new McpgwError('NOT_FOUND', `No such file: ${p}`, { hint: 'Paths are relative to the root; list_files shows what is there.' });
    case 'EACCES':
    case 'EPERM':
      return new McpgwError('ACCESS_DENIED', `Permission denied: ${p}`, { hint: 'The server may not read it; its owner can change its permissions.' });
    case 'ELOOP':
      return new McpgwError('INVALID_ARGUMENT', `Too many levels of symbolic links: ${p}`, { hint: 'A symbolic link on the path leads back to itself.' });
    case 'ENAMETOOLONG':
      return new McpgwError('INVALID_ARGUMENT', `The path is longer than the system allows: ${p}`, { hint: 'Paths are at most 4096 bytes, each name at most 255.' });
    case 'EISDIR':
    case 'ENXIO':
    case 'ENODEV':
      return new McpgwError('INVALID_ARGUMENT', `${p} is not a regular file.`, { hint: 'Give the path of a file; list_files shows the files.' });
    case 'EMFILE':
    case 'ENFILE':
      return new McpgwError('RESOURCE_LIMIT_EXCEEDED', `Cannot ${action} ${p}: the server has too many files open.`, { hint: 'Close files you no longer need (close_file, json_close) and try again.' });
    default:
      return new McpgwError('IO_ERROR', `Cannot ${action} ${p}: ${osErrorName(err)}.`);
  }
}
