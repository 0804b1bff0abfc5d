import type { z } from 'zod';
import { argumentWarningsSchema } from './lenient-args';

/**
 * A lenient tool's output schema: the tool's own, with a `warnings` list of `{code, message}` when it has none, since
 * ignored arguments are reported there (lenient-args.ts).
 */
export function lenientOutput(schema: z.ZodObject): z.ZodObject {
  return 'warnings' in schema.shape ? schema : schema.extend({ warnings: argumentWarningsSchema.optional() });
}
