import type { CompiledRegex, FileAccess, FileIdentity, LazyNode, OpenedSource, ScanEngine, SessionHints, SessionLayout } from 'mcpgw/plugin-api';

/** One record of a session: its position across the session's files, and its value or why it could not be read. */
export interface RecordItem {
  pos: number;
  value?: unknown;
  /** Set when the record is malformed (a line being written, broken JSON): the record is skipped and counted. */
  error?: string;
  /**
   * Set when a later record replaced this one (see `Replay`): it is no entry and no match, though what it says of
   * usage still counts (a response taken back had been paid for).
   */
  superseded?: true;
}

interface Part {
  /** Index of the file among the session's files. */
  file: number;
  opened: OpenedSource;
  /** Position of this file's first record. */
  base: number;
  /** Records in this file. */
  count: number;
  /** Document layout: the entries array. */
  entries?: LazyNode;
}

/**
 * Where to start reading a session that was read before: file `file` of its files, from byte `byte` (a record start)
 * of it, whose record there is position `pos`. Earlier files are not opened and earlier bytes not read.
 */
export interface StartAt {
  file: number;
  byte: number;
  pos: number;
}

/**
 * For sources whose records can replace earlier ones (Gemini CLI's JSON Lines write a message again under its id when
 * it changes, and take messages back): the positions, among `records` (in order), that later records replaced.
 */
export type Replay = (records: Iterable<RecordItem>) => Set<number>;

/** Records fetched per step from a document's entries array. */
const DOC_STEP = 256;

/**
 * A session opened through the kernel (sandboxed to the source homes, indexed by the format's streaming pass, never
 * held in memory): its files' records seen as one sequence of positions. JSON Lines files: one record per line;
 * a document session: the elements of its entries array, read one by one through the kernel's lazy node access.
 */
export class SessionFiles {
  /** `first`: the position of the first record held (records before it were not opened, see `StartAt`). */
  /** Positions of records a later record replaced (see `Replay`): never yielded as records. */
  private superseded: ReadonlySet<number> = new Set();

  private constructor(readonly layout: SessionLayout, private readonly parts: Part[], readonly first = 0) {}

  /**
   * Opens every file of a session. A document-layout source's session in a `.jsonl` file is read as JSON Lines (Gemini
   * CLI moved from one document to lines); `replay`, when given, names the records later ones replaced (one pass over
   * the records at open). @throws McpgwError ACCESS_DENIED (outside the homes), NOT_FOUND, SYNTAX_ERROR (a document
   * session that is not one JSON document), IO_ERROR, CANCELLED.
   */
  static async open(files: FileAccess, paths: readonly string[], layout: SessionLayout, signal?: AbortSignal, startAt?: StartAt, replay?: Replay | ReadonlySet<number>): Promise<SessionFiles> {
    if (layout.kind === 'document' && /\.jsonl$/i.test(paths[0] ?? '')) layout = { kind: 'lines' };
    const opened = await SessionFiles.openParts(files, paths, layout, signal, startAt);
    if (replay instanceof Set) opened.superseded = replay;
    else if (typeof replay === 'function' && layout.kind === 'lines') {
      const seen: RecordItem[] = [];
      for await (const item of opened.records(opened.first, signal)) if (item.error === undefined) seen.push(item);
      opened.superseded = replay(seen);
    }
    return opened;
  }

  private static async openParts(files: FileAccess, paths: readonly string[], layout: SessionLayout, signal?: AbortSignal, startAt?: StartAt): Promise<SessionFiles> {
    const parts: Part[] = [];
    let base = startAt?.pos ?? 0;
    try {
      for (let f = startAt?.file ?? 0; f < paths.length; f++) {
        const from = startAt && f === startAt.file && startAt.byte > 0 && layout.kind === 'lines' ? startAt.byte : undefined;
        const opened = await files.open(paths[f]!, { format: layout.kind === 'lines' ? 'jsonl' : 'json', signal, ...(from !== undefined ? { from } : {}) });
        if (from !== undefined && opened.source.count > 0 && opened.source.offset?.(0) !== from) {
          // The file was indexed from its start after all: read the whole session instead.
          opened.close();
          for (const part of parts) part.opened.close();
          return SessionFiles.openParts(files, paths, layout, signal);
        }
        const part: Part = { file: f, opened, base, count: 0 };
        parts.push(part);
        if (layout.kind === 'lines') part.count = opened.source.count;
        else {
          const node = opened.source.count > 0 ? opened.source.node?.(0, layout.entriesPointer) : undefined;
          if (node?.type === 'array') {
            part.entries = node;
            part.count = node.childCount ?? 0;
          }
        }
        base += part.count;
      }
    } catch (err) {
      for (const part of parts) part.opened.close();
      throw err;
    }
    return new SessionFiles(layout, parts, startAt?.pos ?? 0);
  }

  /** The positions later records replaced (see `Replay`), as found at open. */
  get replaced(): ReadonlySet<number> {
    return this.superseded;
  }

  /** Record positions across all files (those before `first` included, though not opened). */
  get count(): number {
    return this.first + this.parts.reduce((n, p) => n + p.count, 0);
  }

  /** The first file's real path (the session's path). */
  get realPath(): string {
    return this.parts[0]!.opened.realPath;
  }

  /** Real paths of the files in order. */
  get realPaths(): string[] {
    return this.parts.map((p) => p.opened.realPath);
  }

  /** What a document session says about itself at its hint pointers (JSON Lines sessions: nothing). */
  documentHints(): SessionHints {
    if (this.layout.kind !== 'document' || !this.layout.hints) return {};
    const out: SessionHints = {};
    const source = this.parts[0]?.opened.source;
    for (const [key, pointer] of Object.entries(this.layout.hints)) {
      try {
        const v = source?.node?.(0, pointer!)?.value();
        if (typeof v === 'string' && v) (out as Record<string, string>)[key] = v;
      } catch { /* absent or malformed */ }
    }
    return out;
  }

  private partOf(pos: number): Part {
    for (const p of this.parts) if (pos < p.base + p.count) return p;
    throw new RangeError(`record position ${pos} is past the session's ${this.count} records`);
  }

  /** Where record `pos` is: file (real path), record index in it, and its 1-based line for JSON Lines files. */
  locate(pos: number): { file: string; record: number; line: number | null } {
    const part = this.partOf(pos);
    const record = pos - part.base;
    let line: number | null = null;
    if (this.layout.kind === 'lines') {
      try { line = part.opened.source.location(record).line ?? null; } catch { line = null; }
    }
    return { file: part.opened.realPath, record, line };
  }

  /** Record `pos` parsed. @throws McpgwError SYNTAX_ERROR (malformed), RESOURCE_LIMIT_EXCEEDED, IO_ERROR */
  value(pos: number): unknown {
    const part = this.partOf(pos);
    const local = pos - part.base;
    if (part.entries) return part.entries.children!(local, local + 1)[0]!.node.value();
    return part.opened.source.value(local);
  }

  /**
   * Records from position `from` in order; malformed ones come with `error`, replaced ones with `superseded`. Checks
   * the signal between reads.
   */
  async *records(from = 0, signal?: AbortSignal): AsyncGenerator<RecordItem> {
    for (const part of this.parts) {
      const end = part.base + part.count;
      if (from >= end) continue;
      const local = Math.max(0, from - part.base);
      if (part.entries) {
        for (let i = local; i < part.count; i += DOC_STEP) {
          if (signal?.aborted) return;
          const kids = part.entries.children!(i, Math.min(part.count, i + DOC_STEP));
          for (const { node, index } of kids) {
            const pos = part.base + (index ?? 0);
            try { yield { pos, value: node.value() }; } catch (err) { yield { pos, error: (err as Error).message }; }
          }
          await new Promise((r) => setImmediate(r));
        }
      } else {
        for await (const batch of part.opened.source.batches({ from: local, signal })) {
          for (let k = 0; k < batch.count; k++) {
            const pos = part.base + batch.first + k;
            let item: RecordItem;
            try { item = { pos, value: batch.value(k) }; } catch (err) { item = { pos, error: (err as Error).message }; }
            if (this.superseded.has(pos)) item.superseded = true;
            yield item;
          }
        }
      }
    }
  }

  /**
   * The search's matcher over the records from position `from` on: those that can hold a match of `re` (the regex
   * service's byte prefilter; the others are not parsed) are parsed and `test`ed (with `error` when malformed), and
   * each outcome that is not null goes to `onHit` in order, until it returns false. A file of lines is one record
   * source the engine's record loop runs the matcher over (`scan.match`); a document session's entries are tested on
   * their own JSON text each.
   */
  async match<H>(scan: Pick<ScanEngine, 'match'>, re: CompiledRegex, from: number, signal: AbortSignal | undefined, test: (item: RecordItem) => H | null, onHit: (hit: H) => boolean): Promise<void> {
    const tested = (pos: number, value: () => unknown): H | null => {
      let item: RecordItem;
      try { item = { pos, value: value() }; } catch (err) { item = { pos, error: (err as Error).message }; }
      return test(item);
    };
    for (const part of this.parts) {
      if (from >= part.base + part.count) continue;
      if (part.entries) {
        // One read of the document, then the regex service's byte test on each entry's own JSON text.
        let raw: Buffer;
        let base: number;
        try {
          raw = part.opened.source.raw(0);
          base = part.opened.source.location(0).byte_offset ?? 0; // where the document's text (raw's first byte) starts
        } catch (err) {
          const hit = test({ pos: part.base, error: (err as Error).message });
          if (hit !== null && !onHit(hit)) return;
          continue;
        }
        for (let i = Math.max(0, from - part.base); i < part.count; i += DOC_STEP) {
          if (signal?.aborted) return;
          for (const { node, index } of part.entries.children!(i, Math.min(part.count, i + DOC_STEP))) {
            const at = node.byteOffset - base;
            if (!re.mayMatchJson(raw, at, at + node.byteLength)) continue;
            const hit = tested(part.base + (index ?? 0), () => node.value());
            if (hit !== null && !onHit(hit)) return;
          }
          await new Promise((r) => setImmediate(r));
        }
        continue;
      }
      let go = true;
      await scan.match<H>({
        source: part.opened.source, from: Math.max(0, from - part.base), ...(signal ? { signal } : {}),
        matcher: {
          candidates: (batch, onCandidate) => re.candidates(batch, onCandidate),
          match: (batch, k) => {
            const pos = part.base + batch.first + k;
            return this.superseded.has(pos) ? null : tested(pos, () => batch.value(k));
          },
        },
        onHit: (_record, hit) => (go = onHit(hit)),
      });
      if (!go) return;
    }
  }

  /** The 1-based line of record `pos` in its file (for a document session: the line its entry starts on). */
  lineOf(pos: number): number | null {
    const part = this.partOf(pos);
    const local = pos - part.base;
    if (!part.entries) {
      try { return part.opened.source.location(local).line ?? null; } catch { return null; }
    }
    try {
      const node = part.entries.children!(local, local + 1)[0]!.node;
      const head = part.opened.source.raw(0);
      const start = part.opened.source.location(0).byte_offset ?? 0;
      const upto = Math.max(0, Math.min(head.length, node.byteOffset - start));
      let line = part.opened.source.location(0).line ?? 1;
      for (let i = head.indexOf(10); i !== -1 && i < upto; i = head.indexOf(10, i + 1)) line++;
      return line;
    } catch {
      return null;
    }
  }

  /** Each opened file's index among the session's files, identity as opened, first record position and record count. */
  identities(): { file: number; realPath: string; identity: FileIdentity; base: number; count: number }[] {
    return this.parts.map((p) => ({ file: p.file, realPath: p.opened.realPath, identity: p.opened.source.identity, base: p.base, count: p.count }));
  }

  /** The byte offset in its file where record `pos`'s extent starts, from the index (0 for a document's entries). */
  byteOffset(pos: number): number {
    const part = this.partOf(pos);
    if (part.entries) return 0;
    const local = pos - part.base;
    return part.opened.source.offset?.(local) ?? part.opened.source.location(local).byte_offset ?? 0;
  }

  /** The real path of the file holding record `pos`. */
  fileOf(pos: number): string {
    return this.partOf(pos).opened.realPath;
  }

  close(): void {
    for (const p of this.parts) p.opened.close();
  }
}
