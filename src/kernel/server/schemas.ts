import { z } from 'zod';

type JsonSchema = Record<string, unknown>;

function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const js = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  delete js.$schema;
  return js;
}

/**
 * Keywords an advertised input schema leaves out: bounds that tell a model nothing it would act on (string and list
 * length guards such as a 4096-character path; the adapter still enforces them with the tool's zod schema).
 */
const UNADVERTISED = new Set(['$schema', 'minLength', 'maxLength', 'minItems', 'maxItems']);

/**
 * `schema` without the keywords of UNADVERTISED and without numeric bounds that add nothing: zod's safe-integer
 * range (±2^53 − 1) and a `minimum` of 0 (indexes, offsets and counts are never negative). Every other keyword
 * (types, enums, defaults, descriptions, other bounds) is kept.
 */
export function slimJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(slimJsonSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema as JsonSchema)) {
    if (UNADVERTISED.has(key)) continue;
    if ((key === 'minimum' || key === 'maximum') && typeof value === 'number' && (Math.abs(value) >= Number.MAX_SAFE_INTEGER || (key === 'minimum' && value === 0))) continue;
    // `properties` maps names to schemas: walk the schemas, keep every name (a member may be called "minimum")
    out[key] = key === 'properties' && value && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value as JsonSchema).map(([k, v]) => [k, slimJsonSchema(v)]))
      : slimJsonSchema(value);
  }
  return out;
}

/** The tool's input schema as advertised in tools/list (defaults make keys optional; bounds that add nothing left out). */
export function inputJsonSchema(schema: z.ZodObject): JsonSchema {
  return slimJsonSchema(toJsonSchema(schema, 'input')) as JsonSchema;
}

/**
 * The error result's structuredContent in an advertised output schema (docs/architecture.md "Error results"):
 * `{error: {code, message, …}}`, defined once under `$defs` and referenced.
 */
export const ERROR_RESULT_JSON_SCHEMA: JsonSchema = {
  required: ['error'],
  properties: { error: { required: ['code', 'message'] } },
};

/** The JSON type(s) of a list of JSON values (an enum's). */
function typeOf(values: unknown[]): JsonSchema {
  const types = [...new Set(values.map((v) => (v === null ? 'null' : typeof v)))].sort();
  return types.length ? { type: types.length === 1 ? types[0] : types } : {};
}

/** The type of a result member as advertised: its JSON type(s) only (descriptions, bounds and nested members are docs/tools.md's). */
function typeOnly(schema: unknown): JsonSchema {
  if (schema === null || typeof schema !== 'object') return {};
  const s = schema as JsonSchema;
  if (s.type !== undefined) return { type: s.type };
  if (s.const !== undefined) return typeOf([s.const]);
  if (Array.isArray(s.enum)) return typeOf(s.enum);
  const alts = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(alts)) {
    const types = alts.map(typeOnly);
    if (types.every((t) => t.type !== undefined)) {
      const flat = [...new Set(types.flatMap((t) => (Array.isArray(t.type) ? t.type : [t.type])))] as string[];
      return { type: flat.length === 1 ? flat[0] : flat };
    }
  }
  return {};
}

/**
 * The advertised output schema: the result's required members with their JSON types, as one branch of an `anyOf`
 * whose other branch is the error result (`$defs/error`), so 1.x SDK clients, which validate every result's
 * structuredContent against it, accept results and error results alike. Optional members, descriptions and bounds
 * are left to the documentation (docs/tools.md): the schema is not closed (no `additionalProperties: false`), so they
 * pass, and so does a member added later.
 */
export function outputJsonSchema(schema: z.ZodObject): JsonSchema {
  const full = toJsonSchema(schema, 'output');
  const required = (full.required as string[] | undefined) ?? [];
  const members = (full.properties ?? {}) as JsonSchema;
  const properties = Object.fromEntries(required.map((k) => [k, typeOnly(members[k])]));
  return {
    type: 'object',
    properties,
    anyOf: [{ required }, { $ref: '#/$defs/error' }],
    $defs: { error: ERROR_RESULT_JSON_SCHEMA },
  };
}

/**
 * A Standard Schema that advertises `json` and accepts any value: the SDK then hands the raw
 * arguments to our handler, which validates them itself so that a bad argument is an
 * INVALID_ARGUMENT result from the catalogue rather than the SDK's code-less message.
 */
export function advertiseOnly(json: JsonSchema) {
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'mcpgw',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}
