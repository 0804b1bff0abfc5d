import type { OpenedSource, ToolContext } from 'mcpgw/plugin-api';
import { forgetKeptTexts } from './records';

/** One open file of the explorer: what `open_file` returned a handle for. */
export interface ExplorerFile {
  opened: OpenedSource;
  /** Malformed records in the whole file, when known (the open-time validation covered it). */
  malformedRecords: number | null;
  /** What the validation at open examined (get_file_info shows it; open_file only when it found malformed records). */
  validation?: { complete: boolean; records_examined: number; bytes_examined: number; malformed_records: number };
  /** Records the validation at open found escaping a lone surrogate (RFC 8259 §8.2), when it ran. */
  loneSurrogates?: number;
}

/** The session's explorer handles: `file_1`, `file_2`, … (Thoth's style), idle expiry, capped at maxOpenFiles. */
export function fileTable(ctx: ToolContext) {
  return ctx.session.handles<ExplorerFile>('explore.files', {
    style: 'counter',
    prefix: 'file_',
    noun: 'file handle',
    limit: 'maxOpenFiles',
    idleMs: ctx.limits.handleIdleMs,
    max: ctx.limits.maxOpenFiles,
    onEvict: (f) => { forgetKeptTexts(f); f.opened.close(); },
  });
}

/**
 * The open file behind `handle`, checked unchanged on disk.
 * @throws NOT_FOUND (unknown handle), HANDLE_EXPIRED, SOURCE_CHANGED
 */
export function fileFor(ctx: ToolContext, handle: string): ExplorerFile {
  const file = fileTable(ctx).get(handle);
  ctx.files.verify(file.opened.source, file.opened.realPath);
  return file;
}

/** Checks a record index against the file. @throws INVALID_ARGUMENT */
export function checkIndex(ctx: ToolContext, file: ExplorerFile, index: number): void {
  const count = file.opened.source.count;
  if (!Number.isInteger(index) || index < 0 || index >= count) {
    throw ctx.error('INVALID_ARGUMENT', count === 0
      ? `Record index ${index} is out of range: the file has no records.`
      : `Record index ${index} is out of range: the file has ${count} records (0..${count - 1}).`, {
      hint: 'Indexes are zero-based; get_record_count gives the count.',
    });
  }
}
