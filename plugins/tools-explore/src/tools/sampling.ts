import { z } from 'zod';
import type { ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { fileFor, type ExplorerFile } from '../files';
import { schemaBuilder } from '../json/schema';
import { codePointCompare, isObject, sampleIndexes, valuesAt } from '../json/values';
import { ENVELOPE_RESERVE, jsonBytes, parseFields, parseUserPath, projectValue } from '../records';
import { cutSchema, fieldsArg, handleArg, warningSchema } from '../schemas';

type Warning = z.infer<typeof warningSchema>;

/** The event loop runs at least this often while records are sampled, ms. */
const YIELD_MS = 20;

/**
 * Reads the records at `indexes`, skipping malformed ones (reported as warnings, first 5 named). Honours the
 * signal, reports progress in records, lets the event loop run between records, and stops at the request deadline
 * (a RESOURCE_LIMIT_EXCEEDED warning says how many were read).
 */
async function* sampled(ctx: ToolContext, file: ExplorerFile, indexes: number[], warnings: Warning[]): AsyncGenerator<[number, unknown]> {
  let malformed = 0;
  let lastYield = Date.now();
  for (let k = 0; k < indexes.length; k++) {
    if (ctx.signal.aborted) throw ctx.error('CANCELLED', 'The request was cancelled.');
    const now = Date.now();
    if (now > ctx.deadline && k > 0) {
      warnings.push({ code: 'RESOURCE_LIMIT_EXCEEDED', message: `Stopped at the request deadline (requestTimeoutMs) after reading ${k} of the ${indexes.length} records to sample; the answer covers those.` });
      break;
    }
    if (now - lastYield > YIELD_MS) {
      await new Promise((r) => setImmediate(r));
      lastYield = Date.now();
    }
    const i = indexes[k]!;
    let value: unknown;
    try {
      value = file.opened.source.value(i);
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

const sampleSize = (def: number) => z.number().int().min(1).default(def);

// ---------------------------------------------------------------- extract_keys

const keysInput = z.object({
  handle: handleArg,
  path: z.string().max(16384).optional().describe('Nested path whose object keys to list (e.g. "user" or "user.address"); default the top level. Arrays of objects on the way are looked into.'),
  sample_size: sampleSize(100).describe('Records to sample, spread evenly over the file (default 100)'),
});
const keysOutput = z.object({
  keys: z.array(z.string()),
  records_sampled: z.number().int(),
  key_counts: z.record(z.string(), z.number().int()).describe('For each key, how many sampled records have it'),
  truncated: z.boolean().optional(),
  cut: cutSchema.optional(),
  warnings: z.array(warningSchema).optional(),
});

export const extractKeys: ToolDefinition<typeof keysInput, typeof keysOutput> = {
  name: 'extract_keys',
  title: 'List the keys',
  description:
    'Discover the unique keys across records: {keys, records_sampled, key_counts}. keys are sorted; key_counts tells how many sampled records have each key (a key in every record has the count records_sampled). ' +
    'path (dot path, JSON Pointer or $-path) lists the keys of a nested object instead, e.g. "user.address"; when the value there is an array of objects (or the path passes through arrays), the keys of every object element are collected. ' +
    'sample_size records (default 100) are read, spread evenly across the whole file; malformed records are left out and reported in warnings.',
  inputSchema: keysInput,
  outputSchema: keysOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const file = fileFor(ctx, args.handle);
    const parsed = args.path === undefined ? { tokens: [] } : parseUserPath(ctx, args.path);
    if (!('tokens' in parsed)) throw ctx.error('INVALID_ARGUMENT', 'extract_keys takes a singular path (user.address, /user/address or $.user.address).');
    const warnings: Warning[] = [];
    const counts = new Map<string, number>();
    let n = 0;
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
    const keys = [...counts.keys()].sort(codePointCompare);
    // Bound the answer: both lists carry each key, so a key costs about twice its length.
    const budget = ctx.limits.maxResultBytes - ENVELOPE_RESERVE;
    let used = 0;
    let shown = 0;
    for (; shown < keys.length; shown++) {
      used += 2 * jsonBytes(keys[shown]) + 12;
      if (used > budget) break;
    }
    const kept = keys.slice(0, shown);
    return {
      keys: kept,
      records_sampled: n,
      key_counts: Object.fromEntries(kept.map((k) => [k, counts.get(k)!])),
      ...(shown < keys.length ? {
        truncated: true,
        cut: { limit: 'maxResultBytes', at: `after ${shown} of ${keys.length} keys (sorted)`, rest: 'Pass a nested path to list fewer keys at a time.' },
      } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
  },
};

// ---------------------------------------------------------------- sample_records

const sampleInput = z.object({
  handle: handleArg,
  count: z.number().int().min(1).default(5).describe('Number of records (default 5)'),
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
    'A record over the preview size is replaced by its cut text (truncated: true, record_bytes); when the result would pass maxResultBytes the list stops and cut says where: use get_record for the rest.',
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
    for await (const [index, value] of sampled(ctx, file, indexes, warnings)) {
      const record = fields ? projectValue(value, fields) : value;
      let item: (typeof records)[number] = { index, record };
      const size = jsonBytes(record);
      if (size > ctx.limits.maxRecordPreviewBytes) {
        const text = JSON.stringify(record);
        const cutText = Buffer.from(text).subarray(0, ctx.limits.maxRecordPreviewBytes).toString('utf8').replace(/\uFFFD$/, '');
        item = { index, record: `${cutText}… [cut at ${ctx.limits.maxRecordPreviewBytes} of ${size} bytes: get_record ${index} with offset reads it all]`, truncated: true, record_bytes: size };
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
  sample_size: sampleSize(50).describe('Records to sample, spread evenly over the file (default 50)'),
  depth: z.number().int().min(1).max(64).default(16).describe('Nesting levels described (default 16); deeper values are given by type only'),
});
const schemaOutput = z.object({
  schema: z.record(z.string(), z.unknown()).describe('JSON Schema: {type, properties, required, items}'),
  records_sampled: z.number().int(),
  warnings: z.array(warningSchema).optional(),
});

export const getSchema: ToolDefinition<typeof schemaInput, typeof schemaOutput> = {
  name: 'get_schema',
  title: 'Infer the schema',
  description:
    'Infer a JSON Schema from sampled records: {schema: {type, properties, required}, records_sampled}. ' +
    'Records are sampled evenly across the whole file (sample_size, default 50), not only the first ones. ' +
    'Types are JSON Schema names: integer (no fractional part) is told from number, and a nullable member lists null among its types (["null", "string"]). ' +
    'Nested objects get their own properties and required; arrays get items merged over all elements (an empty array adds nothing). ' +
    'required lists the members present in every sampled record; each optional member carries x-occurrences (how many records had it) and x-frequency (that share).',
  inputSchema: schemaInput,
  outputSchema: schemaOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const file = fileFor(ctx, args.handle);
    const warnings: Warning[] = [];
    const indexes = sampleIndexes(file.opened.source.count, Math.min(args.sample_size, 100_000), 'even');
    // One pass feeds a schema of every depth it may fall back to (halving), so records are read once.
    const depths = [args.depth];
    while (depths[depths.length - 1]! > 1) depths.push(Math.max(1, Math.floor(depths[depths.length - 1]! / 2)));
    // A member costs at least 16 bytes of the answer (`"k":{"type":"x"}`): a place with more cannot fit.
    const room = ctx.limits.maxResultBytes - ENVELOPE_RESERVE;
    const builders = depths.map((d) => schemaBuilder(d, Math.ceil(room / 16)));
    let seen = 0;
    for await (const [, value] of sampled(ctx, file, indexes, warnings)) {
      seen++;
      for (const b of builders) if (!b.overflow) b.add(value);
    }
    // Bound the answer: describe fewer levels until it fits.
    let level = 0;
    let schema: Record<string, unknown> | null = null;
    for (; level < depths.length && schema === null; level++) {
      if (builders[level]!.overflow) continue;
      const candidate = builders[level]!.schema() as unknown as Record<string, unknown>;
      if (jsonBytes(candidate) <= room) schema = candidate;
    }
    if (schema === null) {
      throw ctx.error('RESOURCE_LIMIT_EXCEEDED', `Even the top level of the schema passes maxResultBytes (${ctx.limits.maxResultBytes} bytes): the records have too many distinct keys.`, {
        limit: { name: 'maxResultBytes', limit: ctx.limits.maxResultBytes },
        hint: 'Use extract_keys (it pages the key list) or get_outline of one record.',
      });
    }
    const depth = depths[level - 1]!;
    if (depth < args.depth) {
      warnings.push({ code: 'RESOURCE_LIMIT_EXCEEDED', message: `The schema is described to depth ${depth} (not ${args.depth}) to stay under maxResultBytes; deeper levels are given by type only. Use extract_keys or get_outline on a nested path for more.` });
    }
    return { schema, records_sampled: seen, ...(warnings.length ? { warnings } : {}) };
  },
};
