import type { Stats } from 'node:fs';

/**
 * The system calls by which the sandbox resolves a path and opens what it names (`Tokens.FileSystem`; node:fs's
 * synchronous calls, `nodeFileSystem` in files/file-system.ts). Errors are Node's system errors (`code` "ENOENT",
 * "EACCES", "ELOOP"…), which the sandbox maps to catalogue codes (files/os-error.ts). A test registers another implementation to reach what a
 * real file system under test cannot: EACCES when the tests run as root, a system without `/proc/self/fd`, a link
 * swapped in at one exact step between the check and the open (docs/architecture.md "The root is a wall").
 * Reading an opened descriptor is not part of it: content is read through the descriptor the sandbox returned.
 */
export interface FileSystem {
  /** The canonical path of `p`, every link resolved (realpath(3)). */
  realpath(p: string): string;
  /** Follows links. */
  stat(p: string): Stats;
  /** Does not follow a final link. */
  lstat(p: string): Stats;
  /** The target of link `p`, as stored. */
  readlink(p: string): string;
  /** open(2) with `flags` (fs.constants); returns the descriptor. */
  open(p: string, flags: number): number;
  fstat(fd: number): Stats;
  close(fd: number): void;
  /** The names in folder `p` (no `.` and `..`), in the system's order. */
  readdir(p: string): string[];
}
