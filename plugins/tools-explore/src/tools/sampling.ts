import { z } from 'zod';
import type { ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { fileFor, type ExplorerFile } from '../files';
import { inferWithinBudget, LazyValue } from '../json/schema-budget';
import { codePointCompare, isObject, sampleIndexes, valuesAt } from '../json/values';
import { ENVELOPE_RESERVE, jsonBytes, LAZY_RECORD_BYTES, lazyRoot, parseFields, parseUserPath, projectText, projectValue, readRecordText } from '../records';
import { mergeRepeatedNames } from '../json/scan';
import { ARRAY_LOOK, lazyKeys } from '../json/lazy-keys';
import { cutSchema, fieldsArg, handleArg, warningSchema } from '../schemas';

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

/** The first page of an over-size record's compact text: bytes [0, end) of `total`. */
class CutRecord {
  constructor(readonly text: string, readonly end: number, readonly total: number) {}
}

/** sample_size: records to read; 0 (or absent, or null) is the default, as in Thoth. */
const sampleSize = (def: number) => z.number().int().min(0).default(def).transform((n) => n || def);

// ---------------------------------------------------------------- extract_keys

const keysInput = z.object({
  handle: handleArg,
  path: z.string().max(16384).optional().describe('Nested path whose object keys to list (e.g. "user" or "user.address"); default the top level. Arrays of objects on the way are looked into.'),
  sample_size: sampleSize(100).describe('Records to sample, spread evenly over the file (default 100; 0 = default)'),
  offset: z.number().int().min(0).default(0).describe('Keys (in sorted order) to skip: next_offset of a previous answer'),
});
const keysOutput = z.object({
  keys: z.array(z.string()),
  records_sampled: z.number().int(),
  key_counts: z.record(z.string(), z.number().int()).describe('For each key, how many sampled records have it'),
  total_keys: z.number().int().optional().describe('When the keys do not all fit one answer: how many there are'),
  offset: z.number().int().optional(),
  next_offset: z.number().int().optional().describe('Pass as offset for the next keys'),
  truncated: z.boolean().optional(),
  cut: cutSchema.optional(),
  warnings: z.array(warningSchema).optional(),
});

/** The last key list an extract_keys call sorted, per file: the next pages of the same list cost only their keys. */
const keyLists = new WeakMap<ExplorerFile, { id: string; keys: string[]; counts: Map<string, number>; records: number; warnings: Warning[] }>();

export const extractKeys: ToolDefinition<typeof keysInput, typeof keysOutput> = {
  name: 'extract_keys',
  title: 'List the keys',
  description:
    'Discover the unique keys across records: {keys, records_sampled, key_counts}. keys are sorted; key_counts tells how many sampled records have each key (a key in every record has the count records_sampled). ' +
    'path (dot path, JSON Pointer or $-path) lists the keys of a nested object instead, e.g. "user.address"; when the value there is an array of objects (or the path passes through arrays), the keys of every object element are collected. ' +
    'sample_size records (default 100) are read, spread evenly across the whole file; malformed records are left out and reported in warnings. ' +
    'Many keys are paged: total_keys and next_offset say there are more; pass offset for the next page. In a document too large to read whole, only member names are read.',
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
      let n = 0;
      const lazy = lazyRoot(ctx, file, 0);
      if (lazy && file.opened.source.count === 1) {
        // one large document: member names through lazy nodes, nothing parsed
        const { names, sampled: looked } = lazyKeys(lazy, parsed.tokens);
        n = 1;
        for (const k of names) counts.set(k, 1);
        if (looked) warnings.push({ code: 'SAMPLED', message: `Arrays with more than ${ARRAY_LOOK} elements were looked into through ${ARRAY_LOOK} elements spread evenly.` });
      } else {
        const indexes = sampleIndexes(file.opened.source.count, Math.min(args.sample_size, 100_000), 'even');
        for await (const [, value] of sampled(ctx, file, indexes, warnings)) {
          n++;
          const here = new Set<string>();
          for (const v of valuesAt(value, parsed.tokens)) {
            const objs = Array.isArray(v) ? v.filter(isObject) : isObject(v) ? [v] : [];
            for (const o of objs) for (const k of Object.keys(o)) here.add(k);
          }
          for (const k of here) counts.set(k, (counts.get(k) ?? 0) + 1);
        }
      }
      list = { id, keys: [...counts.keys()].sort(codePointCompare), counts, records: n, warnings };
    }
    const { keys, counts } = list;
    const offset = Math.min(args.offset ?? 0, keys.length);
    // Bound the answer: both lists carry each key, so a key costs about twice its length.
    const budget = ctx.limits.maxResultBytes - ENVELOPE_RESERVE;
    let used = 0;
    let end = offset;
    for (; end < keys.length && end - offset < ctx.limits.maxItems; end++) {
      used += 2 * jsonBytes(keys[end]) + 12;
      if (used > budget) break;
    }
    const kept = keys.slice(offset, end);
    const paged = offset > 0 || end < keys.length;
    // kept while pages remain (the next page then costs only its keys), dropped with the last
    if (end < keys.length) keyLists.set(file, list);
    else keyLists.delete(file);
    return {
      keys: kept,
      records_sampled: list.records,
      key_counts: Object.fromEntries(kept.map((k) => [k, counts.get(k)!])),
      ...(paged ? { total_keys: keys.length, offset, ...(end < keys.length ? { next_offset: end } : {}) } : {}),
      ...(end < keys.length ? {
        truncated: true,
        cut: { limit: end - offset >= ctx.limits.maxItems ? 'maxItems' : 'maxResultBytes', at: `after ${end} of ${keys.length} keys (sorted)`, rest: `Pass offset ${end} for the next keys.` },
      } : {}),
      ...(list.warnings.length ? { warnings: list.warnings } : {}),
    };
  },
};

// ---------------------------------------------------------------- sample_records

const sampleInput = z.object({
  handle: handleArg,
  count: z.number().int().min(0).default(5).describe('Number of records (default 5; 0: none)'),
  strategy: z.enum(['first', 'last', 'even']).default('first').describe('"first" (default), "last", or "even" (evenly spaced: index floor(i*(total-1)/(count-1)))'),
  fields: fieldsArg,
});
const sampleOutput = z.object({
  records: z.array(z.object({
    index: z.number().int(),
    record: z.unknown().describe('The record as a JSON value (exact numbers); with fields, an object keyed by the fields'),
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
    'Return a representative sample of records as JSON values: {records: [{index, record}], total_records, strategy}. ' +
    'strategy "first" (default) takes the first count records, "last" the final count, "even" spreads them over the file: index floor(i*(total-1)/(count-1)) for i = 0..count-1 (3 of 10 gives 0, 4, 9; count 1 gives 0). ' +
    'fields (dot paths or JSON Pointers) keeps only those members of each record — use it to keep the answer small. ' +
    'A record whose compact text passes the preview size is replaced by the start of that text as in the file, marked cut (truncated: true, record_bytes); get_value_at_path with path "" and the offset the marker names reads on. When the result would pass maxResultBytes the list stops and cut says where: use get_record for the rest.',
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
    /**
     * Record i when its compact text (the record, or its fields, as get_value_at_path's text shows them) passes the
     * preview size: that text's first page, laid out by ctx.json from the checked record text, so nothing past the
     * page is built (no value, no whole serialization); undefined when it fits, and the record is read as a value.
     */
    const overSize = (i: number): CutRecord | undefined => {
      const raw = readRecordText(ctx, file, i);
      const text = mergeRepeatedNames(fields ? projectText(raw, fields) : raw);
      const page = ctx.json.page(text, { indent: '', maxBytes: ctx.limits.maxRecordPreviewBytes });
      return page.end < page.total ? new CutRecord(page.text, page.end, page.total) : undefined;
    };
    for await (const [index, value] of sampled(ctx, file, indexes, warnings, overSize)) {
      let item: (typeof records)[number];
      if (value instanceof CutRecord) {
        const rest = fields
          ? 'get_value_at_path reads each field in parts'
          : `get_value_at_path ${index} with path "" and offset ${value.end} reads on`;
        item = { index, record: `${value.text}… [cut at ${value.end} of ${value.total} bytes: ${rest}]`, truncated: true, record_bytes: value.total };
      } else {
        item = { index, record: fields ? projectValue(value, fields) : value };
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
  sample_size: sampleSize(50).describe('Records to sample, spread evenly over the file (default 50; 0 = default)'),
  depth: z.number().int().min(1).max(64).default(16).describe('Nesting levels described (default 16); deeper values are given by type only'),
  offset: z.number().int().min(0).default(0).describe('The top-level object\'s members listed from this one on (first-seen order): members.next_offset of a previous answer'),
});
const schemaOutput = z.object({
  schema: z.record(z.string(), z.unknown()).describe('JSON Schema: {type, properties, required, items}'),
  records_sampled: z.number().int(),
  depth: z.number().int().optional().describe('When fewer levels than asked are described (the answer or the time ran out; a warning says which): how many'),
  members: z.object({
    total: z.number().int().describe('Members of the top-level object(s) seen'),
    offset: z.number().int(),
    next_offset: z.number().int().optional().describe('Pass as offset for the next members'),
  }).optional().describe('When the top-level members do not all fit one answer: which are listed'),
  warnings: z.array(warningSchema).optional(),
});

/** Time for the levels after the first: an answer within about a second, whatever the size of the file. */
const SCHEMA_MS = 800;

export const getSchema: ToolDefinition<typeof schemaInput, typeof schemaOutput> = {
  name: 'get_schema',
  title: 'Infer the schema',
  description:
    'Infer a JSON Schema from sampled records: {schema: {type, properties, required}, records_sampled}. ' +
    'Records are sampled evenly across the whole file (sample_size, default 50), not only the first ones. ' +
    'Types are JSON Schema names: integer (no fractional part) is told from number, and a nullable member lists null among its types (["null", "string"]). ' +
    'Nested objects get their own properties and required; arrays get items merged over their elements (long arrays: 256 elements spread evenly). ' +
    'required lists the members present in every sampled record; each optional member carries x-occurrences (how many records had it) and x-frequency (that share). ' +
    'Levels are described one at a time while the answer fits and about a second lasts; when fewer than asked, depth says how many and a warning why. ' +
    'A top-level object with more members than fit is paged: members {total, offset, next_offset}; pass offset for the next.',
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
    for await (const [i, value] of sampled(ctx, file, indexes, warnings, (i) => {
      const root = source.node?.(i, '');
      return root && root.byteLength > Math.min(LAZY_RECORD_BYTES, ctx.limits.maxRecordBytes) ? new LazyValue(root) : undefined;
    })) {
      void i;
      values.push(value);
    }
    const room = ctx.limits.maxResultBytes - ENVELOPE_RESERVE;
    const r = inferWithinBudget(values, {
      // levels until about a second has passed (never past the deadline, but at least a moment for what was read)
      maxDepth: args.depth, maxBytes: room, until: Math.max(Math.min(ctx.deadline, started + SCHEMA_MS), ctx.clock.now() + 50), now: () => ctx.clock.now(),
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
          : `The schema is described to depth ${r.depth} (not ${args.depth}): the next level did not finish within the time an answer takes (about a second); deeper levels are given by type only. Use get_outline or extract_keys on a nested path for more.`,
      });
    }
    if (r.sampledArrays) warnings.push({ code: 'SAMPLED', message: 'Arrays longer than 256 elements were described from 256 of their elements, spread evenly.' });
    if (JSON.stringify(r.schema).includes('"x-more-members":true')) {
      warnings.push({ code: 'RESOURCE_LIMIT_EXCEEDED', message: 'Some objects have more members than one answer can list (x-more-members: true there); extract_keys pages the names.' });
    }
    return {
      schema: r.schema as unknown as Record<string, unknown>,
      records_sampled: values.length,
      ...(r.stopped ? { depth: r.depth } : {}),
      ...(r.root ? { members: { total: r.root.total, offset: r.root.offset, ...(r.root.next !== undefined ? { next_offset: r.root.next } : {}) } } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
  },
};
