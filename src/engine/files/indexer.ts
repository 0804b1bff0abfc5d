import type { OpenedFile } from '../../kernel/contracts/format';
import type { FileChunk } from '../../kernel/contracts/records';
import type { IndexedFile, Indexer, IndexerOpenOptions } from '../../kernel/contracts/engine';
import type { IndexCache } from '../cache/index-cache';
import { readChunksPooled } from '../records/chunks';
import { IndexedRecordSource } from '../records/source';
import { DecodedRecordSource } from '../records/decoded-source';
import type { RecordSource } from '../../kernel/contracts/format';
import { releaseAfterClose } from '../memory';

/**
 * The engine's index pass behind the kernel's `FileAccess.open` (`Tokens.Indexer`): a stored index of the file (the
 * persistent index cache, docs/architecture.md "Persistent index") spares the probe and the pass; else the format the
 * kernel chooses opens the file (its streaming index pass); the index is stored, and stored again when it grew with the
 * file while open. Closing lets go of the source, of a lazily read entry, and has a big file's buffers collected.
 */
export class EngineIndexer implements Indexer {
  constructor(private readonly cache: IndexCache | null = null) {}

  async open(file: OpenedFile, { formats, limits, options, choose }: IndexerOpenOptions): Promise<IndexedFile> {
    /** A stored index read lazily keeps its entry file open: let go when the source closes or the open fails. */
    let lazy: { release(): void } | null = null;
    try {
      const from = options.from !== undefined && Number.isInteger(options.from) && options.from > 0 && options.from <= file.identity.size ? options.from : undefined;
      const explicitName = options.format !== undefined && options.format !== 'auto' ? options.format : undefined;
      // A stored index of this very file (or of its first bytes, when it only grew) spares the probe and the pass.
      const hit = this.cache && from === undefined ? this.cache.lookup(file.fd, file.identity) : null;
      lazy = hit?.index ?? null;
      let chosen: ReturnType<IndexerOpenOptions['choose']> | null = null;
      if (hit && !options.strictFormat && (explicitName === undefined ? hit.entry.detection.basis !== 'explicit' : hit.entry.format === explicitName)) {
        const format = formats.find((f) => f.name === hit.entry.format);
        if (format) chosen = { format, detection: explicitName === undefined ? hit.entry.detection : { basis: 'explicit', confidence: 1 } };
      }
      const { format, detection } = chosen ?? choose(explicitName);
      const restore = hit && hit.entry.format === format.name ? hit : null;
      const openOptions = { limits, signal: options.signal, onProgress: options.onProgress, ...(from !== undefined ? { from } : {}) };
      let source = restore
        ? await format.open(restore.fit === 'grown' ? { ...file, identity: restore.identity } : file, {
            ...openOptions,
            restored: { index: restore.index, end: restore.entry.end, ...(restore.entry.rootType !== undefined ? { rootType: restore.entry.rootType } : {}), state: restore.entry.state },
          })
        : await format.open(file, openOptions);
      // A stored index of a file that grew since: extended over the appended bytes, or (too much appended, or the
      // stored records no longer where the index says: a rewrite, not an append) rebuilt. A stored index of the file
      // as it is, read whole at open, is checked against it too (IndexedRecordSource.indexFitsFile); one read a block
      // at a time is checked by each record read whole: an entry is never trusted blindly.
      if (restore && (restore.fit === 'grown' ? !source.grow?.(file.identity) : restore.index.unreadBlocks === 0 && !(indexed(source)?.indexFitsFile({ whole: false }) ?? true))) {
        source.close();
        this.cache!.forget(file.identity);
        source = await format.open(file, openOptions);
      }
      const kernel = indexed(source);
      if (restore && kernel?.restoredWithoutPass) this.cache!.note('opened from the stored index without a pass', { format: format.name, records: kernel.count, grown: restore.fit === 'grown' });
      if (this.cache && from === undefined && kernel) {
        const cache = this.cache;
        kernel.onIndexMismatch = () => cache.forget(file.identity);
      }
      let saved = restore?.fit === 'same' ? source.identity.size : -1;
      const persist = () => {
        const kernel = indexed(source);
        if (!this.cache || from !== undefined || !kernel || kernel.identity.size === saved) return;
        const data = kernel.persistable();
        if (data) this.cache.save(file.fd, source.identity, format.name, detection, data);
        saved = kernel.identity.size;
      };
      persist();
      const held = lazy;
      return {
        source,
        detection,
        close: () => {
          try {
            persist(); // an index that grew with the file while open is stored as it is now
            source.close();
          } finally {
            held?.release();
            // A big file's index and buffers are garbage now: have them collected, not kept until pressure.
            releaseAfterClose(file.identity.size);
          }
        },
      };
    } catch (err) {
      lazy?.release();
      throw err;
    }
  }

  read(file: OpenedFile, options: { from?: number; to: number; signal?: AbortSignal }): AsyncIterable<FileChunk> {
    return readChunksPooled(file, options);
  }
}

/** The kernel's source over the file's index: the source itself, or the one under a decoded format's (framed.ts). */
function indexed(source: RecordSource): IndexedRecordSource | null {
  if (source instanceof IndexedRecordSource) return source;
  return source instanceof DecodedRecordSource ? source.inner : null;
}
