import { readSync } from 'node:fs';
import type { LazyNode, RecordWarning } from '../../kernel/contracts/format';
import { clipText, McpgwError, osErrorName } from '../../kernel/errors';
import { isJsonWhitespace as isWs, jsonEndsInEscape, jsonStringBodyEnd } from '../bytes/json-walk';
import { parsePointer as parseRfc6901, PointerSyntaxError } from '../paths/pointer';
import { indexContainerSync, scanFault, type ContainerIndex, type StructureCache } from './json-index';
import { JsonScanError } from './json-scan';
import { decodeUtf8, parseExact } from './parse';

/** What lazy nodes need from their source. */
export interface LazyContext {
  fd: number;
  displayPath: string;
  maxRecordBytes: number;
  maxDepth: number;
  cache: StructureCache;
  /** The record the nodes belong to (for error locations). */
  recordIndex: number;
}

/**
 * File bytes already in memory: `buf` holds bytes `[base, base + buf.length)` of the file. Children listed
 * together share one read (see GROUP_BYTES), and everything below a node read whole is served from its bytes.
 */
export interface HeldBytes {
  buf: Buffer;
  base: number;
}

/** Containers cached on demand beyond the ones indexed at open; past this the on-demand part is cleared. */
const MAX_CACHED = 4096;

/** `children(from, to)` reads consecutive children in one read of at most this many bytes. */
export const GROUP_BYTES = 4 * 1024 * 1024;

function readAt(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    let n: number;
    try { n = readSync(fd, buf, done, length - done, offset + done); }
    catch (err) { throw new McpgwError('IO_ERROR', `Reading failed: ${osErrorName(err)}.`, { cause: err }); }
    if (n === 0) throw new McpgwError('SOURCE_CHANGED', 'The file is shorter than when it was opened.', { hint: 'Open the file again.' });
    done += n;
  }
  return buf;
}

/** Bytes `[offset, offset + length)` of the file: from `held` when it covers them, else one positional read. */
function bytesAt(ctx: LazyContext, held: HeldBytes | undefined, offset: number, length: number): Buffer {
  if (held && offset >= held.base && offset + length <= held.base + held.buf.length) {
    return held.buf.subarray(offset - held.base, offset - held.base + length);
  }
  return readAt(ctx.fd, offset, length);
}

/** True when `held` covers `[s, e)`. */
const covers = (held: HeldBytes | undefined, s: number, e: number) => !!held && s >= held.base && e <= held.base + held.buf.length;

/**
 * Parses an RFC 6901 JSON Pointer into reference tokens (§3: `~1` is `/`, `~0` is `~`) with the plugin API's parser.
 * @throws INVALID_ARGUMENT when it is neither empty nor starts with `/`, or holds a bad `~` escape, with the
 *   character `position` of the fault.
 */
export function parsePointer(pointer: string): string[] {
  try {
    return parseRfc6901(pointer);
  } catch (err) {
    if (!(err instanceof PointerSyntaxError)) throw err;
    throw new McpgwError('INVALID_ARGUMENT', `"${clipText(pointer, 100)}" is not a JSON Pointer: ${err.message} (RFC 6901 §3).`, { location: { position: err.position } });
  }
}

/** Kernel-side internals of a lazy node (not part of the plugin contract). */
export const LAZY_INTERNALS = Symbol('mcpgw.lazyNode');
export interface LazyInternals {
  ctx: LazyContext;
  start: number;
  end: number;
  held?: HeldBytes;
  /** The container's index (objects and arrays). */
  container(): ContainerIndex;
}

/** The internals of a node made by {@link lazyNode}, or undefined for another implementation's node. */
export function internalsOf(node: LazyNode): LazyInternals | undefined {
  return (node as unknown as { [LAZY_INTERNALS]?: LazyInternals })[LAZY_INTERNALS];
}

function tooBig(ctx: LazyContext, start: number, length: number): McpgwError {
  return new McpgwError('RESOURCE_LIMIT_EXCEEDED', `The value at byte ${start} is ${length} bytes, over maxRecordBytes ${ctx.maxRecordBytes}.`, {
    limit: { name: 'maxRecordBytes', limit: ctx.maxRecordBytes, value: length },
    location: { byte_offset: start, record_index: ctx.recordIndex },
    hint: 'Read a smaller part of it (a deeper pointer), or raise limits.maxRecordBytes.',
  });
}

/**
 * The node whose trimmed text spans `[start, end)`; its children are found through the cache or by
 * indexing its container on first use. `held`, when given, covers `[start, end)`.
 */
export function lazyNode(ctx: LazyContext, start: number, end: number, held?: HeldBytes): LazyNode {
  if (held && !covers(held, start, end)) held = undefined;
  const first = bytesAt(ctx, held, start, 1)[0]!;
  const type: LazyNode['type'] =
    first === 0x7b ? 'object' : first === 0x5b ? 'array' : first === 0x22 ? 'string'
      : first === 0x74 || first === 0x66 ? 'boolean' : first === 0x6e ? 'null' : 'number';
  const text = () => {
    if (end - start > ctx.maxRecordBytes) throw tooBig(ctx, start, end - start);
    return decodeUtf8(bytesAt(ctx, held, start, end - start), start, { record_index: ctx.recordIndex });
  };
  const node: LazyNode = {
    type,
    byteOffset: start,
    byteLength: end - start,
    value(warnings?: RecordWarning[]) {
      return parseExact(text(), () => ({ byteOffset: start, line: 0, column: 0, recordIndex: ctx.recordIndex, maxDepth: ctx.maxDepth }), ctx.maxDepth, warnings);
    },
    text,
    bytes(from = 0, to = end - start) {
      if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from || to > end - start) {
        throw new McpgwError('INVALID_ARGUMENT', `Bad byte range [${from}, ${to}) of a ${end - start}-byte value.`);
      }
      if (to - from > ctx.maxRecordBytes) throw tooBig(ctx, start + from, to - from);
      return bytesAt(ctx, held, start + from, to - from);
    },
  };
  const internals: LazyInternals = { ctx, start, end, ...(held ? { held } : {}), container: () => container(ctx, start, end, held) };
  Object.defineProperty(node, LAZY_INTERNALS, { value: internals, enumerable: false });
  if (type === 'object' || type === 'array') {
    Object.defineProperty(node, 'childCount', { enumerable: true, get: () => container(ctx, start, end, held).count });
    node.children = (from: number, to: number) => {
      const c = container(ctx, start, end, held);
      if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from) {
        throw new McpgwError('INVALID_ARGUMENT', `Bad child range [${from}, ${to}).`);
      }
      return childNodes(ctx, c, from, Math.min(to, c.count), held);
    };
    if (type === 'object') {
      node.member = (name: string) => {
        const c = container(ctx, start, end, held);
        const k = lastMember(ctx, c, name, held);
        if (k === -1) return undefined;
        const [s, e] = childExtent(ctx, c, k, held);
        return { index: k, node: lazyNode(ctx, s, e, held) };
      };
    }
  }
  return node;
}

/** Start offset of child k's text, or the container's closing bracket for k = count. */
const boundary = (c: ContainerIndex, k: number) => (k < c.count ? c.starts[k]! : c.close);

/** Children `[from, to)` of container `c`, consecutive ones sharing a read of up to GROUP_BYTES. */
function childNodes(ctx: LazyContext, c: ContainerIndex, from: number, to: number, held: HeldBytes | undefined): { key?: string; index?: number; node: LazyNode }[] {
  const out: { key?: string; index?: number; node: LazyNode }[] = [];
  let k = from;
  while (k < to) {
    let j = k + 1;
    let group = held;
    if (!covers(held, boundary(c, k), boundary(c, to))) {
      const s0 = boundary(c, k);
      while (j < to && boundary(c, j + 1) - s0 <= GROUP_BYTES) j++;
      const e0 = boundary(c, j);
      group = e0 - s0 <= GROUP_BYTES ? { buf: readAt(ctx.fd, s0, e0 - s0), base: s0 } : undefined;
    } else j = to;
    for (let m = k; m < j; m++) {
      const [s, e] = childExtent(ctx, c, m, group);
      out.push(c.type === 'object' ? { key: memberName(ctx, c, m, group), node: lazyNode(ctx, s, e, group) } : { index: m, node: lazyNode(ctx, s, e, group) });
    }
    k = j;
  }
  return out;
}

/** Resolves `tokens` from the node spanning `[start, end)`; undefined when a step names nothing. */
export function resolvePointer(ctx: LazyContext, start: number, end: number, tokens: string[], held?: HeldBytes): LazyNode | undefined {
  let s = start, e = end;
  for (const token of tokens) {
    const first = bytesAt(ctx, covers(held, s, s + 1) ? held : undefined, s, 1)[0]!;
    if (first !== 0x7b && first !== 0x5b) return undefined;
    const c = container(ctx, s, e, held);
    let k: number;
    if (c.type === 'array') {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined; // RFC 6901 §4: array index, no leading zeros ("-" names nothing here)
      k = Number(token);
      if (k >= c.count) return undefined;
    } else {
      k = lastMember(ctx, c, token, held);
      if (k === -1) return undefined;
    }
    [s, e] = childExtent(ctx, c, k, held);
  }
  return lazyNode(ctx, s, e, held);
}

/** Index of the last member named `name` of object container `c` (the one that wins), or -1. */
export function lastMember(ctx: LazyContext, c: ContainerIndex, name: string, held?: HeldBytes): number {
  if (c.count > 16) {
    if (!c.lastIndex) {
      const map = new Map<string, number>();
      for (let m = 0; m < c.count; m++) map.set(memberName(ctx, c, m, held), m);
      c.lastIndex = map;
    }
    return c.lastIndex.get(name) ?? -1;
  }
  for (let m = c.count - 1; m >= 0; m--) if (memberName(ctx, c, m, held) === name) return m;
  return -1;
}

/**
 * The index of the first member of object `c` named `name`, or -1: where a repeated name is shown (with the value of
 * its last member, `lastMember`), as JSON.parse orders it.
 */
export function firstMember(ctx: LazyContext, c: ContainerIndex, name: string, held?: HeldBytes): number {
  if (c.count > 16) {
    // no repeated names (the common case, known once lastMember indexed the names): first and last are one
    if (c.lastIndex && c.lastIndex.size === c.count) return c.lastIndex.get(name) ?? -1;
    if (!c.firstIndex) {
      const map = new Map<string, number>();
      for (let m = c.count - 1; m >= 0; m--) map.set(memberName(ctx, c, m, held), m);
      c.firstIndex = map;
    }
    return c.firstIndex.get(name) ?? -1;
  }
  for (let m = 0; m < c.count; m++) if (memberName(ctx, c, m, held) === name) return m;
  return -1;
}

/** The index of the container whose text spans `[start, end)` (cached by the offset of its opening bracket). */
export function container(ctx: LazyContext, start: number, end: number, held?: HeldBytes): ContainerIndex {
  let c = ctx.cache.get(start);
  if (c) return c;
  try {
    c = covers(held, start, end) ? indexContainerSync(-1, start, end, held) : indexContainerSync(ctx.fd, start, end);
  } catch (err) {
    if (err instanceof JsonScanError) throw scanFault({ fd: ctx.fd, displayPath: ctx.displayPath }, err, ctx.recordIndex);
    throw err;
  }
  if (ctx.cache.size > MAX_CACHED) {
    for (const [k, v] of ctx.cache) if (!v.pinned) ctx.cache.delete(k);
  }
  ctx.cache.set(start, c);
  return c;
}

/** Trimmed byte range of child k's value. */
export function childExtent(ctx: LazyContext, c: ContainerIndex, k: number, held?: HeldBytes): [number, number] {
  let s = c.starts[k]!;
  let e = k + 1 < c.count ? c.starts[k + 1]! : c.close;
  if (c.type === 'object') s = valueStart(ctx, s, e, held);
  // trim whitespace and the ',' before the next child
  let tail = Math.min(64, e - s);
  for (;;) {
    const buf = bytesAt(ctx, held, e - tail, tail);
    let b = buf.length;
    while (b > 0 && (isWs(buf[b - 1]!) || buf[b - 1] === 0x2c)) b--;
    if (b > 0 || tail === e - s) { e = e - tail + b; break; }
    e -= tail;
    tail = Math.min(64, e - s);
  }
  return [s, e];
}

/** End (exclusive) of the member name whose quote is at `quote`, read in growing steps and walked by the JSON walker. */
function nameEnd(ctx: LazyContext, quote: number, limit: number, held?: HeldBytes): number {
  let pos = quote + 1, step = 256;
  let from = 0; // 1: the step before ended inside an escape
  while (pos < limit) {
    const buf = bytesAt(ctx, held, pos, Math.min(step, limit - pos));
    const end = jsonStringBodyEnd(buf, from, buf.length);
    if (end >= 0) return pos + end;
    from = jsonEndsInEscape(buf, from, buf.length) ? 1 : 0;
    pos += buf.length;
    step = Math.min(step * 4, 1 << 20);
  }
  throw scanFault({ fd: ctx.fd, displayPath: ctx.displayPath }, new JsonScanError('Unterminated member name', quote), ctx.recordIndex);
}

/** Start of the value of the member whose name starts at `quote` (past the name, `:` and whitespace). */
function valueStart(ctx: LazyContext, quote: number, limit: number, held?: HeldBytes): number {
  let p = nameEnd(ctx, quote, limit, held);
  const buf = bytesAt(ctx, held, p, Math.min(256, limit - p));
  let k = 0;
  while (k < buf.length && isWs(buf[k]!)) k++;
  if (buf[k] !== 0x3a) throw scanFault({ fd: ctx.fd, displayPath: ctx.displayPath }, new JsonScanError("Expected ':' after a member name", p + k), ctx.recordIndex);
  k++;
  while (k < buf.length && isWs(buf[k]!)) k++;
  p += k;
  if (k === buf.length) { // long whitespace run: step on
    for (;;) {
      const more = bytesAt(ctx, held, p, Math.min(4096, limit - p));
      let j = 0;
      while (j < more.length && isWs(more[j]!)) j++;
      p += j;
      if (j < more.length || p >= limit) break;
    }
  }
  return p;
}

/** Member k's name, decoded (and cached on the container). */
export function memberName(ctx: LazyContext, c: ContainerIndex, k: number, held?: HeldBytes): string {
  c.keys ??= new Array<string>(c.count);
  let name = c.keys[k];
  if (name === undefined) {
    const s = c.starts[k]!;
    const e = nameEnd(ctx, s, c.close, held);
    const raw = bytesAt(ctx, held, s, e - s);
    const text = decodeUtf8(raw, s, { record_index: ctx.recordIndex });
    if (raw.indexOf(0x5c) === -1 && !hasControl(raw)) name = text.slice(1, -1);
    else {
      try { name = JSON.parse(text) as string; }
      catch { throw scanFault({ fd: ctx.fd, displayPath: ctx.displayPath }, new JsonScanError('Bad member name', s), ctx.recordIndex); }
    }
    if (!name.isWellFormed()) name = name.toWellFormed();
    c.keys[k] = name;
  }
  return name;
}

/** True when `b` holds a byte below 0x20 (not allowed raw in a JSON string, RFC 8259 §7). */
function hasControl(b: Buffer): boolean {
  for (let k = 0; k < b.length; k++) if (b[k]! < 0x20) return true;
  return false;
}
