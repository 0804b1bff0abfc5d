import { z } from 'zod';
import type { ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { fileFor, type ExplorerFile } from '../files';
import { inferWithinBudget, LazyValue } from '../json/schema-budget';
import { codePointCompare, isObject, sampleIndexes, valuesAt } from '../json/values';
import { ENVELOPE_RESERVE, jsonBytes, LAZY_RECORD_BYTES, lazyRoot, parseFields, parseUserPath, previewBytes, projectText, readRecordText, recordEscapesLoneSurrogate } from '../records';
import { replacedWarning } from '../text/surrogates';
import { mergeRepeatedNames } from '../json/scan';
import { ARRAY_LOOK, lazyKeys } from '../json/lazy-keys';
import { cutSchema, fieldsArg, handleArg, recordFormatArg, recordIndent, warningSchema } from '../schemas';

type Warning = z.infer<typeof warningSchema>;

/** The event loop runs at least this often while records are sampled, ms. */
const YIELD_MS = 20;

/**
 * Reads the records at `indexes`, skipping malformed ones (reported as warnings, first 5 named). Honours the
 * signal, reports progress in records, lets the event loop run between records, and stops at the request deadline
 * (a RESOURCE_LIMIT_EXCEEDED warning says how many were read).
 */
async function* sampled(ctx: ToolContext, file: ExplorerFile, indexes: number[], warnings: Warning[], instead?: (i: number) => unknown): AsyncGenerator<[number, unknown]> {
  let malformed = 0;
  let lastYield = Date.now();
  for (let k = 0; k < indexes.length; k++) {
    if (ctx.signal.aborted) throw ctx.error('CANCELLED', 'The request was cancelled.');
    if (ctx.clock.now() > ctx.deadline && k > 0) {
      warnings.push({ code: 'RESOURCE_LIMIT_EXCEEDED', message: `Stopped at the request deadline (requestTimeoutMs) after reading ${k} of the ${indexes.length} records to sample; the answer covers those.` });
      break;
    }
    if (Date.now() - lastYield > YIELD_MS) {
      await new Promise((r) => setImmediate(r));
      lastYield = Date.now();
    }
    const i = indexes[k]!;
    let value: unknown;
    try {
      value = instead?.(i) ?? file.opened.source.value(i);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== 'SYNTAX_ERROR' && code !== 'RESOURCE_LIMIT_EXCEEDED') throw err;
      if (++malformed <= 5) warnings.push({ code: code!, message: `Record ${i} was left out: ${(err as Error).message}`, record_index: i });
      continue;
    }
    if (k % 64 === 63) ctx.progress(k + 1, indexes.length, 'sampling records');
    yield [i, value];
  }
  if (malformed > 5) warnings.push({ code: 'SYNTAX_ERROR', message: `${malformed} unreadable records were left out in all.` });
}

/** A sampled record's laid-out text: whole, or its first page, bytes [0, end) of `total`. */
class RecordText {
  constructor(readonly text: string, readonly end: number, readonly total: number) {}
}

/** sample_size: records to read; 0 (or absent, or null) is the default, as in Thoth. */
const sampleSize = (def: number) => z.number().int().min(0).default(def).transform((n) => n || def);

// ---------------------------------------------------------------- extract_keys

const keysInput = z.object({
  handle: handleArg,
  path: z.string().max(16384).optional(),
  sample_size: sampleSize(100),
  offset: z.number().int().min(0).default(0),
});
const keysOutput = z.object({
  keys: z.array(z.string()),
  records_sampled: z.number().int(),
  records_total: z.number().int().optional().describe('The file\'s records, when records_sampled is fewer: what only the others hold is not in this answer (a larger sample_size looks at more)'),
  key_counts: z.record(z.string(), z.number().int()).optional().describe('The keys some sampled records lack, with how many have them (a key absent here is in every one)'),
  total_keys: z.number().int().optional().describe('When the keys do not all fit one answer: how many there are'),
  offset: z.number().int().optional(),
  next_offset: z.number().int().optional().describe('Pass as offset for the next keys'),
  truncated: z.boolean().optional(),
  cut: cutSchema.optional(),
  warnings: z.array(warningSchema).optional(),
});

/** The last key list an extract_keys call sorted, per file: the next pages of the same list cost only their keys. */
const keyLists = new WeakMap<ExplorerFile, { id: string; keys: string[]; counts: Map<string, number>; records: number; total?: number; warnings: Warning[] }>();

export const extractKeys: ToolDefinition<typeof keysInput, typeof keysOutput> = {
  name: 'extract_keys',
  title: 'List the keys',
  description:
    'Sorted keys of sample_size records spread over the file: {keys, records_sampled, key_counts}; key_counts names only keys some records lack. ' +
    'path lists a nested object\'s keys (user.address), through arrays of objects. Many keys page with offset',
  inputSchema: keysInput,
  outputSchema: keysOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const file = fileFor(ctx, args.handle);
    const parsed = args.path === undefined ? { tokens: [] } : parseUserPath(ctx, args.path);
    if (!('tokens' in parsed)) throw ctx.error('INVALID_ARGUMENT', 'extract_keys takes a singular path (user.address, /user/address or $.user.address).');
    const id = JSON.stringify([parsed.tokens, args.sample_size]);
    let list = keyLists.get(file);
    if (!list || list.id !== id) {
      const warnings: Warning[] = [];
      const counts = new Map<string, number>();
      const read: number[] = [];
      let n = 0;
      let total: number | undefined; // the file's records, when the sample asked for fewer
      const lazy = lazyRoot(ctx, file, 0);
      if (lazy && file.opened.source.count === 1) {
        // one large document: member names through lazy nodes, nothing parsed
        const { names, sampled: looked } = lazyKeys(lazy, parsed.tokens);
        n = 1;
        read.push(0);
        for (const k of names) counts.set(k, 1);
        if (looked) warnings.push({ code: 'SAMPLED', message: `Arrays with more than ${ARRAY_LOOK} elements were looked into through ${ARRAY_LOOK} elements spread evenly.` });
      } else {
        const indexes = sampleIndexes(file.opened.source.count, Math.min(args.sample_size, 100_000), 'even');
        if (indexes.length < file.opened.source.count) total = file.opened.source.count;
        for await (const [i, value] of sampled(ctx, file, indexes, warnings)) {
          n++;
          read.push(i);
          const here = new Set<string>();
          for (const v of valuesAt(value, parsed.tokens)) {
            const objs = Array.isArray(v) ? v.filter(isObject) : isObject(v) ? [v] : [];
            for (const o of objs) for (const k of Object.keys(o)) here.add(k);
          }
          for (const k of here) counts.set(k, (counts.get(k) ?? 0) + 1);
        }
      }
      const sorted = [...counts.keys()].sort(codePointCompare);
      // names read from lone surrogate escapes are U+FFFD (as every tool gives them): said so
      const replaced = replacedWarning(sorted, read, (i) => recordEscapesLoneSurrogate(ctx, file, i));
      if (replaced) warnings.push(replaced);
      list = { id, keys: sorted, counts, records: n, ...(total !== undefined ? { total } : {}), warnings };
    }
    const { keys, counts } = list;
    const offset = Math.min(args.offset ?? 0, keys.length);
    // Bound the answer: both lists carry each key, so a key costs about twice its length.
    const budget = ctx.limits.maxResultBytes - ENVELOPE_RESERVE;
    let used = 0;
    let end = offset;
    // A page holds at least one key, even one that alone passes the budget (said in the cut), so every page advances.
    for (; end < keys.length && end - offset < ctx.limits.maxItems; end++) {
      used += 2 * jsonBytes(keys[end]) + 12;
      if (used > budget && end > offset) break;
    }
    const alone = end === offset + 1 && used > budget;
    const kept = keys.slice(offset, end);
    const paged = offset > 0 || end < keys.length;
    const partial = kept.filter((k) => counts.get(k)! !== list!.records);
    // kept while pages remain (the next page then costs only its keys), dropped with the last
    if (end < keys.length) keyLists.set(file, list);
    else keyLists.delete(file);
    return {
      keys: kept,
      records_sampled: list.records,
      ...(list.total !== undefined ? { records_total: list.total } : {}),
      // only where the count differs from records_sampled: a key in every sampled record needs no count
      ...(partial.length ? { key_counts: Object.fromEntries(partial.map((k) => [k, counts.get(k)!])) } : {}),
      ...(paged ? { total_keys: keys.length, offset, ...(end < keys.length ? { next_offset: end } : {}) } : {}),
      ...(end < keys.length ? {
        truncated: true,
        cut: { limit: end - offset >= ctx.limits.maxItems ? 'maxItems' : 'maxResultBytes', at: `after ${end} of ${keys.length} keys (sorted)${alone ? '; this page\'s one key alone passes its byte budget' : ''}`, rest: `Pass offset ${end} for the next keys.` },
      } : {}),
      ...(list.warnings.length ? { warnings: list.warnings } : {}),
    };
  },
};

// ---------------------------------------------------------------- sample_records

const sampleInput = z.object({
  handle: handleArg,
  count: z.number().int().min(0).default(5),
  strategy: z.enum(['first', 'last', 'even']).default('first'),
  fields: fieldsArg,
  record_format: recordFormatArg,
});
const sampleOutput = z.object({
  records: z.array(z.object({
    index: z.number().int(),
    record: z.string().describe('The record as JSON text, one line (record_format pretty: re-indented); with fields, the object of those members'),
    truncated: z.boolean().optional(),
    record_bytes: z.number().int().optional(),
  })),
  total_records: z.number().int(),
  strategy: z.enum(['first', 'last', 'even']),
  truncated: z.boolean().optional(),
  cut: cutSchema.optional(),
  warnings: z.array(warningSchema).optional(),
});

export const sampleRecords: ToolDefinition<typeof sampleInput, typeof sampleOutput> = {
  name: 'sample_records',
  title: 'Sample records',
  description:
    'A few records as JSON text, to see the data: {records: [{index, record}], total_records}. strategy first, last or even (spread over the file); ' +
    'fields keeps only those members; one line each (record_format: pretty re-indents)',
  inputSchema: sampleInput,
  outputSchema: sampleOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const file = fileFor(ctx, args.handle);
    const fields = parseFields(ctx, args.fields);
    const total = file.opened.source.count;
    const indexes = sampleIndexes(total, Math.min(args.count, ctx.limits.maxItems), args.strategy);
    const warnings: Warning[] = [];
    const records: z.input<typeof sampleOutput>['records'] = [];
    const budget = ctx.limits.maxResultBytes - ENVELOPE_RESERVE;
    let used = 0;
    let cut: z.infer<typeof cutSchema> | undefined;
    // one line each unless asked (the record's compact text, as in the file)
    const indent = recordIndent(ctx, args.record_format);
    /**
     * Record i's text as get_record lays it out (the record, or its fields; numbers, strings and key order as in the
     * file), through ctx.json from the checked record text: a record over the preview size costs its first page only.
     */
    const laidOut = (i: number): RecordText => {
      const raw = readRecordText(ctx, file, i);
      const text = mergeRepeatedNames(fields ? projectText(raw, fields) : raw);
      // at most what one answer carries (get_record's bound): a first record always fits a page
      const page = ctx.json.page(text, { indent, maxBytes: previewBytes(ctx) });
      return new RecordText(page.text, page.end, page.total);
    };
    for await (const [index, value] of sampled(ctx, file, indexes, warnings, laidOut)) {
      const laid = value as RecordText;
      let item: (typeof records)[number];
      if (laid.end < laid.total) {
        // get_record pages the same text: the same fields and layout, from this offset
        const how = `get_record ${index}${fields ? ' with the same fields,' : ' with'} record_format "${indent ? 'pretty' : 'compact'}" and offset ${laid.end} reads on`;
        item = { index, record: `${laid.text}… [cut at ${laid.end} of ${laid.total} bytes: ${how}]`, truncated: true, record_bytes: laid.total };
      } else {
        item = { index, record: laid.text };
      }
      const itemBytes = jsonBytes(item) + 1;
      if (used + itemBytes > budget && records.length > 0) {
        cut = { limit: 'maxResultBytes', at: `after ${records.length} of ${indexes.length} records (next index ${index})`, rest: `Ask for fewer records, pass fields, or read record ${index} and the following with get_record.` };
        break;
      }
      used += itemBytes;
      records.push(item);
    }
    return { records, total_records: total, strategy: args.strategy, ...(cut ? { truncated: true, cut } : {}), ...(warnings.length ? { warnings } : {}) };
  },
};

// ---------------------------------------------------------------- get_schema

const schemaInput = z.object({
  handle: handleArg,
  sample_size: sampleSize(50),
  depth: z.number().int().min(1).max(64).default(16),
  offset: z.number().int().min(0).default(0),
});
const schemaOutput = z.object({
  schema: z.record(z.string(), z.unknown()).describe('JSON Schema: {type, properties, required, items}'),
  records_sampled: z.number().int(),
  records_total: z.number().int().optional().describe('The file\'s records, when records_sampled is fewer: what only the others hold is not in this answer (a larger sample_size looks at more)'),
  depth: z.number().int().optional().describe('When fewer levels than asked are described (the answer or the time ran out; a warning says which): how many'),
  members: z.object({
    total: z.number().int().describe('Members of the top-level object(s) seen'),
    offset: z.number().int(),
    next_offset: z.number().int().optional().describe('Pass as offset for the next members'),
  }).optional().describe('When the top-level members do not all fit one answer: which are listed'),
  warnings: z.array(warningSchema).optional(),
});

export const getSchema: ToolDefinition<typeof schemaInput, typeof schemaOutput> = {
  name: 'get_schema',
  title: 'Infer the schema',
  description:
    'Infer a JSON Schema from sample_size records spread over the file: {schema, records_sampled}. ' +
    'integer vs number, nullable types list null, x-frequency on optional members. Too big: fewer levels than depth (depth says so); top-level members page with offset',
  inputSchema: schemaInput,
  outputSchema: schemaOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const file = fileFor(ctx, args.handle);
    const source = file.opened.source;
    const started = ctx.clock.now();
    const warnings: Warning[] = [];
    const indexes = sampleIndexes(source.count, Math.min(args.sample_size, 100_000), 'even');
    // Large records (a big single document) are read through lazy nodes, level by level; others are parsed.
    const values: unknown[] = [];
    const read: number[] = [];
    for await (const [i, value] of sampled(ctx, file, indexes, warnings, (i) => {
      const root = source.node?.(i, '');
      return root && root.byteLength > Math.min(LAZY_RECORD_BYTES, ctx.limits.maxRecordBytes) ? new LazyValue(root) : undefined;
    })) {
      read.push(i);
      values.push(value);
    }
    const room = ctx.limits.maxResultBytes - ENVELOPE_RESERVE;
    const r = inferWithinBudget(values, {
      // levels until limits.detailTimeMs has passed (never past the deadline, but at least a moment for what was read)
      maxDepth: args.depth, maxBytes: room, until: Math.max(Math.min(ctx.deadline, started + ctx.limits.detailTimeMs), ctx.clock.now() + 50), now: () => ctx.clock.now(),
      maxProps: Math.ceil(room / 16), rootOffset: args.offset ?? 0,
    });
    if (jsonBytes(r.schema) > room) {
      throw ctx.error('RESOURCE_LIMIT_EXCEEDED', `Even the top level of the schema passes maxResultBytes (${ctx.limits.maxResultBytes} bytes).`, {
        limit: { name: 'maxResultBytes', limit: ctx.limits.maxResultBytes },
        hint: 'Use extract_keys (it pages the key list) or get_outline of one record.',
      });
    }
    if (r.depth < args.depth && r.stopped) {
      warnings.push({
        code: 'RESOURCE_LIMIT_EXCEEDED',
        message: r.stopped === 'bytes'
          ? `The schema is described to depth ${r.depth} (not ${args.depth}): one level more would pass maxResultBytes; deeper levels are given by type only. Use get_outline or extract_keys on a nested path for more.`
          : `The schema is described to depth ${r.depth} (not ${args.depth}): the next level did not finish within the time an answer may spend on detail (limits.detailTimeMs); deeper levels are given by type only. Use get_outline or extract_keys on a nested path for more.`,
      });
    }
    const replaced = replacedWarning(r.schema, read, (i) => recordEscapesLoneSurrogate(ctx, file, i));
    if (replaced) warnings.push(replaced);
    if (r.sampledArrays) warnings.push({ code: 'SAMPLED', message: 'Arrays longer than 256 elements were described from 256 of their elements, spread evenly.' });
    if (JSON.stringify(r.schema).includes('"x-more-members":true')) {
      warnings.push({ code: 'RESOURCE_LIMIT_EXCEEDED', message: 'Some objects have more members than one answer can list (x-more-members: true there); extract_keys pages the names.' });
    }
    return {
      schema: r.schema as unknown as Record<string, unknown>,
      records_sampled: values.length,
      ...(indexes.length < source.count ? { records_total: source.count } : {}),
      ...(r.stopped ? { depth: r.depth } : {}),
      ...(r.root ? { members: { total: r.root.total, offset: r.root.offset, ...(r.root.next !== undefined ? { next_offset: r.root.next } : {}) } } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
  },
};

