import { z } from 'zod';

export const pathArg = z.string().min(1).max(4096);
export const formatArg = z.string().min(1).max(256);
export const fileIdArg = z.string().min(1).max(256);

/** A warning carried by a result: a malformed record skipped, with its location; or a note about the query (`position` in it). */
export const warningSchema = z.object({
  code: z.string(),
  message: z.string(),
  location: z.object({
    byte_offset: z.number().int().optional(),
    line: z.number().int().optional(),
    column: z.number().int().optional(),
    record_index: z.number().int().optional(),
    position: z.number().int().optional().describe('0-based character index in the query'),
  }).optional(),
});
export type Warning = z.infer<typeof warningSchema>;

/** The members of an error location that a warning carries (output schemas are closed for 1.x clients). */
export function warningLocation(loc: { byte_offset?: number; line?: number; column?: number; record_index?: number } | undefined): Warning['location'] {
  if (!loc) return undefined;
  const out: NonNullable<Warning['location']> = {};
  for (const k of ['byte_offset', 'line', 'column', 'record_index'] as const) if (typeof loc[k] === 'number') out[k] = loc[k];
  return out;
}
