import { readSync } from 'node:fs';
import type { LazyNode, RecordWarning } from '../contracts/format';
import { McpgwError } from '../errors';
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

/** Containers cached on demand beyond the ones indexed at open; past this the on-demand part is cleared. */
const MAX_CACHED = 4096;

const isWs = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

function readAt(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    let n: number;
    try { n = readSync(fd, buf, done, length - done, offset + done); }
    catch (err) { throw new McpgwError('IO_ERROR', `Reading failed: ${(err as Error).message}`, { cause: err }); }
    if (n === 0) throw new McpgwError('SOURCE_CHANGED', 'The file is shorter than when it was opened.', { hint: 'Open the file again.' });
    done += n;
  }
  return buf;
}

/**
 * Parses an RFC 6901 JSON Pointer into reference tokens (§3: `~1` is `/`, `~0` is `~`).
 * @throws INVALID_ARGUMENT when it is neither empty nor starts with `/`, or holds a bad `~` escape.
 */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (pointer[0] !== '/') throw new McpgwError('INVALID_ARGUMENT', `"${pointer.slice(0, 100)}" is not a JSON Pointer: it must be empty or start with "/" (RFC 6901 §3).`);
  return pointer.slice(1).split('/').map((t) => {
    if (/~(?![01])/.test(t)) throw new McpgwError('INVALID_ARGUMENT', `JSON Pointer token "${t.slice(0, 100)}" has a "~" not followed by 0 or 1 (RFC 6901 §3).`);
    return t.replace(/~1/g, '/').replace(/~0/g, '~');
  });
}

/**
 * The node whose trimmed text spans `[start, end)`; its children are found through the cache or by
 * indexing its container on first use.
 */
export function lazyNode(ctx: LazyContext, start: number, end: number): LazyNode {
  const first = readAt(ctx.fd, start, 1)[0]!;
  const type: LazyNode['type'] =
    first === 0x7b ? 'object' : first === 0x5b ? 'array' : first === 0x22 ? 'string'
      : first === 0x74 || first === 0x66 ? 'boolean' : first === 0x6e ? 'null' : 'number';
  const node: LazyNode = {
    type,
    byteOffset: start,
    byteLength: end - start,
    value(warnings?: RecordWarning[]) {
      if (end - start > ctx.maxRecordBytes) {
        throw new McpgwError('RESOURCE_LIMIT_EXCEEDED', `The value at byte ${start} is ${end - start} bytes, over maxRecordBytes ${ctx.maxRecordBytes}.`, {
          limit: { name: 'maxRecordBytes', limit: ctx.maxRecordBytes, value: end - start },
          location: { byte_offset: start, record_index: ctx.recordIndex },
          hint: 'Read a smaller part of it (a deeper pointer), or raise limits.maxRecordBytes.',
        });
      }
      const text = decodeUtf8(readAt(ctx.fd, start, end - start), start, { record_index: ctx.recordIndex });
      return parseExact(text, () => ({ byteOffset: start, line: 0, column: 0, recordIndex: ctx.recordIndex, maxDepth: ctx.maxDepth }), ctx.maxDepth, warnings);
    },
  };
  if (type === 'object' || type === 'array') {
    Object.defineProperty(node, 'childCount', { enumerable: true, get: () => container(ctx, start, end).count });
    node.children = (from: number, to: number) => {
      const c = container(ctx, start, end);
      if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from) {
        throw new McpgwError('INVALID_ARGUMENT', `Bad child range [${from}, ${to}).`);
      }
      const out: { key?: string; index?: number; node: LazyNode }[] = [];
      for (let k = from; k < Math.min(to, c.count); k++) {
        const [s, e] = childExtent(ctx, c, k);
        out.push(c.type === 'object' ? { key: memberName(ctx, c, k), node: lazyNode(ctx, s, e) } : { index: k, node: lazyNode(ctx, s, e) });
      }
      return out;
    };
  }
  return node;
}

/** Resolves `tokens` from the node spanning `[start, end)`; undefined when a step names nothing. */
export function resolvePointer(ctx: LazyContext, start: number, end: number, tokens: string[]): LazyNode | undefined {
  let s = start, e = end;
  for (const token of tokens) {
    const first = readAt(ctx.fd, s, 1)[0]!;
    if (first !== 0x7b && first !== 0x5b) return undefined;
    const c = container(ctx, s, e);
    let k: number;
    if (c.type === 'array') {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined; // RFC 6901 §4: array index, no leading zeros ("-" names nothing here)
      k = Number(token);
      if (k >= c.count) return undefined;
    } else {
      k = -1;
      for (let m = c.count - 1; m >= 0; m--) if (memberName(ctx, c, m) === token) { k = m; break; } // last one wins
      if (k === -1) return undefined;
    }
    [s, e] = childExtent(ctx, c, k);
  }
  return lazyNode(ctx, s, e);
}

function container(ctx: LazyContext, start: number, end: number): ContainerIndex {
  let c = ctx.cache.get(start);
  if (c) return c;
  try {
    c = indexContainerSync(ctx.fd, start, end);
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
function childExtent(ctx: LazyContext, c: ContainerIndex, k: number): [number, number] {
  let s = c.starts[k]!;
  let e = k + 1 < c.count ? c.starts[k + 1]! : c.close;
  if (c.type === 'object') s = valueStart(ctx, s, e);
  // trim whitespace and the ',' before the next child
  let tail = Math.min(64, e - s);
  for (;;) {
    const buf = readAt(ctx.fd, e - tail, tail);
    let b = buf.length;
    while (b > 0 && (isWs(buf[b - 1]!) || buf[b - 1] === 0x2c)) b--;
    if (b > 0 || tail === e - s) { e = e - tail + b; break; }
    e -= tail;
    tail = Math.min(64, e - s);
  }
  return [s, e];
}

/** End (exclusive) of the string starting at `quote`, read in small steps. */
function stringEnd(ctx: LazyContext, quote: number, limit: number): number {
  let pos = quote + 1, step = 256;
  let escaped = false;
  while (pos < limit) {
    const buf = readAt(ctx.fd, pos, Math.min(step, limit - pos));
    for (let k = 0; k < buf.length; k++) {
      const b = buf[k]!;
      if (escaped) escaped = false;
      else if (b === 0x5c) escaped = true;
      else if (b === 0x22) return pos + k + 1;
    }
    pos += buf.length;
    step = Math.min(step * 4, 1 << 20);
  }
  throw scanFault({ fd: ctx.fd, displayPath: ctx.displayPath }, new JsonScanError('Unterminated member name', quote), ctx.recordIndex);
}

/** Start of the value of the member whose name starts at `quote` (past the name, `:` and whitespace). */
function valueStart(ctx: LazyContext, quote: number, limit: number): number {
  let p = stringEnd(ctx, quote, limit);
  const buf = readAt(ctx.fd, p, Math.min(256, limit - p));
  let k = 0;
  while (k < buf.length && isWs(buf[k]!)) k++;
  if (buf[k] !== 0x3a) throw scanFault({ fd: ctx.fd, displayPath: ctx.displayPath }, new JsonScanError("Expected ':' after a member name", p + k), ctx.recordIndex);
  k++;
  while (k < buf.length && isWs(buf[k]!)) k++;
  p += k;
  if (k === buf.length) { // long whitespace run: step on
    for (;;) {
      const more = readAt(ctx.fd, p, Math.min(4096, limit - p));
      let j = 0;
      while (j < more.length && isWs(more[j]!)) j++;
      p += j;
      if (j < more.length || p >= limit) break;
    }
  }
  return p;
}

/** Member k's name, decoded (and cached on the container). */
function memberName(ctx: LazyContext, c: ContainerIndex, k: number): string {
  c.keys ??= new Array<string>(c.count);
  let name = c.keys[k];
  if (name === undefined) {
    const s = c.starts[k]!;
    const e = stringEnd(ctx, s, c.close);
    const text = decodeUtf8(readAt(ctx.fd, s, e - s), s, { record_index: ctx.recordIndex });
    try { name = JSON.parse(text) as string; }
    catch { throw scanFault({ fd: ctx.fd, displayPath: ctx.displayPath }, new JsonScanError('Bad member name', s), ctx.recordIndex); }
    if (!name.isWellFormed()) name = name.toWellFormed();
    c.keys[k] = name;
  }
  return name;
}
