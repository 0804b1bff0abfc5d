import { z } from 'zod';
import { ERROR_CODES } from '../errors';

/** The error object of an error result (docs/architecture.md "Error results"), as JSON Schema. */
export const errorPayloadSchema = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  hint: z.string().optional(),
  location: z
    .object({
      byte_offset: z.number().optional(),
      line: z.number().optional(),
      column: z.number().optional(),
      record_index: z.number().optional(),
      path: z.string().optional(),
      position: z.number().optional(),
    })
    .optional(),
  limit: z.object({ name: z.string(), limit: z.number(), value: z.number().optional() }).optional(),
});

export const errorEnvelopeSchema = z.object({ error: errorPayloadSchema });

type JsonSchema = Record<string, unknown>;

function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const js = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  delete js.$schema;
  return js;
}

/** The tool's input schema as advertised in tools/list (defaults make keys optional). */
export function inputJsonSchema(schema: z.ZodObject): JsonSchema {
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...toJsonSchema(schema, 'input') };
}

/**
 * The advertised output schema: an object that admits either the tool's result or
 * `{ error: {...} }`, so 1.x SDK clients (which check error results against it) accept both.
 */
export function outputJsonSchema(schema: z.ZodObject): JsonSchema {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    anyOf: [toJsonSchema(schema, 'output'), toJsonSchema(errorEnvelopeSchema, 'output')],
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
