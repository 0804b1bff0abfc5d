import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ScanNode } from '../kernel/contracts/scan';
import { McpgwError } from '../kernel/errors';
import { FileService } from '../kernel/files/file-service';
import { Sandbox } from '../kernel/files/sandbox';
import { NODE_TEXT } from '../kernel/scan';
import { prepare, type CommonOptions } from './setup';
import { progressBar } from './progress';

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
 * `mcpgw query FILE QUERY`: runs the scan engine over the whole file (whole-file addressing, DESIGN "Two addressing
 * modes") and prints the node list as JSON Lines `{"path": …, "value": …}` with exact numbers. With --root DIR, FILE
 * is a path under DIR as in every tool (relative to it; an absolute path must lie inside it); without it, the file's
 * own folder is the sandbox root (the person at the terminal chose the file; a root from MCPGW_ROOT or a config file
 * is for serve). Progress bar on stderr when it is a terminal.
 * @throws McpgwError (exit 1; exit 2 for argument faults: NOT_FOUND, ACCESS_DENIED, INVALID_ARGUMENT,
 *   QUERY_SYNTAX_ERROR), ConfigError (exit 2)
 */
export async function queryCommand(file: string, queryText: string, opts: QueryOptions): Promise<void> {
  const { config, kernel } = await prepare(opts, false);
  const languageName = opts.language ?? defaultLanguage(queryText);
  const language = kernel.registry.queryLanguages.get(languageName)?.item;
  if (!language) {
    throw new McpgwError('INVALID_ARGUMENT', `Unknown query language "${languageName}". Loaded: ${[...kernel.registry.queryLanguages.keys()].join(', ') || '(none)'}.`);
  }
  let sandboxRoot: string;
  let input: string;
  if (opts.root !== undefined && config.root !== null) {
    sandboxRoot = config.root;
    input = file;
  } else {
    const absolute = path.resolve(file);
    let real: string;
    try {
      real = fs.realpathSync(absolute);
    } catch {
      throw new McpgwError('NOT_FOUND', `No such file: ${file}`);
    }
    sandboxRoot = path.dirname(real);
    input = path.basename(real);
  }
  const limits = config.limits;
  const files = new FileService(new Sandbox(sandboxRoot), () => [...kernel.registry.formats.values()].map((o) => o.item), limits);
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  const bar = opts.progress !== false && process.stderr.isTTY ? progressBar() : null;
  const opened = await files.open(input, { ...(opts.format ? { format: opts.format } : {}), signal: controller.signal, ...(bar ? { onProgress: (d, t) => bar.update(d, t, 'indexing') } : {}) });
  try {
    const query = language.compile(queryText, { maxDepth: limits.maxDepth });
    for (const w of query.warnings ?? []) process.stderr.write(`mcpgw: warning (${w.code}): ${w.message}\n`);
    const engine = kernel.scanEngine(limits);
    const r = await engine.run({
      source: opened.source, query, addressing: 'file', signal: controller.signal,
      ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
      sink: (nodes) => write(nodes.map(line).join('')),
      ...(bar ? { onProgress: (d: number, t: number) => bar.update(d, t, 'records') } : {}),
    });
    const skipped = r.skipped;
    const firstSkipped = r.firstSkipped;
    bar?.done();
    if (skipped > 0) {
      const first = firstSkipped[0];
      process.stderr.write(`mcpgw: ${skipped} record(s) could not be read and were skipped${first ? ` (first: record ${first.record_index}${first.line ? `, line ${first.line}` : ''}: ${first.message})` : ''}.\n`);
    }
  } finally {
    process.off('SIGINT', onSignal);
    bar?.done();
    opened.close();
  }
}

/** One output line; values computed on worker threads are printed from their JSON text as is. */
function line(n: ScanNode): string {
  const text = (n as { [NODE_TEXT]?: string })[NODE_TEXT];
  return `{"path":${JSON.stringify(n.path)},"value":${text ?? JSON.stringify(n.value)}}\n`;
}

function write(s: string): Promise<void> {
  if (s.length === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const ok = process.stdout.write(s, (err) => (err ? reject(err) : undefined));
    if (ok) resolve();
    else process.stdout.once('drain', resolve);
  });
}

