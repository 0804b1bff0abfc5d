import type { CompiledQuery, JsonLayoutMarks, LazyNode, PathToken, ToolContext } from 'mcpgw/plugin-api';
import { tokenIndex, tokenName, tokenText } from './toolkit';
import { checkIndex, type ExplorerFile } from './files';
import { parsePath, parsePointer, PathError, toPointer, type Tokens } from './json/paths';
import { compact, spanAt } from './json/scan';
import { valuesAt } from './json/values';
import { escapesLoneSurrogate } from './text/surrogates';

/**
 * Record i of an open file: its parsed value (exact numbers) and its text.
 * @throws INVALID_ARGUMENT (index out of range), SYNTAX_ERROR (malformed record, with its location), RESOURCE_LIMIT_EXCEEDED
 */
export function readRecord(ctx: ToolContext, file: ExplorerFile, index: number): { value: unknown; text: string } {
  checkIndex(ctx, file, index);
  const { source } = file.opened;
  const value = source.value(index);
  return { value, text: source.text(index) };
}

/** A result warning of the explorer tools (warningSchema). */
export interface ToolWarning {
  code: string;
  message: string;
  /** The configured limit the warning is about, as errors name it. */
  limit?: { name: string; limit: number; value?: number };
}

/**
 * The compiled query's own warnings (`CompiledQuery.warnings`: NOT_I_REGEXP for a match()/search() pattern that
 * RFC 9535 makes match nothing) as result warnings: every explorer tool that takes a JSONPath passes them on so.
 */
export function queryWarnings(query: CompiledQuery): ToolWarning[] {
  return (query.warnings ?? []).map((w) => ({ code: w.code, message: w.message }));
}

/**
 * Record i's text, checked as `readRecord` checks it (SYNTAX_ERROR with its location, RESOURCE_LIMIT_EXCEEDED) but
 * without building its value (`RecordSource.checkedText`): for tools that show text only.
 */
export function readRecordText(ctx: ToolContext, file: ExplorerFile, index: number): string {
  checkIndex(ctx, file, index);
  const { source } = file.opened;
  return source.checkedText ? source.checkedText(index) : readRecord(ctx, file, index).text;
}

/**
 * Resolves a user path (dot form, JSON Pointer, `$`-JSONPath; see json/paths.ts) against one record
 * to reference tokens. A non-singular JSONPath is evaluated with the `jsonpath` query language and its
 * first node is taken; the query's warnings (queryWarnings) are pushed onto `warnings`.
 * @throws INVALID_ARGUMENT (unparsable path), QUERY_SYNTAX_ERROR, UNSUPPORTED_QUERY_FEATURE (no jsonpath language)
 */
export function resolvePath(ctx: ToolContext, path: string, value: unknown, warnings?: ToolWarning[]): Tokens | null {
  const parsed = parseUserPath(ctx, path);
  if ('tokens' in parsed) return parsed.tokens;
  const language = ctx.registry.queryLanguages.get('jsonpath');
  if (!language) {
    throw ctx.error('UNSUPPORTED_QUERY_FEATURE', `The path ${JSON.stringify(path)} needs the jsonpath query language, which no loaded plugin registers.`, {
      hint: 'Use a dot path (user.address.city) or a JSON Pointer (/user/address/city).',
    });
  }
  const query = language.compile(parsed.jsonpath);
  warnings?.push(...queryWarnings(query));
  const nodes = query.evaluate(value, { maxNodes: ctx.limits.maxNodes, deadline: ctx.deadline, now: () => ctx.clock.now(), requestTimeoutMs: ctx.limits.requestTimeoutMs });
  if (nodes.length > 1) {
    // The answer is the first node only: say how many there were, so one value is never mistaken for the only one.
    warnings?.push({
      code: 'SEVERAL_NODES',
      message: `The JSONPath selected ${nodes.length} nodes; this answer is the first (${nodes[0]!.path || '""'}). ` +
        'search with mode "jsonpath" (or json_read) lists every node.',
    });
  }
  return nodes.length ? parsePointer(nodes[0]!.path) : null;
}

/** The hint of a JSONPath that selected nothing: its warnings first (they say why), then `otherwise`. */
export function emptyPathHint(warnings: readonly ToolWarning[], otherwise: string): string {
  return warnings.length ? `${warnings.map((w) => `${w.code}: ${w.message}`).join(' ')} ${otherwise}` : otherwise;
}

/** parsePath with errors as INVALID_ARGUMENT naming the position. */
export function parseUserPath(ctx: ToolContext, path: string): ReturnType<typeof parsePath> {
  try {
    return parsePath(path);
  } catch (err) {
    if (err instanceof PathError) {
      throw ctx.error('INVALID_ARGUMENT', `Bad path ${JSON.stringify(path)} at character ${err.position}: ${err.message}`, {
        hint: 'Paths: user.address.city, items[2].name, [\'a.b\'] for names with dots, /user/address/city (JSON Pointer) or $.user.name (JSONPath).',
      });
    }
    throw err;
  }
}

/** Parses `fields` once: each a singular path. @throws INVALID_ARGUMENT */
export function parseFields(ctx: ToolContext, fields: readonly string[] | undefined): { name: string; tokens: Tokens }[] | null {
  if (!fields) return null;
  return fields.map((name) => {
    const p = parseUserPath(ctx, name);
    if (!('tokens' in p)) throw ctx.error('INVALID_ARGUMENT', `fields must be singular paths; ${JSON.stringify(name)} may select several values.`, { hint: 'Use user.name, /user/name or $.user.name.' });
    return { name, tokens: p.tokens };
  });
}

/**
 * The record projected to `fields`: an object whose keys are the fields as given and whose values are
 * the members found (exact values); missing members are absent.
 */
export function projectValue(value: unknown, fields: { name: string; tokens: Tokens }[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const found = valuesAt(value, f.tokens, false);
    // defined, not assigned: a field named `__proto__` is a member like any other
    if (found.length) Object.defineProperty(out, f.name, { value: found[0], writable: true, enumerable: true, configurable: true });
  }
  return out;
}

/** As projectValue, on the record's text: JSON text with every lexeme and escape as in the file. */
export function projectText(text: string, fields: { name: string; tokens: Tokens }[]): string {
  const parts: string[] = [];
  for (const f of fields) {
    const span = spanAt(text, f.tokens);
    if ('start' in span) parts.push(`${JSON.stringify(f.name)}:${compact(text.slice(span.start, span.end))}`);
  }
  return `{${parts.join(',')}}`;
}

export { toPointer };

/**
 * Why `token` selects nothing in the value at `where` (a phrase for a NOT_FOUND message): an object without that
 * member (its first 30 `keys`), an array without that index (`count` elements), a scalar; and where a JSONPath
 * selector's kind is why (RFC 9535 §2.3.1, §2.3.3), the selector that would read it.
 */
export function missDetail(type: string, where: string, token: PathToken, keys: readonly string[], count: number): string {
  const shown = JSON.stringify(tokenText(token));
  if (type === 'object') {
    const list = `its keys: ${keys.slice(0, 30).map((k) => JSON.stringify(k)).join(', ')}${count > 30 ? ', …' : ''}`;
    if (tokenName(token) === undefined) {
      return `the value ${where} is an object, in which the JSONPath index [${tokenText(token)}] selects nothing (RFC 9535 §2.3.3; its member ${shown} is ['${tokenText(token)}']); ${list}`;
    }
    return `the object ${where} has no member ${shown}; ${list}`;
  }
  if (type === 'array') {
    if (typeof token === 'object' && 'name' in token && /^(?:0|[1-9][0-9]*)$/.test(token.name)) {
      return `the value ${where} is an array of ${count} elements, in which the JSONPath name ['${token.name}'] selects nothing (RFC 9535 §2.3.1; its element ${token.name} is [${token.name}])`;
    }
    return `the array ${where} has ${count} elements; ${shown} is not one of its indexes`;
  }
  return `the value ${where} is a ${type}, which has no members`;
}

/**
 * End (exclusive) of the part of `buf` from `start` (a character start): at most `max` bytes ending on a UTF-8
 * character boundary, but never empty while bytes remain — when the first character alone is longer than `max`
 * (up to 4 bytes, RFC 3629), the part is that whole character, so a reader following the offsets always advances.
 */
export function cutAtCharBoundary(buf: Uint8Array, start: number, max: number): number {
  let end = Math.min(buf.length, start + max);
  while (end > start && end < buf.length && (buf[end]! & 0xc0) === 0x80) end--;
  if (end === start && start < buf.length) {
    end = start + 1;
    while (end < buf.length && (buf[end]! & 0xc0) === 0x80) end++;
  }
  return end;
}

/**
 * A page of JSON `text` laid out with `indent` ("  " re-indented, "" compact) through the kernel's `ctx.json`: the
 * layout stops at the page, so a page of a big value costs its bytes, not the whole laid-out text. Without offset or
 * length, a text that fits `max` comes whole; a longer one is cut (on a character boundary outside escapes) and
 * marked; with offset/length, bytes [offset, offset + length) of the laid-out text, in parts that concatenate exactly.
 * @throws INVALID_ARGUMENT (offset past the end)
 */
export function pageText(
  ctx: ToolContext,
  text: string,
  opts: { indent: string; offset?: number; length?: number; max: number; tool: string; what: string; marks?: JsonLayoutMarks },
): { text: string; truncated?: boolean; total_bytes?: number; offset?: number; next_offset?: number } {
  const page = ctx.json.page(text, { indent: opts.indent, from: opts.offset ?? 0, maxBytes: Math.min(opts.length ?? opts.max, opts.max), ...(opts.marks ? { marks: opts.marks } : {}) });
  // (a `length` over `max` is lowered to it: the tool says so, see lengthWarnings)
  if (opts.offset === undefined && opts.length === undefined && page.end >= page.total) return { text: page.text };
  if ((opts.offset ?? 0) > page.total) throw ctx.error('INVALID_ARGUMENT', `offset ${opts.offset} is past the end of the ${opts.what} (${page.total} bytes).`);
  const more = page.end < page.total;
  const marked = more && opts.offset === undefined && opts.length === undefined;
  return {
    text: marked ? `${page.text}\n… [cut: bytes ${page.start}–${page.end} of ${page.total}; call ${opts.tool} with offset ${page.end} for the rest]` : page.text,
    truncated: more || page.start > 0,
    total_bytes: page.total,
    offset: page.start,
    ...(more ? { next_offset: page.end } : {}),
  };
}

/**
 * Memory (bytes; a text counts 2 a UTF-16 unit) that texts kept between pages (`pageKeptText`) may hold together,
 * over every handle of the process. A text over it is never kept: each of its pages is read afresh.
 */
export const KEPT_TEXT_BUDGET = 64 * 1024 * 1024;

/** The budget in force (KEPT_TEXT_BUDGET; tests lower it). */
export const keptTextLimits = { bytes: KEPT_TEXT_BUDGET };

/** A text being read page after page: what `build` made for `key` of `file`, and where its layout resumes. */
interface KeptText {
  file: WeakRef<ExplorerFile>;
  /** What the text is (the tool's own key), and of which version of the file (its size and mtime). */
  key: string;
  version: string;
  indent: string;
  text: string;
  marks: JsonLayoutMarks;
  bytes: number;
}

/** The texts kept, least recently used first; their `bytes` sum to at most KEPT_TEXT_BUDGET. */
const keptTexts: KeptText[] = [];

/**
 * As pageText, for a text that costs much to build (record i read whole, checked, merged; a big value read through
 * lazy nodes): a text longer than one page is kept with the handle, with the places its layout resumes
 * (`ctx.json.marks`), so that the next pages of it (any `offset`, the same `key` and indent) cost their own bytes
 * instead of a read, a check and a layout of the whole text. Kept texts are bounded together by KEPT_TEXT_BUDGET
 * (least recently used dropped first), keyed by the file's size and modification time (a changed file builds
 * afresh), and dropped when the handle closes (`forgetKeptTexts`). Pages are the same as pageText's.
 * @param key what `build` returns (e.g. `record 3 compact`), unique within the handle
 */
export function pageKeptText(
  ctx: ToolContext,
  file: ExplorerFile,
  key: string,
  build: () => string,
  opts: { indent: string; offset?: number; length?: number; max: number; tool: string; what: string },
): ReturnType<typeof pageText> {
  const { size, mtimeMs, ctimeMs } = file.opened.source.identity;
  const version = `${size}:${mtimeMs}:${ctimeMs}`;
  let kept: KeptText | undefined;
  for (let k = keptTexts.length - 1; k >= 0; k--) {
    const e = keptTexts[k]!;
    const f = e.file.deref();
    if (f === undefined) { keptTexts.splice(k, 1); continue; }
    if (f !== file || e.key !== key || e.indent !== opts.indent) continue;
    keptTexts.splice(k, 1);
    if (e.version === version) kept = e; // else the text of the file before it changed: dropped
    break;
  }
  if (kept) {
    keptTexts.push(kept); // most recently used
    return pageText(ctx, kept.text, { ...opts, marks: kept.marks });
  }
  const text = build();
  const marks = ctx.json.marks();
  const page = pageText(ctx, text, { ...opts, marks });
  const bytes = text.length * 2;
  const budget = keptTextLimits.bytes;
  if (marks.total > opts.max && bytes <= budget) {
    let used = keptTexts.reduce((n, e) => n + e.bytes, 0);
    while (keptTexts.length && used + bytes > budget) used -= keptTexts.shift()!.bytes;
    keptTexts.push({ file: new WeakRef(file), key, version, indent: opts.indent, text, marks, bytes });
  }
  return page;
}

/** Drops the texts kept for `file` (its handle closed or expired). */
export function forgetKeptTexts(file: ExplorerFile): void {
  for (let k = keptTexts.length - 1; k >= 0; k--) {
    const f = keptTexts[k]!.file.deref();
    if (f === undefined || f === file) keptTexts.splice(k, 1);
  }
}

/** Bytes the kept texts hold now (tests). */
export function keptTextBytes(): number {
  return keptTexts.reduce((n, e) => n + (e.file.deref() ? e.bytes : 0), 0);
}

/** Bytes of `v` as compact JSON (what the result's text block spends on it). */
export function jsonBytes(v: unknown): number {
  return Buffer.byteLength(JSON.stringify(v) ?? 'null');
}

/** Bytes kept free for the envelope of a result around its list of items. */
export const ENVELOPE_RESERVE = 2048;

/** Records larger than this (or than maxRecordBytes) are read through `RecordSource.node` (when the source has it) instead of whole. */
export const LAZY_RECORD_BYTES = 1024 * 1024;

/**
 * The lazy root of record i when the source offers lazy nodes and the record is big (a large single document,
 * e.g. a GeoJSON FeatureCollection); null otherwise (read the record whole).
 * @throws INVALID_ARGUMENT (index out of range)
 */
export function lazyRoot(ctx: ToolContext, file: ExplorerFile, index: number): LazyNode | null {
  checkIndex(ctx, file, index);
  const { source } = file.opened;
  if (!source.node) return null;
  const root = source.node(index, '');
  return root && root.byteLength > Math.min(LAZY_RECORD_BYTES, ctx.limits.maxRecordBytes) ? root : null;
}

/** A record larger than this is not read to see whether it escapes a lone surrogate: the validation at open says. */
const SURROGATE_LOOK_BYTES = 8 * 1024 * 1024;

/**
 * Whether record i's text escapes a lone surrogate (RFC 8259 §8.2; text/surrogates.ts): read and looked at, or for a
 * record the lazy reader serves past {@link SURROGATE_LOOK_BYTES}, whether the validation at open found one.
 */
export function recordEscapesLoneSurrogate(ctx: ToolContext, file: ExplorerFile, i: number): boolean {
  const { source } = file.opened;
  const root = source.node ? source.node(i, '') : undefined;
  if (root && root.byteLength > SURROGATE_LOOK_BYTES) return (file.loneSurrogates ?? 0) > 0;
  try {
    return escapesLoneSurrogate(readRecordText(ctx, file, i));
  } catch {
    return false; // a record that cannot be read shows nothing
  }
}

/**
 * Bytes of record or value text one answer carries: maxRecordPreviewBytes, lowered so that the text, escaped
 * inside the result's JSON (quotes and newlines double), still fits maxResultBytes.
 */
export function previewBytes(ctx: ToolContext): number {
  return Math.max(256, Math.min(ctx.limits.maxRecordPreviewBytes, Math.floor((ctx.limits.maxResultBytes - ENVELOPE_RESERVE) / 2)));
}

/**
 * get_record's and get_value_at_path's warning when `length` asked for more bytes than a part holds (previewBytes,
 * named maxRecordPreviewBytes; when maxResultBytes lowers it, the message says so): the part is that long, and
 * `next_offset` goes on. None when `length` fits, or the text ended before it.
 */
export function lengthWarnings(ctx: ToolContext, length: number | undefined, page: { offset?: number; next_offset?: number }): ToolWarning[] {
  const max = previewBytes(ctx);
  if (length === undefined || length <= max || page.next_offset === undefined) return [];
  const lowered = max < ctx.limits.maxRecordPreviewBytes ? ` (maxRecordPreviewBytes ${ctx.limits.maxRecordPreviewBytes}, lowered so that a part fits maxResultBytes ${ctx.limits.maxResultBytes})` : '';
  return [{
    code: 'RESOURCE_LIMIT_EXCEEDED',
    message: `length ${length} is over the ${max} bytes a part holds${lowered}: this part holds bytes ${page.offset ?? 0}–${page.next_offset}; call again with offset ${page.next_offset} for the rest.`,
    limit: { name: 'maxRecordPreviewBytes', limit: max, value: length },
  }];
}

/**
 * The node at `tokens` inside `root` (a record read through lazy nodes), with its RFC 6901 pointer: a negative array
 * index counts from the end (`items[-1]`, as in the parsed path), a member name repeated in an object is its last
 * one. A token that names nothing is NOT_FOUND naming what is there: the object's keys (the first 30), the array's
 * length, or the scalar's type.
 * @throws McpgwError NOT_FOUND (`location.path`: the pointer up to and including the token that names nothing)
 */
export function lazyNodeAt(ctx: ToolContext, index: number, root: LazyNode, tokens: Tokens, path: string, hint: string): { node: LazyNode; pointer: string } {
  let node = root;
  const resolved: (string | number)[] = [];
  for (const token of tokens) {
    let next: LazyNode | undefined;
    let at: string | number = tokenText(token);
    if (node.type === 'array') {
      const count = node.childCount ?? 0;
      const k = tokenIndex(token);
      at = k < 0 ? count + k : k;
      if (Number.isInteger(at) && at >= 0 && at < count) next = node.children!(at, at + 1)[0]?.node;
    } else if (node.type === 'object') {
      const name = tokenName(token);
      if (name !== undefined) {
        at = name;
        next = node.member ? node.member(name)?.node : lastMember(node, name);
      }
    }
    if (!next) {
      const where = resolved.length ? `at ${toPointer(resolved)}` : 'at the record root';
      const count = node.childCount ?? 0;
      const detail = missDetail(node.type, where, token, node.type === 'object' ? keysOf(node) : [], count);
      throw ctx.error('NOT_FOUND', `Path ${JSON.stringify(path)} not found in record ${index}: ${detail}.`, {
        location: { record_index: index, path: toPointer([...resolved, token]) },
        hint,
      });
    }
    resolved.push(at);
    node = next;
  }
  return { node, pointer: toPointer(resolved) };
}

/** The last member named `name` of an object node without `member()`, read in windows of 256. */
function lastMember(node: LazyNode, name: string): LazyNode | undefined {
  let found: LazyNode | undefined;
  const count = node.childCount ?? 0;
  for (let from = 0; from < count; from += 256) {
    for (const kid of node.children!(from, Math.min(count, from + 256))) if (kid.key === name) found = kid.node;
  }
  return found;
}

/** The first 30 member names of an object node, for a message. */
function keysOf(node: LazyNode): string[] {
  const count = node.childCount ?? 0;
  return node.children!(0, Math.min(count, 30)).map((c) => c.key!);
}
