import type { z } from 'zod';
import type { ToolContext, ToolDefinition } from '../contracts/tool';
import { capMessage, fixSurrogates, McpgwError, shownInput, toErrorPayload, wellFormed, type ErrorPayload } from '../errors';
import { describeIssues } from '../config/config-error';
import { hasLoneSurrogateEscape } from '../unicode';
import { argumentWarnings, lenientArguments, type ArgumentNotice } from './lenient-args';
import { summaryText } from './summary-text';
import { textKind, type ClientIdentity } from './client-families';
import { guardCall, type BlameFn } from './fault-guard';
import { lenientOutput } from './lenient-schemas';

/** A CallToolResult as the SDK expects it. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/** `{ error }` as an MCP error result: structuredContent and the same JSON in the text block. */
export function errorResult(payload: ErrorPayload): ToolResult {
  const structuredContent = { error: wellFormed(payload) };
  return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent, isError: true };
}

/** The answer's warning when text in it had lone surrogates (RFC 8259 §8.2) replaced by U+FFFD. */
function surrogateWarning(replaced: number): { code: string; message: string } {
  return {
    code: 'LONE_SURROGATE_REPLACED',
    message: replaced > 0
      ? `${replaced} lone surrogate escape(s) in the JSON text of this answer (\\uD800–\\uDFFF without its pair, as in the file) were replaced by \\ufffd (U+FFFD): lone surrogates are not valid Unicode and clients reject them.`
      : 'Strings in this answer held lone surrogates (\\uD800–\\uDFFF without its pair); they were replaced by U+FFFD.',
  };
}

const hasWarning = (result: Record<string, unknown>, code: string): boolean =>
  Array.isArray(result.warnings) && result.warnings.some((w) => (w as { code?: unknown } | null)?.code === code);

/**
 * The input schema made strict (unknown keys refused), once per schema: zod compiles a schema's parser on its first
 * parse, and a schema made anew per call cost that compilation on every call.
 */
const strictSchemas = new WeakMap<z.ZodObject, z.ZodObject>();
function strictSchema(schema: z.ZodObject): z.ZodObject {
  let strict = strictSchemas.get(schema);
  if (!strict) strictSchemas.set(schema, (strict = schema.strict()));
  return strict;
}

/** The schema a tool's results are checked against: its output schema, with `warnings` for a lenient bundle's (once per schema). */
const lenientOutputs = new WeakMap<z.ZodObject, z.ZodObject>();
function resultSchema(tool: ToolDefinition, lenient: boolean): z.ZodObject {
  const schema = tool.outputSchema as z.ZodObject;
  if (!lenient) return schema;
  let found = lenientOutputs.get(schema);
  if (!found) lenientOutputs.set(schema, (found = lenientOutput(schema)));
  return found;
}

/** A number past a double's range in JSON text (`1e400`), which reads back as ±Infinity. */
const HUGE_EXPONENT = /[eE]\+?\d{3}/;

/**
 * The result as a client reads it (its JSON text parsed; a number past a double's range as the largest double of its
 * sign, still a number), checked against the tool's output schema. @throws McpgwError INTERNAL_ERROR naming what does not match
 */
function checkResult(tool: ToolDefinition, text: string, lenient: boolean): void {
  const read: unknown = HUGE_EXPONENT.test(text)
    ? JSON.parse(text, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? Math.sign(v) * Number.MAX_VALUE : v))
    : JSON.parse(text);
  const checked = resultSchema(tool, lenient).safeParse(read);
  if (!checked.success) {
    throw new McpgwError('INTERNAL_ERROR', `Internal error: the result of ${tool.name} does not match its outputSchema:\n${describeIssues(checked.error.issues)}`, {
      hint: 'The tool answered outside its own contract; report it to the plugin\'s authors.',
    });
  }
}

/**
 * Validates arguments with the tool's schema made strict (unknown keys refused), runs the handler,
 * and shapes the answer: structuredContent plus its compact JSON as the text block, or a summary of it (summary-text.ts)
 * where the profile's `resultText` says so — `summary`, or `auto` (the default) for a client that reads both copies
 * (`options.client`, client-families.ts). Thrown errors
 * become error results; a result over `maxResultBytes` becomes RESOURCE_LIMIT_EXCEEDED (tools
 * bound their own results; this is the last guard). `plugin`: the package that registered the tool — an
 * INTERNAL_ERROR's message names it (where to report the fault), and every error result's log line carries the plugin
 * that raised the error when it was not the kernel.
 * `options.lenient` (a bundle's `lenientArguments`): the arguments go through lenient-args.ts first — null is the
 * default, unknown keys and out-of-enum values of optional parameters are dropped — and what was dropped is named in
 * the result's `warnings` (appended to the tool's own). Text with lone surrogates is made well-formed (U+FFFD) and the
 * answer carries one LONE_SURROGATE_REPLACED warning (RFC 8259 §8.2). A result that does not match the tool's output
 * schema is INTERNAL_ERROR naming the tool's plugin, logged (checkResult).
 */
export async function runTool(tool: ToolDefinition, rawArgs: unknown, ctx: ToolContext, plugin?: string, options: { lenient?: boolean; client?: ClientIdentity; blame?: BlameFn } = {}): Promise<ToolResult> {
  try {
    const strict = strictSchema(tool.inputSchema as z.ZodObject);
    let notices: ArgumentNotice[] = [];
    if (options.lenient) ({ args: rawArgs, notices } = lenientArguments(tool.inputSchema as z.ZodObject, rawArgs));
    const parsed = strict.safeParse(rawArgs ?? {});
    if (!parsed.success) {
      throw new McpgwError('INVALID_ARGUMENT', `Invalid arguments for ${tool.name}:\n${describeIssues(parsed.error.issues)}`, {
        hint: `See the input schema of ${tool.name} in tools/list.`,
      });
    }
    // In a context of its own (fault-guard.ts): a fault the handler leaves behind answers this call, and a handler
    // that does not settle is answered at its deadline.
    let result = (await guardCall({ plugin, tool: tool.name, clock: ctx.clock, deadline: ctx.deadline, timeoutMs: ctx.limits.requestTimeoutMs }, () => tool.handler(parsed.data, ctx))) as Record<string, unknown>;
    if (notices.length) {
      // a copy: the handler's object may be one it keeps (a cached answer)
      const own = Array.isArray(result.warnings) ? (result.warnings as unknown[]) : [];
      result = { ...result, warnings: [...own, ...argumentWarnings(tool.name, notices, result)] };
    }
    if (ctx.signal.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
    let text = JSON.stringify(result);
    // Every string emitted is well-formed Unicode (the last guard; tools cut their text on character boundaries): a
    // lone surrogate shows in the JSON text as an escape, and only then is the value walked and fixed.
    let fixed = false;
    if (hasLoneSurrogateEscape(text)) {
      result = fixSurrogates(result);
      fixed = true;
    }
    // JSON text the tool returns (record text, a value's text) had lone surrogate escapes written as \ufffd.
    const replaced = ctx.json?.replaced ?? 0;
    if ((fixed || replaced > 0) && !hasWarning(result, 'LONE_SURROGATE_REPLACED')) {
      const own = Array.isArray(result.warnings) ? (result.warnings as unknown[]) : [];
      result = { ...result, warnings: [...own, surrogateWarning(replaced)] };
    }
    if (fixed || replaced > 0) text = JSON.stringify(result);
    // A result outside the tool's output schema is the tool's fault, not an answer (a client would take it as one).
    checkResult(tool, text, options.lenient === true);
    const bytes = Buffer.byteLength(text);
    if (bytes > ctx.limits.maxResultBytes) {
      throw new McpgwError('RESOURCE_LIMIT_EXCEEDED', `The result of ${tool.name} is ${bytes} bytes, over maxResultBytes ${ctx.limits.maxResultBytes}.`, {
        limit: { name: 'maxResultBytes', limit: ctx.limits.maxResultBytes, value: bytes },
        hint: 'Ask for fewer items (max_results / count) or a smaller part of the record.',
      });
    }
    const summary = textKind(ctx.answers?.resultText, options.client) === 'summary' ? summaryText(result, parsed.data as Record<string, unknown>) : null;
    const shown = summary !== null && summary !== '' && Buffer.byteLength(summary) < bytes ? summary : text;
    return { content: [{ type: 'text', text: shown }], structuredContent: result };
  } catch (err) {
    const payload = toErrorPayload(err);
    if (payload.code === 'INTERNAL_ERROR') {
      // Blame the plugin whose code raised it (its stack: a format's batches called by another plugin's tool), else
      // the tool's own; a fault the guard answered (fault-guard.ts) already names its plugin.
      const culprit = err instanceof McpgwError && err.plugin !== undefined ? err.plugin : (options.blame?.(err) ?? plugin);
      if (culprit !== undefined && !(err instanceof McpgwError && err.plugin !== undefined)) {
        const where = culprit === plugin || plugin === undefined ? `tool ${tool.name}` : `called by tool ${tool.name} of ${plugin}`;
        payload.message = capMessage(`Internal error in ${culprit} (${where}): ${payload.message.replace(/^Internal error: /, '')}`);
      }
      ctx.log.error(`tool ${tool.name} failed`, { ...(culprit !== undefined && culprit !== plugin ? { raisedBy: culprit } : {}), error: shownInput((err instanceof Error ? err.stack : undefined) ?? String(err), 4000) });
    } else {
      const raisedBy = err instanceof McpgwError && err.plugin !== undefined ? { raisedBy: err.plugin } : {};
      ctx.log.debug(`tool ${tool.name} answered ${payload.code}`, { message: payload.message, ...raisedBy });
    }
    return errorResult(payload);
  }
}
