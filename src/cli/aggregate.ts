import type { ToolContext } from '../kernel/contracts/tool';
import { McpgwError } from '../kernel/errors';
import { Tokens } from '../kernel/contracts/tokens';
import { runTool } from '../kernel/server/tool-adapter';
import { Session } from '../kernel/session/session';
import { progressBar } from './progress';
import { fileArgument } from './file-argument';
import { prepare, type CommonOptions } from './setup';
import { jsonLayout } from '../engine/records/json-layout';

export interface AggregateOptions extends CommonOptions {
  groupBy?: string[];
  where?: string;
  metric?: string[];
  bucket?: string;
  each?: string;
  order?: string;
  top: number;
  matchCase?: boolean;
  format?: string;
  json?: boolean;
  progress?: boolean;
}

/**
 * `mcpgw aggregate FILE`: the explorer's `aggregate` tool run in this process on one file (FILE as in `mcpgw query`:
 * under `--root DIR` when given, else in its own folder, which is then the sandbox root), without a request deadline, every page of groups up to `--top` gathered; prints a table (or, with
 * `--json`, the tool's answer with every group) on stdout, a progress bar on stderr when it is a terminal.
 * @throws McpgwError (exit 1; 2 for bad arguments), ConfigError (exit 2)
 */
export async function aggregateCommand(file: string, opts: AggregateOptions): Promise<void> {
  const { config, kernel } = await prepare(opts, false);
  // The explorer's tools as registered (a profile's allow/deny lists choose what a server offers, not this command).
  const tools = new Map([...kernel.registry.bundles.values()].flatMap(({ item }) => item.tools.map((t) => [t.name, t] as const)));
  const open = tools.get('open_file'), aggregate = tools.get('aggregate');
  if (!open || !aggregate) throw new McpgwError('INVALID_ARGUMENT', 'mcpgw aggregate needs the explorer tools (bundle "explore"), which the loaded plugins do not offer.');
  const { root, input } = fileArgument(file, opts.root !== undefined, config.root);
  // No request deadline at a terminal (Ctrl-C cancels); 2e9 ms keeps every timer within its 32-bit range.
  const limits = { ...config.limits, requestTimeoutMs: 2_000_000_000 };
  const scope = kernel.scope({ root, limits, cache: config.cache });
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  const bar = opts.progress !== false && process.stderr.isTTY ? progressBar() : null;
  const clock = scope.resolve(Tokens.Clock);
  const session = new Session(clock);
  const ctx: ToolContext = {
    registry: scope.resolve(Tokens.Registry),
    files: scope.resolve(Tokens.Files),
    session: session.scope(kernel.registry.tools.get('aggregate')?.item ?? 'explore'),
    limits,
    signal: controller.signal,
    deadline: clock.now() + limits.requestTimeoutMs,
    clock,
    progress: (done, total, message) => bar?.update(done, total, message?.split(' ')[0] ?? ''),
    log: kernel.options.log,
    error: (code, message, details) => new McpgwError(code, message, details),
    root,
    scan: scope.resolve(Tokens.ScanEngine),
    regex: scope.resolve(Tokens.Regex),
    json: jsonLayout,
  };
  const call = async (tool: typeof open, args: Record<string, unknown>) => {
    const r = await runTool(tool, args, ctx);
    if (r.isError) {
      const e = r.structuredContent.error as { code: string; message: string; hint?: string };
      throw new McpgwError(e.code as never, e.hint ? `${e.message} (${e.hint})` : e.message);
    }
    return r.structuredContent as Record<string, any>;
  };
  try {
    const opened = await call(open, { path: input, ...(opts.format ? { format: opts.format } : {}) });
    const bucket = opts.bucket ? parseBucketFlag(opts.bucket) : undefined;
    const args: Record<string, unknown> = {
      handle: opened.handle,
      ...(opts.groupBy?.length ? { group_by: opts.groupBy.length === 1 ? opts.groupBy[0] : opts.groupBy } : {}),
      ...(opts.where ? { where: opts.where } : {}),
      ...(opts.metric?.length ? { metrics: opts.metric } : {}),
      ...(bucket ? { bucket } : {}),
      ...(opts.each ? { each: opts.each } : {}),
      ...(opts.order ? { order: opts.order } : {}),
      ...(opts.matchCase ? { match_case: true } : {}),
    };
    const page = Math.min(opts.top, limits.maxItems);
    let r = await call(aggregate, { ...args, top: page });
    const groups: Record<string, unknown>[] = [...r.groups];
    while (r.next_cursor && groups.length < opts.top) {
      r = await call(aggregate, { ...args, top: Math.min(page, opts.top - groups.length), cursor: r.next_cursor });
      groups.push(...r.groups);
    }
    bar?.done();
    const answer: Record<string, unknown> = { ...r, groups: groups.slice(0, opts.top) };
    delete answer.next_cursor;
    delete answer.cut;
    if (opts.json) {
      await write(JSON.stringify(answer) + '\n');
    } else {
      await write(table(answer));
    }
    for (const w of (r.warnings ?? []) as { code: string; message: string }[]) process.stderr.write(`mcpgw: warning (${w.code}): ${w.message}\n`);
  } finally {
    process.off('SIGINT', onSignal);
    bar?.done();
    session.end();
  }
}

/** `ts:1h`, `latency_ms:100`, `ts:1h:ms` (epoch milliseconds) → the tool's bucket. */
export function parseBucketFlag(text: string): { path: string; width: string; epoch?: 's' | 'ms' } {
  // PATH:WIDTH:UNIT first (a greedy PATH would take `ts:1h` and leave the unit as the width), then PATH:WIDTH
  const m = /^(.+):([^:]+):(s|ms)$/.exec(text) ?? /^(.+):([^:]+)()$/.exec(text);
  if (!m) throw new McpgwError('INVALID_ARGUMENT', `--bucket takes PATH:WIDTH (ts:1h, latency_ms:100); got ${JSON.stringify(text)}.`);
  return { path: m[1]!, width: m[2]!, ...(m[3] ? { epoch: m[3] as 's' | 'ms' } : {}) };
}

/**
 * A cell: strings as they are unless they would read as another value (a JSON number, `null`, `true`, `false`, a
 * `(missing)`-style marker, empty, or edged with white space), everything else as JSON (exact). So the string "1" is
 * `"1"` beside the number 1, while a timestamp key `2016-12-31T00:00:00Z` stays bare.
 */
export function cell(v: unknown): string {
  if (typeof v === 'string') return v === '' || /^(-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$|null$|true$|false$|\(|\s)|\s$/.test(v) ? JSON.stringify(v) : v;
  if (v !== null && typeof v === 'object' && (v as { estimated?: boolean }).estimated) {
    const e = v as { value: number; error_bound: number };
    return `≈${e.value} ±${e.error_bound}`;
  }
  return JSON.stringify(v) ?? '';
}

/** The answer as an aligned text table: one column per group_by path and bucket, count, then one per metric. */
export function table(answer: Record<string, any>): string {
  const dims: string[] = answer.group_by;
  const metrics: string[] = answer.metrics;
  const head = [...dims, ...metrics];
  const rows: string[][] = answer.groups.map((g: Record<string, any>) => {
    const keys: unknown[] = dims.length === 0 ? [] : dims.length === 1 ? [g.key] : g.key;
    const keyCells = keys.map((k, d) => (g.missing?.includes(dims[d]) && k === null ? '(missing)' : g.unbucketable?.includes(dims[d]) && k === null ? '(not bucketable)' : cell(k)));
    return [...keyCells, ...metrics.map((m) => cell(g[m]))];
  });
  const width = head.map((h, c) => Math.max([...h].length, ...rows.map((r) => [...r[c]!].length)));
  const numeric = head.map((_, c) => c >= dims.length);
  const line = (cells: string[]) => cells.map((x, c) => (numeric[c] ? x.padStart(width[c]!) : x.padEnd(width[c]!))).join('  ').trimEnd() + '\n';
  let out = line(head) + line(width.map((w) => '-'.repeat(w)));
  for (const r of rows) out += line(r);
  const shown = answer.groups.length;
  out += `${shown} of ${answer.groups_total} group${answer.groups_total === 1 ? '' : 's'}; ${answer.records_matched} of ${answer.records_scanned} records matched${answer.units_matched !== undefined ? ` (${answer.units_matched} units)` : ''}\n`;
  return out;
}

function write(s: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const ok = process.stdout.write(s, (err) => (err ? reject(err) : undefined));
    if (ok) resolve();
    else process.stdout.once('drain', resolve);
  });
}
