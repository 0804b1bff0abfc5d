import type { JsonLayout, LazyNode, RecordSource, ScanNode } from 'mcpgw/plugin-api';

/** One item of a json_read page: a whole value, or one part of a value too large for any page. */
export interface Item {
  path: string;
  value: unknown;
  /** The value is given in parts: `value` is a string, bytes `[offset, next_offset)` of the value's JSON text. */
  value_truncated?: true;
  /** Bytes of the value's whole JSON text (as in the file). */
  value_bytes?: number;
  offset?: number;
  /** Where the next part starts; absent on the last part. */
  next_offset?: number;
}

/** Where a read stopped inside an item: its path and the bytes of its text already returned. */
export interface ItemPart {
  path: string;
  offset: number;
}

/** The JSON text of a node's value as in the file, readable in parts, and its size in bytes. */
export interface ItemText {
  size: number;
  read(from: number, to: number): Buffer;
}

/**
 * The text of node `n` of a whole-file read: its bytes in the file through lazy nodes (`n.node`, or the source's
 * `node()` at its place), else its compact JSON (numbers exact). `maxReadBytes` (Limits.maxRecordBytes, which a lazy
 * node's `bytes()` refuses to exceed in one read): a part longer than it is read in several reads.
 */
export function itemText(source: RecordSource, n: ScanNode, maxReadBytes = Number.POSITIVE_INFINITY): ItemText {
  let lazy: LazyNode | undefined = n.node;
  if (!lazy && source.node) {
    const inner = source.rootIsSequence ? n.path.slice(`/${n.record}`.length) : n.path;
    try { lazy = source.node(n.record, inner); } catch { lazy = undefined; }
  }
  if (lazy?.bytes) {
    const node = lazy;
    const step = Math.max(1, maxReadBytes);
    return {
      size: node.byteLength,
      read: (from, to) => {
        if (to - from <= step) return node.bytes!(from, to);
        const pieces: Buffer[] = [];
        for (let at = from; at < to; at += step) pieces.push(node.bytes!(at, Math.min(to, at + step)));
        return Buffer.concat(pieces);
      },
    };
  }
  const text = Buffer.from(JSON.stringify(n.value) ?? 'null');
  return { size: text.length, read: (from, to) => text.subarray(from, to) };
}

/** Bytes of `value` as JSON. */
export const byteLength = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? 'null');

/**
 * The part of `text` from `offset` (a character start outside any escape) that fits `room` bytes of result JSON as
 * the item `{path, value: <part>, value_truncated, value_bytes, offset, next_offset}`: whole UTF-8 characters and whole
 * escape sequences (`layout`: the kernel's `ctx.json`), escaping counted; lone surrogate escapes come back as `\ufffd`. Always at least one character or
 * escape (a reader following next_offset always advances), or null when not even one fits `room`.
 */
export function itemPart(path: string, text: ItemText, offset: number, room: number, layout: Pick<JsonLayout, 'safeCut' | 'wellFormedText'>): Item | null {
  const safeCut = layout.safeCut.bind(layout);
  const envelope = byteLength({ path, value: '', value_truncated: true, value_bytes: text.size, offset, next_offset: text.size });
  const limit = room - envelope; // bytes the part may take, escaped, inside the result
  if (limit <= 0) return null;
  let budget = limit; // bytes of text to try
  for (;;) {
    const want = Math.min(budget, text.size - offset);
    // read a few bytes more than wanted, so a character or an escape cut at the end can be completed or dropped
    const raw = text.read(offset, Math.min(text.size, offset + want + 12));
    let end = safeCut(raw, 0, Math.min(want, raw.length));
    if (end === 0) {
      end = Math.min(raw.length, 1);
      for (let k = 1; k <= Math.min(raw.length, 12); k++) if (safeCut(raw, 0, k) === k) { end = k; break; }
    }
    // lone surrogate escapes as \ufffd: the same length, so the cost and offsets hold
    const part = layout.wellFormedText(raw.subarray(0, end).toString('utf8'));
    const cost = byteLength(part) - 2;
    if (cost <= limit) {
      const next = offset + end;
      return { path, value: part, value_truncated: true, value_bytes: text.size, offset, ...(next < text.size ? { next_offset: next } : {}) };
    }
    if (end <= 4) return null; // one character escaped does not fit
    budget = Math.max(1, Math.floor((end * limit) / cost) - 1);
  }
}
