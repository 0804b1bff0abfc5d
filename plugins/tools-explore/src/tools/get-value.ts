import { z } from 'zod';
import type { ToolDefinition } from 'mcpgw/plugin-api';
import { fileFor } from '../files';
import { children, members, mergeRepeatedNames, spanAt, typeAt } from '../json/scan';
import { lexemeIsInteger } from '../json/values';
import { cutAtCharBoundary, emptyPathHint, missDetail, lazyNodeAt, lazyRoot, lengthWarnings, pageKeptText, pageText, parseUserPath, previewBytes, readRecord, readRecordText, resolvePath, toPointer, type ToolWarning } from '../records';
import type { ExplorerFile } from '../files';
import type { Tokens } from '../json/paths';
import type { LazyNode, ToolContext } from 'mcpgw/plugin-api';
import { handleArg, indexArg, warningSchema } from '../schemas';

const input = z.object({
  handle: handleArg,
  index: indexArg,
  path: z.string().max(16384),
  offset: z.number().int().min(0).optional(),
  length: z.number().int().min(1).optional(),
});
const output = z.object({
  value: z.string().describe('The value as compact JSON text, numbers and strings exactly as in the file'),
  path: z.string(),
  value_type: z.enum(['object', 'array', 'string', 'number', 'boolean', 'null']),
  pointer: z.string().optional().describe('For a JSONPath path: the RFC 6901 pointer of the node it selected'),
  integer: z.boolean().optional().describe('For numbers: true when the number has no fractional part'),
  truncated: z.boolean().optional(),
  value_bytes: z.number().int().optional(),
  offset: z.number().int().optional(),
  next_offset: z.number().int().optional(),
  warnings: z.array(warningSchema).optional().describe('About the path: e.g. NOT_I_REGEXP, a JSONPath match()/search() pattern that matches nothing under RFC 9535; RESOURCE_LIMIT_EXCEEDED when length asked for more than a part holds (limit maxRecordPreviewBytes)'),
});

export const getValueAtPath: ToolDefinition<typeof input, typeof output> = {
  name: 'get_value_at_path',
  title: 'Read a nested value',
  description:
    'One value of record index as compact JSON text (a string comes quoted): {value, path, value_type}. ' +
    'path: user.address.city, items[2].name, items[-1], [\'a.b\'], /user/name (pointer) or $.user.name (JSONPath, first node). ' +
    'A missing member is NOT_FOUND naming the keys there',
  inputSchema: input,
  outputSchema: output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler(args, ctx) {
    const file = fileFor(ctx, args.handle);
    const lazy = lazyRoot(ctx, file, args.index);
    const parsedPath = parseUserPath(ctx, args.path);
    if (lazy && 'tokens' in parsedPath) return lazyValue(ctx, file, lazy, args, parsedPath.tokens);
    // A dot path or pointer needs the record's text only; a JSONPath is evaluated on its value.
    const { value, text } = 'tokens' in parsedPath ? { value: undefined, text: readRecordText(ctx, file, args.index) } : readRecord(ctx, file, args.index);
    const warnings: ToolWarning[] = [];
    const tokens = 'tokens' in parsedPath ? parsedPath.tokens : resolvePath(ctx, args.path, value, warnings);
    if (tokens === null) {
      throw ctx.error('NOT_FOUND', `The JSONPath ${args.path} selects nothing in record ${args.index}.`, {
        location: { record_index: args.index },
        hint: emptyPathHint(warnings, 'get_outline shows the members of a record.'),
      });
    }
    const span = spanAt(text, tokens);
    if ('missing' in span) {
      const okTokens = tokens.slice(0, span.missing);
      const at = spanAt(text, okTokens) as { start: number; end: number };
      const kind = typeAt(text, at.start);
      const keys = kind === 'object' ? members(text, at.start).map((c) => c.key as string) : [];
      const where = okTokens.length ? `at ${toPointer(okTokens)}` : 'at the record root';
      const count = kind === 'object' ? keys.length : kind === 'array' ? [...children(text, at.start)].length : 0;
      const detail = missDetail(kind, where, tokens[span.missing]!, keys, count);
      throw ctx.error('NOT_FOUND', `Path ${JSON.stringify(args.path)} not found in record ${args.index}: ${detail}.`, {
        location: { record_index: args.index, path: toPointer(tokens.slice(0, span.missing + 1)) },
        hint: 'extract_keys or get_outline show the keys of a record.',
      });
    }
    const lexeme = text.slice(span.start, span.end);
    const type = typeAt(text, span.start);
    const page = pageText(ctx, mergeRepeatedNames(lexeme), { indent: '', offset: args.offset, length: args.length, max: previewBytes(ctx), tool: 'get_value_at_path', what: 'value text' });
    warnings.push(...lengthWarnings(ctx, args.length, page));
    return {
      value: page.text,
      path: args.path,
      value_type: type,
      // the location is the path itself unless a JSONPath was evaluated to find it
      ...('tokens' in parsedPath ? {} : { pointer: toPointer(tokens) }),
      ...(type === 'number' ? { integer: lexemeIsInteger(lexeme) } : {}),
      ...(page.total_bytes !== undefined ? { truncated: page.truncated, value_bytes: page.total_bytes, offset: page.offset } : {}),
      ...(page.next_offset !== undefined ? { next_offset: page.next_offset } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
  },
};

/**
 * get_value_at_path inside a big record through lazy nodes: only the containers on the path are scanned, and
 * the value is parsed only when it is at most maxRecordBytes.
 */
function lazyValue(ctx: ToolContext, file: ExplorerFile, root: LazyNode, args: z.output<typeof input>, tokens: Tokens): z.input<typeof output> {
  const { node, pointer } = lazyNodeAt(ctx, args.index, root, tokens, args.path, 'get_outline shows the members of a record or of a path inside it.');
  if (node.byteLength > ctx.limits.maxRecordBytes) {
    if (!node.bytes) {
      throw ctx.error('RESOURCE_LIMIT_EXCEEDED', `The value at ${pointer} is ${node.byteLength} bytes, over maxRecordBytes ${ctx.limits.maxRecordBytes}.`, {
        limit: { name: 'maxRecordBytes', limit: ctx.limits.maxRecordBytes, value: node.byteLength },
        hint: 'Read a deeper path (get_outline shows the members), e.g. features[0].',
      });
    }
    // Too long to parse: its text as in the file, read in parts (never parsed).
    const max = previewBytes(ctx);
    const offset = args.offset ?? 0;
    if (offset > node.byteLength) throw ctx.error('INVALID_ARGUMENT', `offset ${offset} is past the end of the value text (${node.byteLength} bytes).`);
    const want = Math.min(args.length ?? max, max);
    // room to skip the rest of a character the offset falls inside (≤ 3 bytes) and to end on a whole one (≤ 4)
    const raw = node.bytes(offset, Math.min(node.byteLength, offset + want + 7));
    let start = 0;
    while (start < raw.length && (raw[start]! & 0xc0) === 0x80) start++; // an offset inside a character: the next one
    // A character boundary outside any escape (ctx.json.safeCut); at least one character or escape.
    let end = ctx.json.safeCut(raw, start, Math.min(raw.length, start + want));
    if (end === start) end = Math.max(cutAtCharBoundary(raw, start, 1), firstPieceEnd(ctx, raw, start));
    const from = offset + start, to = offset + end;
    const part = ctx.json.wellFormedText(raw.subarray(start, end).toString('utf8'));
    const marked = to < node.byteLength && args.offset === undefined && args.length === undefined;
    const warnings = lengthWarnings(ctx, args.length, { offset: from, ...(to < node.byteLength ? { next_offset: to } : {}) });
    return {
      value: marked ? `${part}\n… [cut: bytes ${from}–${to} of ${node.byteLength} (the value's text as in the file); call get_value_at_path with offset ${to} for the rest]` : part,
      path: args.path,
      value_type: node.type,
      truncated: true,
      value_bytes: node.byteLength,
      offset: from,
      ...(to < node.byteLength ? { next_offset: to } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
  }
  // A value longer than a page is kept with the handle: its next pages cost their own bytes (pageKeptText).
  let text: string | undefined;
  const page = pageKeptText(ctx, file, `value ${args.index} ${pointer}`, () => (text = nodeText(node)), { indent: '', offset: args.offset, length: args.length, max: previewBytes(ctx), tool: 'get_value_at_path', what: 'value text' });
  const warnings = lengthWarnings(ctx, args.length, page);
  return {
    value: page.text,
    path: args.path,
    value_type: node.type,
    ...(node.type === 'number' ? { integer: lexemeIsInteger(text ?? nodeText(node)) } : {}),
    ...(page.total_bytes !== undefined ? { truncated: page.truncated, value_bytes: page.total_bytes, offset: page.offset } : {}),
    ...(page.next_offset !== undefined ? { next_offset: page.next_offset } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}

/** The end of the first character or escape sequence of `raw` from `start` (an escape is at most 12 bytes). */
function firstPieceEnd(ctx: ToolContext, raw: Uint8Array, start: number): number {
  for (let k = start + 1; k <= Math.min(raw.length, start + 12); k++) if (ctx.json.safeCut(raw, start, k) === k) return k;
  return Math.min(raw.length, start + 1);
}

/**
 * A lazy node's value as JSON text for paging: its text as in the file (repeated names merged) once it parses, so a
 * big value is not built with exact numbers only to be cut to a page; otherwise its value (which throws the kernel's
 * located SYNTAX_ERROR or RESOURCE_LIMIT_EXCEEDED).
 */
function nodeText(node: LazyNode): string {
  if (node.text) {
    const text = node.text();
    let ok = true;
    try { JSON.parse(text); } catch { ok = false; }
    if (ok) return mergeRepeatedNames(text);
  }
  return JSON.stringify(node.value()) ?? 'null';
}
