import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import type { FileSystem } from '../contracts/file-system';

export type { FileSystem };

/** The real file system (node:fs). */
export const nodeFileSystem: FileSystem = {
  realpath: (p) => realpathSync.native(p),
  stat: (p) => statSync(p),
  lstat: (p) => lstatSync(p),
  readlink: (p) => readlinkSync(p),
  open: (p, flags) => openSync(p, flags),
  fstat: (fd) => fstatSync(fd),
  close: (fd) => closeSync(fd),
  readdir: (p) => readdirSync(p),
};
