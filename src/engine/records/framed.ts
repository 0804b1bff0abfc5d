import type { OpenOptions, OpenedFile, RecordSource } from '../../kernel/contracts/format';
import type { ChunkReadOptions, FileChunk, FramedFormat, OffsetIndex, RecordFramer } from '../../kernel/contracts/records';
import { readChunks, readChunksSync } from './chunks';
import { Float64OffsetIndex } from './offset-index';
import { IndexedRecordSource } from './source';
import { DecodedRecordSource } from './decoded-source';

/**
 * The indexing kit (`RecordsToolkit.openFramed`, docs/architecture.md "Records and formats"): a format gives its framer
 * (record starts from bytes, resumable state), the kit gives the rest — the source restored from the persistent index
 * without a pass when the stored state is the framer's, else one streaming pass; the index extended when the file only
 * grew (the framer fed the appended bytes); the source over the index (JSON records: `IndexedRecordSource`; records of
 * another syntax: `DecodedRecordSource` over the framer's `decode`), whose validation and scans report malformed
 * records. The built-in JSON Lines and JSON-seq formats are framers on it too. `read`: the pass's chunk reader.
 */
export async function openFramed(file: OpenedFile, options: OpenOptions, framed: FramedFormat, read: (file: OpenedFile, options: ChunkReadOptions) => AsyncIterable<FileChunk> = readChunks): Promise<RecordSource> {
  let framer: RecordFramer | null = null;
  let index: OffsetIndex;
  let end: number;
  const restored = options.restored;
  if (restored && options.from === undefined) framer = framed.restore(restored.index, restored.state);
  const fromState = framer !== null;
  if (framer && restored) {
    index = restored.index;
    end = restored.end;
  } else {
    const from = framed.startsAnywhere && options.from !== undefined ? options.from : 0;
    index = new Float64OffsetIndex();
    framer = framed.start(index, from);
    end = from;
    for await (const { offset, bytes } of read(file, { from, ...(options.signal ? { signal: options.signal } : {}), ...(options.onProgress ? { onProgress: options.onProgress } : {}) })) {
      framer.feed(offset, bytes);
      end = offset + bytes.length;
    }
    index.finish();
  }
  const going = framer;
  const extend = (to: number): number => {
    for (const { offset, bytes } of readChunksSync(file, { from: end, to })) going.feed(offset, bytes);
    index.finish();
    end = to;
    return to;
  };
  const source = new IndexedRecordSource({
    file,
    format: framed.format,
    rootIsSequence: true,
    index,
    end,
    framing: framed.framing,
    limits: options.limits,
    extend,
    saveState: () => going.saveState(),
    ...(going.blankLines ? { blankLines: () => going.blankLines!() } : {}),
  });
  source.restoredWithoutPass = fromState;
  return going.decode ? new DecodedRecordSource(source, (text, i) => going.decode!(text, i), options.limits) : source;
}
