import type { z } from 'zod';
import { argumentWarningsSchema } from './lenient-args';

type JsonSchema = Record<string, unknown>;

/**
 * What a lenient tool's advertised input schema says once, instead of a `null` type on every optional parameter
 * (which would cost bytes per parameter in every tools/list): optional parameters may be null. Unknown keys need no
 * word: input schemas are open (no `additionalProperties: false`).
 */
export const LENIENT_INPUT_NOTE = 'null = default';

/** A lenient tool's advertised input schema: the tool's own, with {@link LENIENT_INPUT_NOTE} as its description. */
export function lenientInput(json: JsonSchema): JsonSchema {
  return { ...json, description: LENIENT_INPUT_NOTE };
}

/**
 * A lenient tool's output schema: the tool's own, with a `warnings` list of `{code, message}` when it has none, since
 * ignored arguments are reported there (lenient-args.ts).
 */
export function lenientOutput(schema: z.ZodObject): z.ZodObject {
  return 'warnings' in schema.shape ? schema : schema.extend({ warnings: argumentWarningsSchema.optional() });
}
