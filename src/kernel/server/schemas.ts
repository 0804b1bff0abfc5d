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
 * `schema` without the keywords of UNADVERTISED, without numeric bounds that add nothing — zod's safe-integer range
 * (±2^53 − 1) and a `minimum` of 0 (indexes, offsets and counts are never negative) — and without a flag's
 * `default: false` (a boolean parameter is off unless sent). Every other keyword (types, enums, other defaults,
 * descriptions, other bounds) is kept.
 */
export function slimJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(slimJsonSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema as JsonSchema)) {
    if (UNADVERTISED.has(key)) continue;
    if ((key === 'minimum' || key === 'maximum') && typeof value === 'number' && (Math.abs(value) >= Number.MAX_SAFE_INTEGER || (key === 'minimum' && value === 0))) continue;
    if (key === 'default' && value === false && (schema as JsonSchema).type === 'boolean') continue;
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
 * `{error: {code, message, …}}`, the second branch of the schema's `anyOf`.
 */
export const ERROR_RESULT_JSON_SCHEMA: JsonSchema = {
  required: ['error'],
  properties: { error: { required: ['code', 'message'] } },
};

/**
 * The advertised output schema: `{type: "object", anyOf: [{required: [the result's required members]}, the error
 * result]}`, so 1.x SDK clients, which validate every result's structuredContent against it (errors included),
 * accept results and error results alike, and a result without one of its members is refused. The members' types,
 * optional members, descriptions and bounds are the documentation's (docs/tools.md): 16 tools' member types cost more
 * than the whole list's budget allows (docs/architecture.md "Context budget"). The error shape is written once, in
 * its branch: each tool's schema is a document of its own, so a `$defs` entry would be referenced once and only add
 * bytes. Not closed (no `additionalProperties: false`): optional members pass, and so does a member added later.
 */
export function outputJsonSchema(schema: z.ZodObject): JsonSchema {
  const full = toJsonSchema(schema, 'output');
  const required = (full.required as string[] | undefined) ?? [];
  return { type: 'object', anyOf: [{ required }, ERROR_RESULT_JSON_SCHEMA] };
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
