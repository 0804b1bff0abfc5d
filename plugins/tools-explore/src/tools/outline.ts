import { z } from 'zod';
import type { MarkedTextBuilder, LazyNode, MarkedText, ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { markedField, markedText } from '../toolkit';
import { fileFor } from '../files';
import { members as membersOf, spanAt, typeAt, type JsonType } from '../json/scan';
import { emptyPathHint, ENVELOPE_RESERVE, jsonBytes, lazyNodeAt, lazyRoot, parseUserPath, readRecord, resolvePath, toPointer, type ToolWarning } from '../records';
import { cutSchema, handleArg, warningSchema } from '../schemas';

/** One node of an outline. `bytes` is the size of the value's text in the file (UTF-8). */
export interface OutlineNode {
  key?: string | number;
  type: JsonType;
  bytes: number;
  /** Members of an object / elements of an array. */
  children?: number;
  /** Scalars: the value's JSON text, strings longer than 80 characters shortened with "…". */
  value?: string;
  /**
   * Only when `value` holds a `…` of the data's own: where the `…` markers of a shortened value are (Unicode code
   * points from its start; [] when it was not shortened), as a search match's `preview_markers`.
   */
  value_markers?: number[];
  members?: OutlineNode[];
  /** Members not listed (past max_members). */
  more?: number;
}

const MAX_STRING = 80;

/** The outline of the value whose text is `text[start, end)`, `depth` levels of members deep. */
export function outline(text: string, start: number, end: number, depth: number, maxMembers: number, offset = 0): OutlineNode {
  const type = typeAt(text, start);
  const node: OutlineNode = { type, bytes: Buffer.byteLength(text.slice(start, end)) };
  if (type === 'object' || type === 'array') {
    let n = 0;
    const members: OutlineNode[] = [];
    for (const ch of membersOf(text, start)) { // a repeated name once, with its last value
      if (depth > 0 && n >= offset && members.length < maxMembers) members.push({ key: ch.key, ...outline(text, ch.start, ch.end, depth - 1, maxMembers) });
      n++;
    }
    node.children = n;
    if (depth > 0) {
      node.members = members;
      if (n > offset + members.length) node.more = n - offset - members.length;
    }
  } else {
    Object.assign(node, markedField('value', shorten(text.slice(start, end), type)));
  }
  return node;
}

const input = z.object({
  handle: handleArg,
  index: z.number().int().min(0).default(0),
  path: z.string().max(16384).optional(),
  depth: z.number().int().min(0).max(8).default(2),
  max_members: z.number().int().min(1).default(50),
  offset: z.number().int().min(0).default(0),
});
const output = z.object({
  index: z.number().int(),
  pointer: z.string().describe('RFC 6901 pointer of the outlined value inside the record'),
  outline: z.record(z.string(), z.unknown()).describe('{type, bytes, children, members: [{key, type, bytes, children?, value?, value_markers?, members?}], more?}; value_markers only when a value holds … itself: where the … markers of a shortened value are (code points)'),
  offset: z.number().int().optional().describe('With offset: the first member listed'),
  next_offset: z.number().int().optional().describe('More members of the outlined value follow: pass as offset'),
  truncated: z.boolean().optional(),
  cut: cutSchema.optional(),
  warnings: z.array(warningSchema).optional().describe('About the path: e.g. NOT_I_REGEXP, a JSONPath match()/search() pattern that matches nothing under RFC 9535'),
});

export const getOutline: ToolDefinition<typeof input, typeof output> = {
  name: 'get_outline',
  title: 'Outline a record',
  description:
    'The shape of a record, or of a huge document (GeoJSON), without reading it all: members with type, children, bytes, short values. ' +
    'next_offset pages. Then get_value_at_path',
  inputSchema: input,
  outputSchema: output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler(args, ctx) {
    const file = fileFor(ctx, args.handle);
    const lazy = lazyRoot(ctx, file, args.index);
    const parsedPath = args.path === undefined ? { tokens: [] } : parseUserPath(ctx, args.path);
    if (lazy && 'tokens' in parsedPath) {
      const { node, pointer } = lazyNodeAt(ctx, args.index, lazy, parsedPath.tokens, args.path ?? '', 'get_outline without a path shows the top-level members.');
      return bounded(ctx, args, pointer, (depth, max) => lazyOutline(node, depth, max, args.offset ?? 0));
    }
    const { value, text } = readRecord(ctx, file, args.index);
    const warnings: ToolWarning[] = [];
    const tokens = args.path === undefined ? [] : resolvePath(ctx, args.path, value, warnings);
    const span = tokens === null ? null : spanAt(text, tokens);
    if (tokens === null || span === null || 'missing' in span) {
      throw ctx.error('NOT_FOUND', `Path ${JSON.stringify(args.path)} not found in record ${args.index}.`, {
        location: { record_index: args.index },
        hint: emptyPathHint(warnings, 'get_outline without a path shows the top-level members.'),
      });
    }
    const result = bounded(ctx, args, toPointer(tokens), (depth, max) => outline(text, span.start, span.end, depth, max, args.offset ?? 0));
    return warnings.length ? { ...result, warnings } : result;
  },
};

/**
 * Builds the outline, showing fewer levels, then fewer members, until it fits maxResultBytes; says so when it had to.
 * The values shown are JSON text of the record: their lone surrogate escapes are written `\ufffd` through ctx.json
 * (the same length; the answer then carries the LONE_SURROGATE_REPLACED warning), as every tool gives them.
 */
function bounded(ctx: ToolContext, args: z.output<typeof input>, pointer: string, build: (depth: number, max: number) => OutlineNode): z.input<typeof output> {
  const budget = ctx.limits.maxResultBytes - ENVELOPE_RESERVE;
  let depth = args.depth;
  let max = Math.min(args.max_members, ctx.limits.maxItems);
  let tree = build(depth, max);
  let reduced = false;
  while (jsonBytes(tree) > budget && (depth > 1 || max > 1)) {
    reduced = true;
    if (depth > 1) depth--;
    else max = Math.max(1, Math.floor(max / 2));
    tree = build(depth, max);
  }
  wellFormedValues(ctx, tree);
  // the outlined value's own members page: the next page starts after the ones listed
  const offset = args.offset ?? 0;
  const next = tree.members && tree.more ? offset + tree.members.length : undefined;
  return {
    index: args.index,
    pointer,
    outline: tree as unknown as Record<string, unknown>,
    ...(offset > 0 || next !== undefined ? { offset } : {}),
    ...(next !== undefined ? { next_offset: next } : {}),
    ...(reduced ? { truncated: true, cut: { limit: 'maxResultBytes', at: `depth ${depth}, ${max} members per container`, rest: 'Outline a deeper path, or lower depth / max_members; next_offset pages the members of the outlined value.' } } : {}),
  };
}

/** The outline of a lazy node (RecordSource.node): only the containers shown are scanned. */
export function lazyOutline(node: LazyNode, depth: number, maxMembers: number, offset = 0): OutlineNode {
  const out: OutlineNode = { type: node.type, bytes: node.byteLength };
  if (node.type === 'object' || node.type === 'array') {
    const count = node.childCount ?? 0;
    const wanted = depth > 0 ? maxMembers : 0;
    const { total: n, shown } = node.type === 'object' ? objectMembers(node, offset, wanted) : { total: count, shown: node.children!(Math.min(offset, count), Math.min(count, offset + wanted)) };
    out.children = n;
    if (depth > 0) {
      const from = Math.min(offset, n);
      out.members = shown.map((c) => ({ key: c.key ?? c.index!, ...lazyOutline(c.node, depth - 1, maxMembers) }));
      if (n > from + shown.length) out.more = n - from - shown.length;
    }
  } else {
    // a string over 64 KiB is not decoded: `"…"`, the `…` a marker
    const big = node.byteLength > 64 * 1024 && node.type === 'string';
    Object.assign(out, markedField('value', big ? markedText().data('"').mark('…').data('"').build() : shorten(JSON.stringify(node.value()) ?? 'null', node.type)));
  }
  return out;
}

/**
 * The members of a lazy object as every tool shows them: a repeated name once, at its first position, with its last
 * value (`JSON.parse`'s rule). `total` counts distinct names; `shown` are those `[from, from + max)` in that order.
 * Names alone are read to count; without repeated names (the common case) the children are listed as they are.
 */
function objectMembers(node: LazyNode, from: number, max: number): { total: number; shown: { key?: string; index?: number; node: LazyNode }[] } {
  const count = node.childCount ?? 0;
  const WINDOW = 1024;
  // distinct names: the children that are the last of their name (`member` resolves a name to its last member)
  let total = 0;
  for (let m = 0; m < count; m += WINDOW) {
    const kids = node.children!(m, Math.min(count, m + WINDOW));
    for (let j = 0; j < kids.length; j++) if (node.member!(kids[j]!.key!)?.index === m + j) total++;
  }
  if (total === count) return { total, shown: node.children!(Math.min(from, count), Math.min(count, from + max)) };
  // repeated names: walk in document order, listing each name where it first appears, with its last value
  const seen = new Set<string>();
  const shown: { key?: string; index?: number; node: LazyNode }[] = [];
  for (let m = 0, d = 0; m < count && d < from + max; m += WINDOW) {
    for (const kid of node.children!(m, Math.min(count, m + WINDOW))) {
      if (seen.has(kid.key!)) continue;
      seen.add(kid.key!);
      if (d >= from && d < from + max) shown.push({ key: kid.key!, node: node.member!(kid.key!)!.node });
      if (++d >= from + max) break;
    }
  }
  return { total, shown };
}

/** A scalar's JSON text; a string's longer than MAX_STRING (80) UTF-16 units cut at 79 at most, then a `…` marker and `"`. */
function shorten(v: string, type: JsonType): MarkedText {
  if (type !== 'string' || v.length <= MAX_STRING) return { text: v, markers: [] };
  // cut before the escape or character that would cross MAX_STRING - 1: never inside `\u00e9`, nor between the
  // halves of a pair (`\ud83d\ude00`, or the two UTF-16 units of one character)
  let end = 1;
  for (let i = 1; i < MAX_STRING - 1;) {
    const c = v.charCodeAt(i);
    let len = 1;
    if (c === 0x5c) {
      len = v.charCodeAt(i + 1) === 0x75 ? 6 : 2;
      const u = len === 6 ? parseInt(v.slice(i + 2, i + 6), 16) : 0;
      if (u >= 0xd800 && u <= 0xdbff && v.startsWith('\\u', i + 6)) {
        const w = parseInt(v.slice(i + 8, i + 12), 16);
        if (w >= 0xdc00 && w <= 0xdfff) len = 12;
      }
    } else if (c >= 0xd800 && c <= 0xdbff) len = 2;
    if (i + len > MAX_STRING - 1) break;
    i += len;
    end = i;
  }
  return markedText().data(v.slice(0, end)).mark('…').data('"').build();
}

/** Every scalar value shown in `node` with its lone surrogate escapes written `\ufffd` (ctx.json counts them). */
function wellFormedValues(ctx: ToolContext, node: OutlineNode): void {
  const stack = [node];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.value !== undefined) n.value = ctx.json.wellFormedText(n.value);
    if (n.members) for (const m of n.members) stack.push(m);
  }
}
