import type { FileIdentity, Format, OpenedFile, RecordSource } from './format';
import type { Limits } from './limits';
import type { FileChunk } from './records';
import type { Detection, FileAccess } from './tool';

/*
 * What the kernel asks of an engine (docs/architecture.md "Services and the container"). The kernel hosts: it opens
 * files in the sandbox, chooses their format and serves tools; the engine computes: index passes, stored indexes, scans.
 * A composition root (src/compose) registers an engine's services under `Tokens`; the kernel resolves them and never
 * imports an engine.
 */

/** What a service scope is made for (`Tokens.Scope`): a root folder (null: none), limits, the index cache's folder. */
export interface ScopeSettings {
  root: string | null;
  limits: Limits;
  /** The persistent index cache's folder and bound; null: none (every open indexes). */
  cache: { dir: string; maxBytes: number } | null;
}

/**
 * How a worker thread loads the plugin of a query language: its module file, its options as configured, and the
 * host's module that loads it there (`languageFrom(plugin, name, services)`: the kernel's loader, so a thread's
 * plugin is validated and configured as the main thread's is).
 */
export interface WorkerPlugin {
  entry: string;
  options: Record<string, unknown>;
  /** Absolute path of the host's thread loader module; absent: the engine's default (the kernel's, built). */
  loader?: string;
}

/** What `Indexer.open` is given besides the file: the formats, the limits, the caller's options, the format choice. */
export interface IndexerOpenOptions {
  formats: readonly Format[];
  limits: Limits;
  options: NonNullable<Parameters<FileAccess['open']>[1]>;
  /**
   * The kernel's format choice for a file opened without a stored index (probe, content sniff, detection, the strict
   * check); `explicitName`: the format the caller named (not `auto`). @throws McpgwError as `FileAccess.open`
   */
  choose(explicitName: string | undefined): { format: Format; detection: Detection };
}

/** A file opened as records by the engine. `close()` lets go of the source and what its index holds, not the descriptor. */
export interface IndexedFile {
  source: RecordSource;
  detection: Detection;
  close(): void;
}

/**
 * The engine's index pass behind `FileAccess.open` and `read` (`Tokens.Indexer`): a stored index of the file when the
 * persistent index cache has one, else the chosen format's open; the index stored again as it grows; chunked reads.
 */
export interface Indexer {
  /** `file` was opened in the sandbox and checked against maxFileBytes; its descriptor stays the caller's. */
  open(file: OpenedFile, options: IndexerOpenOptions): Promise<IndexedFile>;
  /** Bytes [from, to) of `file` in chunks (buffers reused once the next chunk is asked for). */
  read(file: OpenedFile, options: { from?: number; to: number; signal?: AbortSignal }): AsyncIterable<FileChunk>;
}

/** The persistent index cache of one folder (`Tokens.IndexCache`; null: none): what the kernel and tests see of it. */
export interface IndexStore {
  readonly dir: string;
  /** A stored index that fits the file open as `fd` with `identity`; null when none does. */
  lookup(fd: number, identity: FileIdentity): unknown;
}
