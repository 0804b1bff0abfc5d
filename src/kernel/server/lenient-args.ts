import { z } from 'zod';

/**
 * Lenient argument parsing, for bundles that declare `lenientArguments` (contracts/tool.ts `ToolBundle`): the explorer
 * set, a drop-in for clients and prompts written for servers whose schemas allow null and ignore unknown keys.
 * One rule set for every tool of such a bundle, applied before the tool's own schema validates:
 * - an optional parameter (one that accepts absence) sent as `null` is absent, so its default applies (at the top level
 *   and inside nested objects);
 * - a key that is not a parameter is dropped, and named in a warning;
 * - an optional parameter whose value is not one of its enum's values is dropped (its default applies: the tool's
 *   fallback, e.g. auto-detection), and named in a warning with what was used instead.
 * Anything else that does not validate is INVALID_ARGUMENT as in a strict bundle (a wrong type, a required parameter
 * missing or null).
 */

/** Something the lenient parse changed, reported as a warning in the result once the tool has answered. */
export interface ArgumentNotice {
  /** The parameter (or unknown key) concerned. */
  key: string;
  kind: 'unknown' | 'enum';
  /** The value sent (enum notices). */
  value?: unknown;
  /** The values the enum allows (enum notices). */
  allowed?: readonly unknown[];
  /** The parameter's declared default (zod `.default`), when it has one. */
  fallback?: unknown;
}

/** A warning as results carry them (`warnings: [{code, message}]`). */
export interface ArgumentWarning {
  code: 'INVALID_ARGUMENT';
  message: string;
}

/** The schema under optional / default / nullable wrappers (for the object schemas of nested parameters). */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema as z.ZodType & { unwrap?: () => z.ZodType; def?: { innerType?: z.ZodType } };
  for (let k = 0; k < 8; k++) {
    const inner = s.def?.innerType;
    if (!inner) break;
    s = inner as typeof s;
  }
  return s;
}

const acceptsAbsence = (schema: z.ZodType): boolean => schema.safeParse(undefined).success;

/** `value` with every `null` of an optional member of `schema` (recursively in nested objects) removed. */
function dropNulls(schema: z.ZodObject, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const field = schema.shape[key] as z.ZodType | undefined;
    if (field && v === null && acceptsAbsence(field)) continue;
    const inner = field ? unwrap(field) : undefined;
    const kept = inner instanceof z.ZodObject && v !== null && typeof v === 'object' && !Array.isArray(v) ? dropNulls(inner, v as Record<string, unknown>) : v;
    Object.defineProperty(out, key, { value: kept, writable: true, enumerable: true, configurable: true }); // `__proto__` too
  }
  return out;
}

/** The default a parameter declares (`.default(x)`), or undefined. */
function declaredDefault(schema: z.ZodType): unknown {
  const r = schema.safeParse(undefined);
  return r.success ? r.data : undefined;
}

/**
 * The arguments as the tool's schema will see them, and what was changed. Non-object arguments are returned as they
 * are (the schema then refuses them).
 */
export function lenientArguments(schema: z.ZodObject, raw: unknown): { args: unknown; notices: ArgumentNotice[] } {
  if (raw === null || raw === undefined) return { args: {}, notices: [] };
  if (typeof raw !== 'object' || Array.isArray(raw)) return { args: raw, notices: [] };
  const notices: ArgumentNotice[] = [];
  const known: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(raw as Record<string, unknown>)) {
    if (Object.prototype.hasOwnProperty.call(schema.shape, key)) known[key] = v;
    else notices.push({ key, kind: 'unknown' });
  }
  const args = dropNulls(schema, known);
  // An optional enum parameter with a value it does not allow falls back to its default.
  const parsed = schema.safeParse(args);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code !== 'invalid_value' || issue.path.length !== 1) continue;
      const key = String(issue.path[0]);
      const field = schema.shape[key] as z.ZodType | undefined;
      if (!field || !acceptsAbsence(field) || !(key in args)) continue;
      notices.push({ key, kind: 'enum', value: args[key], allowed: issue.values, fallback: declaredDefault(field) });
      delete args[key];
    }
  }
  return { args, notices };
}

/**
 * The warnings for `notices`, in the words a caller needs: which keys were ignored, and for an enum value what was used
 * instead — the value the result reports under the same name (`mode`, `strategy`) when it has one, else the declared
 * default.
 */
export function argumentWarnings(tool: string, notices: readonly ArgumentNotice[], result: Record<string, unknown>): ArgumentWarning[] {
  const warnings: ArgumentWarning[] = [];
  const unknown = notices.filter((n) => n.kind === 'unknown').map((n) => n.key);
  if (unknown.length) {
    const names = unknown.slice(0, 10).map((k) => JSON.stringify(k)).join(', ') + (unknown.length > 10 ? ` and ${unknown.length - 10} more` : '');
    warnings.push({ code: 'INVALID_ARGUMENT', message: `Ignored ${unknown.length === 1 ? 'an argument' : 'arguments'} that ${tool} does not have: ${names}.` });
  }
  for (const n of notices) {
    if (n.kind !== 'enum') continue;
    const echoed = result[n.key];
    const used = typeof echoed === 'string' ? JSON.stringify(echoed) : n.fallback !== undefined ? JSON.stringify(n.fallback) : 'the default';
    const allowed = (n.allowed ?? []).map((v) => JSON.stringify(v)).join(', ');
    warnings.push({ code: 'INVALID_ARGUMENT', message: `${n.key} ${clip(JSON.stringify(n.value) ?? String(n.value))} is not one of ${allowed}: used ${used} instead.` });
  }
  return warnings;
}

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}…` : s;
}

/** The result-side schema of those warnings, for tools whose output schema has no `warnings` of its own. */
export const argumentWarningsSchema = z.array(z.object({ code: z.string(), message: z.string() }));
