import { z } from 'zod';
import type { ToolContext, ToolDefinition } from 'mcpgw/plugin-api';
import { TOKEN_CHAR } from './text';

/**
 * Secret redaction of the sessions tools' answers: sessions hold API keys and tokens pasted into prompts, tool inputs
 * and tool output, and an answer puts them into the model's context. Every string of an answer (but the keys that
 * name things: paths, ids, times, cursors) is scanned with secretlint's recommended rule set
 * (`@secretlint/secretlint-rule-preset-recommend`: AWS, GCP, GitHub, GitLab, Slack, npm, OpenAI, Anthropic, Stripe,
 * private keys, database connection strings, basic auth in URLs, …) and each secret found is masked by a text of the
 * same length in characters — `[REDACTED****]`, or `*` for one under 10 characters — so that every position an answer
 * states (offsets, `…` marker positions, lengths) stays true. The answer says how many were masked
 * (`redacted_secrets`). On by default; a profile's `redactSecrets: false` turns it off.
 */

/** Keys whose strings name things (paths, ids, times, cursors, enum values): not scanned, never changed. */
const NAMING_KEYS = new Set([
  'next_cursor', 'path', 'session_path', 'file', 'base_path', 'home', 'project_path', 'id', 'session_id', 'uuid', 'entry_uuid',
  'tool_use_id', 'timestamp', 'created_at', 'modified_at', 'last_modified', 'source', 'role', 'field', 'code', 'embedder', 'method', 'limit',
]);

/** Between the strings of one answer scanned as one text: no rule's match crosses two blank lines. */
const SEPARATOR = '\n\n\n';

interface Slot {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  /** Offset of the string in the scanned text. */
  start: number;
  value: string;
}

interface SecretlintCore {
  lintSource(args: {
    source: { content: string; filePath: string; ext: string; contentType: 'text' };
    options: { config: { rules: { id: string; rule: unknown }[] }; noPhysicFilePath?: boolean };
  }): Promise<{ messages: { ruleId: string; range: readonly [number, number] }[] }>;
}

let loaded: Promise<{ core: SecretlintCore; preset: unknown }> | undefined;

/** secretlint (ES modules), loaded on the first answer to scan. */
function secretlint(): Promise<{ core: SecretlintCore; preset: unknown }> {
  loaded ??= (async () => {
    const core = (await import('@secretlint/core')) as unknown as SecretlintCore;
    const preset = ((await import('@secretlint/secretlint-rule-preset-recommend')) as { creator: unknown }).creator;
    return { core, preset };
  })();
  loaded.catch(() => { loaded = undefined; });
  return loaded;
}

/** The same number of characters (code points) as `secret`: `[REDACTED…]` padded with `*`, or `*`s under 10. */
export function maskOf(secret: string): string {
  let n = 0;
  for (const _ of secret) n++;
  return n >= 10 ? `[REDACTED${'*'.repeat(n - 10)}]` : '*'.repeat(n);
}

/** Collects every string of `value` (walking objects and arrays) but those under NAMING_KEYS. */
function collect(value: unknown, slots: Slot[], text: string[], at: { offset: number }, depth = 0): void {
  if (depth > 64 || value === null || typeof value !== 'object') return;
  const visit = (holder: Record<string, unknown> | unknown[], key: string | number, v: unknown) => {
    if (typeof v === 'string') {
      if (v.length < 8) return; // no secret of any rule is this short
      slots.push({ holder, key, start: at.offset, value: v });
      text.push(v);
      at.offset += v.length + SEPARATOR.length;
    } else if (v !== null && typeof v === 'object') collect(v, slots, text, at, depth + 1);
  };
  if (Array.isArray(value)) value.forEach((v, i) => visit(value, i, v));
  else for (const [k, v] of Object.entries(value)) if (!NAMING_KEYS.has(k)) visit(value as Record<string, unknown>, k, v);
}

/**
 * Masks the secrets in `answer`'s strings in place; returns how many were found. A secret that spans two strings
 * cannot happen (they are scanned apart by SEPARATOR), so each found range lies in one string.
 */
export async function redactSecrets(answer: unknown): Promise<number> {
  const slots: Slot[] = [];
  const parts: string[] = [];
  collect(answer, slots, parts, { offset: 0 });
  if (slots.length === 0) return 0;
  const { core, preset } = await secretlint();
  const content = parts.join(SEPARATOR);
  const result = await core.lintSource({
    source: { content, filePath: 'answer.txt', ext: '.txt', contentType: 'text' },
    options: { config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: preset }] }, noPhysicFilePath: true },
  });
  // Ranges per string, merged where rules overlap.
  const bySlot = new Map<number, [number, number][]>();
  for (const m of result.messages) {
    const [from, to] = m.range;
    let lo = 0, hi = slots.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (slots[mid]!.start <= from) lo = mid; else hi = mid - 1;
    }
    const slot = slots[lo]!;
    // A rule's range can stop inside the secret (the AWS rule's ends 20 characters into the key): it is widened to
    // the whole token around it.
    let a = Math.max(0, from - slot.start);
    let b = Math.min(to - slot.start, slot.value.length);
    while (a > 0 && TOKEN_CHAR.test(slot.value[a - 1]!)) a--;
    while (b < slot.value.length && TOKEN_CHAR.test(slot.value[b]!)) b++;
    if (a < 0 || b <= a) continue;
    const list = bySlot.get(lo) ?? [];
    list.push([a, b]);
    bySlot.set(lo, list);
  }
  let count = 0;
  for (const [i, ranges] of bySlot) {
    const slot = slots[i]!;
    ranges.sort((x, y) => x[0] - y[0]);
    const merged: [number, number][] = [];
    for (const r of ranges) {
      const last = merged[merged.length - 1];
      if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
      else merged.push([r[0], r[1]]);
    }
    let out = '';
    let pos = 0;
    for (const [a, b] of merged) {
      out += slot.value.slice(pos, a) + maskOf(slot.value.slice(a, b));
      pos = b;
    }
    out += slot.value.slice(pos);
    (slot.holder as Record<string | number, unknown>)[slot.key] = out;
    count += merged.length;
  }
  return count;
}

/** Whether the profile wants answers redacted (default: yes). */
export function redactionOn(ctx: Pick<ToolContext, 'answers'>): boolean {
  return (ctx.answers as { redactSecrets?: boolean } | undefined)?.redactSecrets !== false;
}

const countField = z.number().int().optional().describe('Secrets (API keys, tokens, private keys, passwords in URLs) found in this answer and masked as [REDACTED***] of the same length; absent when the profile turns redaction off (redactSecrets: false)');

/**
 * The tool with its answers redacted: the handler's result is copied (it may be a kept object), scanned and masked,
 * and carries `redacted_secrets`. Error results are the kernel's (they quote no session content).
 */
export function withRedaction<I extends z.ZodObject, O extends z.ZodObject>(tool: ToolDefinition<I, O>): ToolDefinition<I, O> {
  const outputSchema = tool.outputSchema ? (tool.outputSchema.extend({ redacted_secrets: countField }) as unknown as O) : undefined;
  return {
    ...tool,
    ...(outputSchema ? { outputSchema } : {}),
    async handler(args, ctx) {
      const result = await tool.handler(args, ctx);
      if (!redactionOn(ctx) || result === null || typeof result !== 'object') return result;
      const copy = structuredClone(result) as Record<string, unknown>;
      const count = await redactSecrets(copy);
      return { ...copy, redacted_secrets: count } as typeof result;
    },
  };
}
