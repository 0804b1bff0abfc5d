import type { CompiledQuery, HandleTable, OpenedSource, ScanPosition, ToolContext } from 'mcpgw/plugin-api';

/** One open file of the reader: what a `jf_…` id denotes. */
export interface ReaderFile {
  opened: OpenedSource;
  /**
   * Opened by an implicit read (`{path, …}`): closes itself when a read ends complete and no cursor of it remains;
   * reused by later implicit reads of the same path and format; closed first to make room for another file.
   */
  implicit: boolean;
  /** Implicit handles: the `format` and `path` they were opened with (the reuse key). */
  implicitKey?: string;
  /** ms since the epoch of the last read (least recently used implicit handles make room first). */
  lastUsed?: number;
  /**
   * Reads running on this handle. Reads on one handle run concurrently, each from its own position (a source reads
   * by offset and every scan keeps its own buffers); closing waits until none runs.
   */
  reads: number;
  /** Resolves when `reads` is back at 0 (set while reads run). */
  idle: Promise<void> | null;
  /** An implicit handle whose read completed while other reads ran: closed by the last of them, if no cursor is left. */
  closeWhenIdle?: boolean;
  /** Set by json_close or expiry: no new read or cursor may start. */
  closed: boolean;
  /** Cursor ids issued on this handle (invalidated when it closes). */
  cursors: Set<string>;
  /**
   * json_open's validation examined every record: how many were malformed, and of how many records (a file that grew
   * since has records it did not examine).
   */
  validated?: { malformedRecords: number; records: number };
}

/** Where a read continues: the compiled query and the engine's position (page N costs what page 1 costs). */
export interface ReaderCursor {
  fileId: string;
  language: string;
  query: string;
  compiled: CompiledQuery;
  position: ScanPosition;
  maxItems: number;
  maxResultBytes: number;
  /** A count (`count: true`) the deadline stopped: the nodes counted before `position`. */
  counted?: number;
  /** The page ended inside the item at `position`: the next page continues its text from here. */
  part?: { path: string; offset: number };
  /** Malformed records the read's earlier pages skipped (stats.skipped summed). */
  skippedEarlier?: number;
}

/** The session's file handles: opaque `jf_` + 16 random hex digits, idle expiry, capped at maxOpenFiles. */
export function fileTable(ctx: ToolContext): HandleTable<ReaderFile> {
  return ctx.session.handles<ReaderFile>('reader.files', {
    style: 'random',
    prefix: 'jf_',
    noun: 'file handle',
    limit: 'maxOpenFiles',
    idleMs: ctx.limits.handleIdleMs,
    max: ctx.limits.maxOpenFiles,
    // Expiry leaves the cursors to answer HANDLE_EXPIRED for their handle (json_close removes them).
    onEvict: (file) => void release(ctx, file, false),
  });
}

/** The session's cursors: opaque `jc_` + 16 random hex digits, idle expiry (cursorIdleMs), capped at maxCursors. */
export function cursorTable(ctx: ToolContext): HandleTable<ReaderCursor> {
  return ctx.session.handles<ReaderCursor>('reader.cursors', {
    style: 'random',
    prefix: 'jc_',
    noun: 'cursor',
    limit: 'maxCursors',
    idleMs: ctx.limits.cursorIdleMs,
    max: ctx.limits.maxCursors,
    expiredHint: 'Run the read again ({file_id, language, query} or {path, language, query}); a cursor lives cursorIdleMs unused.',
    usedHint: 'Each next_cursor continues once: pass the one the latest page returned, or run the read again.',
    // Full: the least recently used cursor is dropped (a client abandons cursors without a word).
    whenFull: 'evict',
  });
}

/**
 * Marks `file` closed, invalidates its cursors (unless `dropCursors` is false), and closes its source
 * once the reads running on it have ended. Resolves when the source is closed. Idempotent.
 */
export async function release(ctx: ToolContext, file: ReaderFile, dropCursors = true): Promise<void> {
  file.closed = true;
  if (dropCursors) {
    const cursors = cursorTable(ctx);
    for (const id of file.cursors) cursors.delete(id);
  }
  file.cursors.clear();
  while (file.idle) await file.idle;
  file.opened.close();
}

/** Implicit handles closed to make room: their cursors then answer HANDLE_EXPIRED saying so. */
export function evictedIds(ctx: ToolContext): Set<string> {
  return ctx.session.get('reader.evicted', () => new Set<string>());
}

/**
 * Room for one more handle: when the table is full, the least recently used implicit handle that no read is using
 * is closed (its cursors then say so), so implicit reads never lock out further opens.
 * @throws RESOURCE_LIMIT_EXCEEDED (maxOpenFiles) when every handle is explicit or busy
 */
export function makeRoom(ctx: ToolContext): void {
  const table = fileTable(ctx);
  if (table.size < ctx.limits.maxOpenFiles) return;
  let victim: [string, ReaderFile] | null = null;
  for (const [id, f] of table.entries()) {
    if (!f.implicit || f.reads > 0 || f.closed) continue;
    if (!victim || (f.lastUsed ?? 0) < (victim[1].lastUsed ?? 0)) victim = [id, f];
  }
  if (!victim) {
    throw ctx.error('RESOURCE_LIMIT_EXCEEDED', `Too many open files: the limit is ${ctx.limits.maxOpenFiles}.`, {
      limit: { name: 'maxOpenFiles', limit: ctx.limits.maxOpenFiles, value: table.size },
      hint: 'Close a file you no longer need with json_close.',
    });
  }
  const [id, f] = victim;
  table.delete(id);
  const evicted = evictedIds(ctx);
  evicted.add(id);
  if (evicted.size > 4096) evicted.delete(evicted.values().next().value!);
  void release(ctx, f, false);
}

/** The resolver of each busy handle's `idle` promise. */
const idleResolvers = new WeakMap<ReaderFile, () => void>();

/**
 * Runs `work` as one of the reads on `file`: reads on one handle run side by side (each scan has its own position and
 * buffers), `release` waits until all have ended, and an implicit handle whose read completed while others ran is
 * closed by the last of them (when no cursor of it remains).
 */
export async function withRead<T>(ctx: ToolContext, fileId: string, file: ReaderFile, work: () => Promise<T>): Promise<T> {
  file.lastUsed = ctx.clock.now();
  if (file.reads++ === 0) file.idle = new Promise<void>((resolve) => idleResolvers.set(file, resolve));
  try {
    return await work();
  } finally {
    if (--file.reads === 0) {
      const resolveIdle = idleResolvers.get(file);
      idleResolvers.delete(file);
      file.idle = null;
      resolveIdle?.();
      if (file.closeWhenIdle && !file.closed && file.cursors.size === 0 && fileId !== '') {
        file.closeWhenIdle = false;
        if (fileTable(ctx).delete(fileId)) void release(ctx, file);
      }
    }
  }
}
