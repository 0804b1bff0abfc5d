import { z } from 'zod';
import type { ToolContext } from 'mcpgw/plugin-api';

/** Bytes kept free in a result for its envelope (counts, flags, cut, warnings). */
export const ENVELOPE_RESERVE = 2048;

/** Bytes the redaction adds to every answer after the tool built it (`,"redacted_secrets":N`). */
export const REDACTION_RESERVE = 40;

export const ROLES = ['user', 'assistant', 'tool', 'system', 'summary', 'checkpoint'] as const;
export const roleSchema = z.enum(ROLES);

export const sourceArg = z.string().min(1).optional().describe('Only this source: claude, codex, copilot, gemini, qwen, kimi');
export const limitArg = (dflt: number, what: string) => z.number().int().min(1).default(dflt).describe(`${what} returned at most (default ${dflt}; capped by the server's maxItems)`);
export const offsetArg = z.number().int().min(0).default(0).describe('Items to skip (paging: pass next_offset)');

/** Where and why a result was cut, and how to get the rest (the other bundles' shape). */
export const cutSchema = z.object({
  limit: z.string().describe('The limit that cut the result, e.g. maxResultBytes'),
  at: z.string().describe('Where the result was cut'),
  rest: z.string().describe('How to get the rest'),
});
export type Cut = z.infer<typeof cutSchema>;

export const warningSchema = z.object({ code: z.string(), message: z.string() });
export type Warning = z.infer<typeof warningSchema>;

/** UTF-8 bytes of a value's compact JSON. */
export function jsonBytes(v: unknown): number {
  return Buffer.byteLength(JSON.stringify(v));
}

/** The result's byte budget for its items. */
export function itemBudget(ctx: Pick<ToolContext, 'limits'>, extra = 0): number {
  return Math.max(1024, ctx.limits.maxResultBytes - ENVELOPE_RESERVE - extra);
}

/**
 * The longest prefix of `items` whose JSON fits `budget` bytes, but at least one item (a first item that alone passes
 * the budget is kept, so that a page always advances; the answer's own bound, maxResultBytes, still holds). Returns
 * the count kept.
 */
export function fitting(items: readonly unknown[], budget: number): number {
  let used = 2;
  for (let i = 0; i < items.length; i++) {
    used += jsonBytes(items[i]) + 1;
    if (used > budget && i > 0) return i;
  }
  return items.length;
}

/** Page bounds: `limit` capped by maxItems. */
export function pageLimit(ctx: Pick<ToolContext, 'limits'>, limit: number): number {
  return Math.max(1, Math.min(limit, ctx.limits.maxItems));
}

/** ISO 8601 of a time in ms since the epoch. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
