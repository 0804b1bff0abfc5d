import { isLoopbackHost, LOOPBACK_HOSTNAMES, resolveHttpConfig } from '../kernel/config';
import { McpgwError } from '../kernel/errors';
import { McpHttpServer } from '../kernel/http/http-server';
import { releaseSoon } from '../engine/memory';
import { installFaultGuard } from '../kernel/server/fault-guard';
import { reserveStdout } from '../kernel/server/stdout-guard';
import { prepare, type CommonOptions } from './setup';

/** Time given to in-flight calls past requestTimeoutMs at shutdown, ms. */
const STOP_SLACK_MS = 1000;

/**
 * `mcpgw serve --http`: MCP over Streamable HTTP on one endpoint for both protocol eras. Prints the URL
 * on stderr (stdout stays empty). SIGTERM / SIGINT stop accepting, let calls in flight finish (at most
 * requestTimeoutMs), close every session and exit 0.
 * @throws ConfigError (exit 2): a non-loopback host without a token, a bad `http` key or token;
 *   McpgwError IO_ERROR (exit 1): the address cannot be bound.
 */
export async function serveHttp(opts: CommonOptions & { host?: string; port?: number }): Promise<void> {
  reserveStdout(); // stdout stays empty: a plugin's console.log goes to stderr, as on stdio
  const { loaded, config, kernel } = await prepare(opts, true);
  const settings = resolveHttpConfig(loaded, { host: opts.host, port: opts.port }, process.env);
  const log = kernel.options.log;
  installFaultGuard(log, (err) => kernel.registry.blame.of(err));
  // Gone quiet after a load: one memory-reducing collection (what the clients' calls left is given back).
  const onQuiet = () => releaseSoon(1000, true);
  const server = new McpHttpServer({ settings, build: kernel.serverBuilder(config), newSession: () => kernel.newSession(), limits: config.limits, log, clock: kernel.clock, onQuiet });
  let url: URL;
  try {
    url = await server.listen();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new McpgwError('IO_ERROR', `Cannot listen on ${settings.host}:${settings.port}: ${e.code ?? ''} ${e.message}`.replace(/\s+/g, ' '));
  }
  let stopping = false;
  const stop = (sig: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info(`${sig}: stopping`, { sessions: server.sessions });
    server.stop(config.limits.requestTimeoutMs + STOP_SLACK_MS).then(
      () => process.exit(0),
      (err) => {
        log.error('http: stop failed', { error: (err as Error).message });
        process.exit(1);
      },
    );
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, stop);
  if (!isLoopbackHost(settings.host) && settings.allowedHosts.every((h) => LOOPBACK_HOSTNAMES.includes(h))) {
    log.warn(`listening on ${settings.host}, but http.allowedHosts lists only loopback names: requests naming another host get 403 until you list the names clients use`);
  }
  log.info('serving over HTTP', { url: url.href, root: config.root, profile: config.profile, tools: kernel.selectTools(config).map((t) => t.name) });
  // Last: this line tells whoever started the server that it is ready.
  process.stderr.write(`mcpgw: serving MCP over HTTP at ${url.href}${settings.token ? ` (Bearer token from ${settings.tokenSource})` : ''}\n`);
}
