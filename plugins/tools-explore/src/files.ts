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
    onEvict: (f) => closeWhenUnused(f),
  });
}

/** Calls reading each file now, and its close when it was asked for while they ran. */
const inUse = new WeakMap<ExplorerFile, { calls: number; close: boolean }>();
/** The files each running call took through {@link fileFor}. */
const callFiles = new WeakMap<ToolContext, Set<ExplorerFile>>();

/**
 * Closes `file` (close_file, idle expiry, the session's end) once no call reads it: callers sharing a handle (one
 * 2026-era token) may close it while another's search runs, which then answers from its own file — its descriptor is
 * not closed under it, so a file opened meanwhile never takes its descriptor number and its place in the read.
 */
export function closeWhenUnused(file: ExplorerFile): void {
  forgetKeptTexts(file);
  const use = inUse.get(file);
  if (use && use.calls > 0) {
    use.close = true;
    return;
  }
  file.opened.close();
}

/** Ends the call `ctx`'s use of the files it took; a file closed meanwhile closes now. */
export function endCall(ctx: ToolContext): void {
  const files = callFiles.get(ctx);
  if (!files) return;
  callFiles.delete(ctx);
  for (const file of files) {
    const use = inUse.get(file)!;
    if (--use.calls === 0 && use.close) {
      use.close = false;
      closeWhenUnused(file);
    }
  }
}

function beginUse(ctx: ToolContext, file: ExplorerFile): void {
  let files = callFiles.get(ctx);
  if (!files) callFiles.set(ctx, (files = new Set()));
  if (files.has(file)) return;
  files.add(file);
  let use = inUse.get(file);
  if (!use) inUse.set(file, (use = { calls: 0, close: false }));
  use.calls++;
}

/**
 * The open file behind `handle`, checked unchanged on disk; it stays open until the call ends ({@link endCall}).
 * @throws NOT_FOUND (unknown handle), HANDLE_EXPIRED, SOURCE_CHANGED
 */
export function fileFor(ctx: ToolContext, handle: string): ExplorerFile {
  const file = fileTable(ctx).get(handle);
  ctx.files.verify(file.opened.source, file.opened.realPath);
  beginUse(ctx, file);
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
