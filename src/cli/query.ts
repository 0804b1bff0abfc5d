import type { LazyNode } from '../kernel/contracts/format';
import type { ScanNode } from '../kernel/contracts/scan';
import { McpgwError } from '../kernel/errors';
import { Tokens } from '../kernel/contracts/tokens';
import { NODE_TEXT } from '../engine/scan/plan';
import { prepare, type CommonOptions } from './setup';
import { progressBar } from './progress';
import { fileArgument } from './file-argument';
import { isJsonWhitespace as isWs } from '../engine/bytes/json-walk';

export interface QueryOptions extends CommonOptions {
  /** Default: `pointer` for a query starting with `/` or `#` (or empty: the whole document), else `jsonpath`. */
  language?: string;
  format?: string;
  limit?: number;
  progress?: boolean;
}

/** The language of a query given without --language: an RFC 6901 pointer starts with `/` (or `#`, or is ""). */
export function defaultLanguage(query: string): string {
  return query === '' || query.startsWith('/') || query.startsWith('#') ? 'pointer' : 'jsonpath';
}

/**
 * `mcpgw query FILE QUERY`: runs the scan engine over the whole file (whole-file addressing, docs/architecture.md
 * "Two addressing modes") and prints the node list as JSON Lines `{"path": …, "value": …}` with exact numbers. With --root DIR, FILE
 * is a path under DIR as in every tool (relative to it; an absolute path must lie inside it); without it, the file's
 * own folder is the sandbox root (the person at the terminal chose the file; a root from MCPGW_ROOT or a config file
 * is for serve). Progress bar on stderr when it is a terminal.
 * @throws McpgwError (exit 1; exit 2 for argument faults: NOT_FOUND, ACCESS_DENIED, INVALID_ARGUMENT,
 *   QUERY_SYNTAX_ERROR), ConfigError (exit 2)
 */
export async function queryCommand(file: string, queryText: string, opts: QueryOptions): Promise<void> {
  const { config, kernel, rootSet } = await prepare(opts, false);
  const languageName = opts.language ?? defaultLanguage(queryText);
  const language = kernel.registry.queryLanguages.get(languageName)?.item;
  if (!language) {
    const all = [...kernel.registry.queryLanguages.values()].map((o) => o.item);
    throw new McpgwError('INVALID_ARGUMENT', `Unknown query language "${languageName}". Loaded: ${all.map((l) => l.name).join(', ') || '(none)'}.`, {
      ...(all.length ? { hint: `--language is one of: ${all.map((l) => (l.description ? `${l.name} (${l.description})` : l.name)).join('; ')}.` } : {}),
    });
  }
  const { root: sandboxRoot, input } = fileArgument(file, opts.root !== undefined, rootSet);
  const limits = config.limits;
  const scope = kernel.scope({ root: sandboxRoot, limits, cache: config.cache });
  const files = scope.resolve(Tokens.Files);
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  const bar = opts.progress !== false && process.stderr.isTTY ? progressBar() : null;
  const opened = await files.open(input, { ...(opts.format ? { format: opts.format } : {}), signal: controller.signal, ...(bar ? { onProgress: (d, t) => bar.update(d, t, 'indexing') } : {}) });
  try {
    const query = language.compile(queryText, { maxDepth: limits.maxDepth });
    for (const w of query.warnings ?? []) process.stderr.write(`mcpgw: warning (${w.code}): ${w.message}\n`);
    const engine = scope.resolve(Tokens.ScanEngine);
    const r = await engine.run({
      source: opened.source, query, addressing: 'file', signal: controller.signal,
      ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
      sink: async (nodes) => {
        let out = '';
        for (const n of nodes) {
          if (n.node?.bytes && n.node.byteLength > limits.maxRecordBytes) {
            // too long to parse: its text is streamed from the file, compacted, a part at a time
            await write(out);
            out = '';
            await streamed(n.path, n.node, Math.min(1 << 20, limits.maxRecordBytes));
          } else out += line(n);
        }
        await write(out);
      },
      ...(bar ? { onProgress: (d: number, t: number) => bar.update(d, t, 'records') } : {}),
    });
    // What the query probably did not mean (number-like strings its comparisons passed by, existence tests that met
    // false or null), as the tools say it in their warnings; a look bounded by limits.detailTimeMs.
    if (opts.limit === undefined && opened.source.rootIsSequence && engine.queryNotes) {
      for (const w of await engine.queryNotes(query, { source: opened.source, addressing: 'file', unit: 'records', signal: controller.signal })) {
        process.stderr.write(`mcpgw: warning (${w.code}): ${w.message}\n`);
      }
    }
    const skipped = r.skipped;
    const firstSkipped = r.firstSkipped;
    const unparsed = r.unparsed ?? 0;
    bar?.done();
    // A count of the records the query read, not of the file's faults: once the file is seen to hold malformed records,
    // the records the query ruled out unparsed (ScanResult.unparsed) are named too, as a malformed one among them was
    // not seen. A query that met none prints nothing on stderr (stdout is the node list).
    const ruledOut = `the query ruled out ${unparsed} record(s) without parsing them (its byte prefilter, or its filter on the members it reads)`;
    if (skipped > 0) {
      const first = firstSkipped[0];
      process.stderr.write(`mcpgw: ${skipped} record(s) could not be read and were skipped${first ? ` (first: record ${first.record_index}${first.line ? `, line ${first.line}` : ''}: ${first.message})` : ''}.`
        + (unparsed > 0 ? ` Besides, ${ruledOut}: malformed ones among them are not counted.` : '') + '\n');
    }
  } finally {
    process.off('SIGINT', onSignal);
    bar?.done();
    opened.close();
  }
}

/** One output line; values computed on worker threads are printed from their JSON text (compacted: one line). */
function line(n: ScanNode): string {
  const text = (n as { [NODE_TEXT]?: string })[NODE_TEXT];
  return `{"path":${JSON.stringify(n.path)},"value":${text !== undefined ? compactText(text) : JSON.stringify(n.value)}}\n`;
}


/** JSON text without the whitespace outside strings (lexemes and escapes kept as written). */
function compactText(text: string): string {
  if (!/[\n\r\t]| [ ,:\]}]|[[{,:] /.test(text)) return text; // whitespace outside strings touches structure
  const state = { inString: false, escaped: false };
  return compactBytes(Buffer.from(text, 'utf8'), state).toString('utf8');
}

/** `b` without JSON whitespace outside strings; `state` carries string and escape state across consecutive parts. */
function compactBytes(b: Buffer, state: { inString: boolean; escaped: boolean }): Buffer {
  const out = Buffer.allocUnsafe(b.length);
  let n = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    if (state.inString) {
      if (state.escaped) state.escaped = false;
      else if (c === 0x5c) state.escaped = true;
      else if (c === 0x22) state.inString = false;
    } else if (c === 0x22) state.inString = true;
    else if (isWs(c)) continue;
    out[n++] = c;
  }
  return out.subarray(0, n);
}

/** Prints a node too long to parse: its file text, compacted, read `part` bytes (≤ 1 MiB) at a time (bounded memory). */
async function streamed(path: string, node: LazyNode, part: number): Promise<void> {
  await write(`{"path":${JSON.stringify(path)},"value":`);
  const state = { inString: false, escaped: false };
  for (let at = 0; at < node.byteLength; at += part) {
    const bytes = compactBytes(node.bytes!(at, Math.min(node.byteLength, at + part)), state);
    await new Promise<void>((resolve, reject) => {
      if (process.stdout.write(bytes, (err) => (err ? reject(err) : undefined))) resolve();
      else process.stdout.once('drain', resolve);
    });
  }
  await write('}\n');
}

function write(s: string): Promise<void> {
  if (s.length === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const ok = process.stdout.write(s, (err) => (err ? reject(err) : undefined));
    if (ok) resolve();
    else process.stdout.once('drain', resolve);
  });
}

