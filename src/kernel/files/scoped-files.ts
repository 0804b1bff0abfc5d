import * as path from 'node:path';
import type { Format, RecordSource } from '../contracts/format';
import type { Limits } from '../contracts/limits';
import type { FileAccess, FileListing, OpenedSource, RawFile } from '../contracts/tool';
import type { FileChunk } from '../contracts/records';
import { clipText, McpgwError } from '../errors';
import { FileService } from './file-service';
import { Sandbox } from './sandbox';
import type { FileSystem } from './file-system';
import type { Clock } from '../contracts/clock';
import type { Indexer } from '../contracts/engine';

/** A sandbox whose display paths are absolute (files outside the root have no root to be relative to): as the caller spelled them, `.`/`..` folded. */
class AbsoluteSandbox extends Sandbox {
  override relative(real: string): string {
    return real;
  }
}

interface Wall {
  /** The folder as given (absolute) and its real path. */
  given: string;
  sandbox: Sandbox;
  files: FileService;
}

/**
 * `FileAccess.within`: file access confined to several folders, each a wall like the root (the same sandbox, safe
 * open and format selection). A path is routed to the folder that contains it lexically (as given or as its real
 * path); that folder's sandbox then decides on real paths, so a symlink from one folder into another is refused.
 */
export class ScopedFiles implements FileAccess {
  private readonly walls: Wall[] = [];

  /** `system`: the file system, clock and indexer of the FileAccess it narrows (default node:fs and the system clock). */
  constructor(folders: readonly string[], private readonly formats: () => readonly Format[], private readonly limits: Limits, private readonly system: { fs?: FileSystem; clock?: Clock; indexer?: Indexer | null } = {}) {
    for (const folder of folders) {
      if (typeof folder !== 'string' || !path.isAbsolute(folder)) continue;
      let sandbox: Sandbox;
      try {
        sandbox = new AbsoluteSandbox(folder, system.fs);
      } catch {
        continue; // a folder that does not exist (yet) holds nothing to read
      }
      this.walls.push({ given: path.resolve(folder), sandbox, files: new FileService(sandbox, formats, limits, system.clock, system.indexer ?? null) });
    }
  }

  /** The real paths of the folders that exist. */
  get folders(): string[] {
    return this.walls.map((w) => w.sandbox.root);
  }

  private wallFor(input: string): Wall {
    if (typeof input !== 'string' || input.length === 0) throw new McpgwError('INVALID_ARGUMENT', 'The path is empty.');
    if (input.includes('\0')) throw new McpgwError('INVALID_ARGUMENT', 'The path contains a NUL byte.');
    if (!path.isAbsolute(input)) {
      throw new McpgwError('INVALID_ARGUMENT', `${quote(input)} is not an absolute path.`, { hint: 'Give the full path, as the listing tools return it.' });
    }
    const lexical = path.resolve(input);
    const wall = this.walls.find((w) => w.sandbox.contains(lexical) || w.sandbox.contains(lexical, w.given));
    if (!wall) {
      throw new McpgwError('ACCESS_DENIED', `${quote(input)} is outside the folders this tool may read.`, {
        hint: this.walls.length ? `Readable folders: ${this.folders.join(', ')}.` : 'No readable folder is configured or present.',
      });
    }
    return wall;
  }

  open(input: string, options?: Parameters<FileAccess['open']>[1]): Promise<OpenedSource> {
    try {
      return this.wallFor(input).files.open(input, options);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  verify(source: RecordSource, realPath: string): void {
    this.wallFor(realPath).files.verify(source, realPath);
  }

  list(input: string | undefined, options?: Parameters<NonNullable<FileAccess['list']>>[1]): Promise<FileListing> {
    if (input === undefined || input === '') {
      return Promise.reject(new McpgwError('INVALID_ARGUMENT', 'Give the absolute path of a folder to list.'));
    }
    try {
      return this.wallFor(input).files.list(input, options);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  async *read(input: string, options?: { from?: number; to?: number; signal?: AbortSignal }): AsyncGenerator<FileChunk> {
    yield* this.wallFor(input).files.read(input, options);
  }

  openRaw(input: string): RawFile {
    return this.wallFor(input).files.openRaw(input);
  }

  /** The real path of `input` when it lies inside one of the folders. @throws ACCESS_DENIED, NOT_FOUND, INVALID_ARGUMENT */
  resolve(input: string): string {
    return this.wallFor(input).sandbox.resolve(input);
  }

  within(folders: readonly string[]): FileAccess {
    return new ScopedFiles(folders, this.formats, this.limits, this.system);
  }
}

/** A path quoted for a message, cut past 200 characters with its length stated. */
function quote(p: string): string {
  return p.length > 200 ? `${JSON.stringify(clipText(p, 200))}… (${p.length} characters)` : JSON.stringify(p);
}
