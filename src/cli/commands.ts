import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { FileService } from '../kernel/files/file-service';
import { Tokens } from '../kernel/contracts/tokens';
import { LineTransport } from '../kernel/server/stdio-transport';
import { ConfigError, resolveHttpConfig } from '../kernel/config';
import { reserveStdout } from '../kernel/server/stdout-guard';
import { installFaultGuard } from '../kernel/server/fault-guard';
import { prepare, type CommonOptions } from './setup';

const out = (s: string) => process.stdout.write(s);

const REQUIREMENT_WORDS = { format: 'format', queryLanguage: 'query language', bundle: 'tool bundle', extensionPoint: 'extension point', extension: 'extension' } as const;

export interface ServeOptions extends CommonOptions {
  http?: boolean;
  host?: string;
  port?: number;
}

/**
 * `mcpgw serve`: MCP over stdio, both protocol eras (2025-11-25 initialize, 2026-07-28 server/discover);
 * with `--http`, over Streamable HTTP (see serveHttp in serve-http.ts).
 */
export async function serveCommand(opts: ServeOptions): Promise<void> {
  if (!opts.http && (opts.host !== undefined || opts.port !== undefined)) throw new ConfigError('--host and --port apply only with --http.');
  // The HTTP server (Hono, the SDK's Node entry points) is loaded only for --http: stdio start-up does not pay for it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  if (opts.http) return (require('./serve-http') as typeof import('./serve-http')).serveHttp(opts);
  // Before any plugin loads: a plugin's console.log (at load or later, on any thread) goes to stderr.
  const protocol = reserveStdout();
  const { config, kernel } = await prepare(opts, true);
  const factory = kernel.serverFactory(config);
  const log = kernel.options.log;
  installFaultGuard(log, (err) => kernel.registry.blame.of(err));
  log.info('serving on stdio', { root: config.root, profile: config.profile, tools: kernel.selectTools(config).map((t) => t.name) });
  const transport = new LineTransport(process.stdin, protocol, { maxMessageBytes: config.limits.maxMessageBytes, warn: (m, d) => log.warn(m, d) });
  serveStdio(factory, { legacy: 'serve', transport, onerror: (e) => log.warn('transport error', { error: e.message }) });
  // Started by hand at a terminal: say what it waits for (stderr: stdout carries only protocol messages).
  if (process.stdin.isTTY) process.stderr.write('mcpgw: waiting for an MCP client on stdin (an MCP client starts this command; see mcpgw --help). Ctrl-C quits.\n');
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(0));
}

/** `mcpgw list-tools`: name and first sentence of each offered tool. */
export async function listToolsCommand(opts: CommonOptions & { json?: boolean }): Promise<void> {
  const { config, kernel } = await prepare(opts, false);
  const tools = kernel.selectTools(config);
  if (opts.json) {
    out(JSON.stringify(tools.map((t) => ({ name: t.name, title: t.title, description: t.description })), null, 2) + '\n');
    return;
  }
  const width = Math.max(...tools.map((t) => t.name.length), 4);
  for (const t of tools) out(`${t.name.padEnd(width)}  ${firstSentence(t.description)}\n`);
}

/** `mcpgw plugins`: loaded plugins and their contributions. */
export async function pluginsCommand(opts: CommonOptions & { json?: boolean }): Promise<void> {
  const { kernel } = await prepare(opts, false);
  const plugins = kernel.registry.plugins;
  if (opts.json) {
    out(JSON.stringify(plugins, null, 2) + '\n');
    return;
  }
  for (const p of plugins) {
    out(`${p.name}@${p.version}  (${p.source}; plugin API ${p.apiVersion})\n`);
    if (p.formats.length) out(`  formats: ${p.formats.join(', ')}\n`);
    if (p.queryLanguages.length) out(`  query languages: ${p.queryLanguages.join(', ')}\n`);
    if (p.bundles.length) out(`  tool bundles: ${p.bundles.join(', ')} (tools: ${p.tools.join(', ')})\n`);
    if (p.services?.length) out(`  replaces services: ${p.services.join(', ')}\n`);
    if (p.extensionPoints?.length) out(`  extension points: ${p.extensionPoints.join(', ')}\n`);
    for (const [point, names] of Object.entries(p.provides ?? {})) out(`  ${point}: ${names.join(', ')}\n`);
    if (p.commands?.length) out(`  commands: ${p.commands.map((c) => `mcpgw ${c}`).join(', ')}\n`);
    if (p.requires?.length) out(`  requires: ${p.requires.map((r) => `${REQUIREMENT_WORDS[r.kind]} ${r.name}${r.providedBy ? ` (from ${r.providedBy})` : ''}`).join(', ')}\n`);
  }
}

/** `mcpgw check`: config, plugins, profile and root are all valid. */
export async function checkCommand(opts: CommonOptions): Promise<void> {
  const { loaded, config, kernel } = await prepare(opts, true);
  const tools = kernel.selectTools(config);
  const files = kernel.scope({ root: config.root, limits: config.limits }).resolve(Tokens.Files);
  const root = files instanceof FileService ? files.root : null;
  out(`config: ${loaded.filepath ?? '(none found; defaults)'}\n`);
  out(`root: ${root ?? '(none: the offered bundles read no root)'}\n`);
  const offered = kernel.bundleNames(config);
  const notOffered = [...kernel.registry.bundles.keys()].filter((b) => !offered.includes(b));
  const bundles = `bundles offered: ${offered.join(', ') || '(none)'}${notOffered.length ? `; not offered: ${notOffered.join(', ')} (list them in a profile's "bundles" to offer them)` : ''}`;
  out(`profile: ${config.profile ?? '(none: the default bundles)'}\n`);
  out(`${bundles}\n`);
  out(`plugins: ${kernel.registry.plugins.map((p) => `${p.name}@${p.version}`).join(', ')}\n`);
  out(`tools (${tools.length}): ${tools.map((t) => t.name).join(', ')}\n`);
  if (loaded.config.http) {
    const http = resolveHttpConfig(loaded, {}, process.env);
    out(`http: ${http.host}:${http.port}${http.path}, token ${http.tokenSource ?? 'none (loopback only)'}\n`);
  }
  out('ok\n');
}

function firstSentence(s: string): string {
  const m = /^(.+?[.!?])(\s|$)/s.exec(s);
  return (m ? m[1]! : s).replace(/\s+/g, ' ');
}
