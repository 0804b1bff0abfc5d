import * as path from 'node:path';
import { ConfigError, loadConfig, NO_ROOT_MESSAGE, resolveConfig, type EffectiveConfig, type LoadedConfig } from '../kernel/config';
import { createLogger } from '../kernel/log';
import type { Kernel } from '../kernel/kernel';
import { createKernel } from '../compose/engine';
import type { PluginSpec } from '../kernel/plugins/loader';
import { BUILTIN_PLUGINS } from './builtins';

/** Options every command takes. */
export interface CommonOptions {
  config?: string;
  profile?: string;
  root?: string;
  logLevel?: string;
}

/** mcpgw's own package folder (dist/cli → the package root). */
export const OWN_DIR = path.resolve(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const VERSION: string = require(path.join(OWN_DIR, 'package.json')).version;

export interface Prepared {
  loaded: LoadedConfig;
  config: EffectiveConfig;
  kernel: Kernel;
  /** The root that --root, MCPGW_ROOT, a profile or the config file set; null when none did (`config.root` is then the current folder, or null). */
  rootSet: string | null;
}

/**
 * Loads the config, applies flags and environment, loads every plugin.
 * `needRoot: false` lets commands that read no files (list-tools, plugins) run without a root. With `needRoot`, a
 * missing root is refused unless every offered bundle reads no file under a root (`root` is then null).
 * @throws ConfigError, PluginLoadError (the CLI exits 2 on both)
 */
export async function prepare(opts: CommonOptions, needRoot: boolean): Promise<Prepared> {
  const cwd = process.cwd();
  const loaded = await loadConfig(opts.config, cwd);
  let config: EffectiveConfig = resolveConfig(loaded, opts, process.env, cwd, { ownDir: OWN_DIR, rootOptional: true });
  const rootSet = config.root;
  if (config.root === null && !needRoot) config = { ...config, root: cwd };
  const log = createLogger(config.logLevel);
  routeWarnings(log);
  for (const folder of loaded.skipped ?? []) log.info('config discovery skipped a folder it cannot read', { folder });
  const kernel = createKernel({ version: VERSION, ownDir: OWN_DIR, log, pluginLoadBoundMs: loadBound(process.env.MCPGW_PLUGIN_LOAD_TIMEOUT_MS) });
  await kernel.load(pluginSpecs(loaded), { sections: loaded.sections ?? {}, dir: loaded.dir });
  if (config.root === null && kernel.needsRoot(config)) throw new ConfigError(NO_ROOT_MESSAGE);
  return { loaded, config, kernel, rootSet };
}

/** Default bound on loading one plugin (its import and register), ms. */
const PLUGIN_LOAD_BOUND_MS = 30_000;

/** The bound on loading one plugin: `MCPGW_PLUGIN_LOAD_TIMEOUT_MS` (a positive whole number of ms), else the default. */
function loadBound(env: string | undefined): number {
  if (env === undefined || env === '') return PLUGIN_LOAD_BOUND_MS;
  const n = Number(env);
  if (!Number.isInteger(n) || n <= 0 || n > 2 ** 31 - 1) throw new ConfigError(`MCPGW_PLUGIN_LOAD_TIMEOUT_MS: expected a whole number of milliseconds from 1 to ${2 ** 31 - 1}, got "${env}".`);
  return n;
}

/** The plugins to load: the built-ins (a built-in's options are its config section, `Plugin.configSection`), then the config's. */
function pluginSpecs(loaded: LoadedConfig): PluginSpec[] {
  const { builtins = true, plugins = [] } = loaded.config;
  let names: readonly string[] = [];
  if (builtins === true) names = BUILTIN_PLUGINS;
  else if (Array.isArray(builtins)) {
    names = builtins.map((b) => {
      const full = BUILTIN_PLUGINS.find((p) => p === b || p === `@mcpgw/${b}`);
      if (!full) throw new ConfigError(`builtins: "${b}" is not a built-in plugin. Built-ins: ${BUILTIN_PLUGINS.map((p) => p.replace('@mcpgw/', '')).join(', ')}.`);
      return full;
    });
  }
  const specs: PluginSpec[] = names.map((id) => ({
    id,
    options: {},
    fromDir: OWN_DIR,
    origin: 'builtin',
  }));
  for (const entry of plugins) {
    const [id, options] = typeof entry === 'string' ? [entry, {}] : entry;
    specs.push({ id, options, fromDir: loaded.dir, origin: 'config' });
  }
  return specs;
}

/**
 * Process warnings go to the log (stderr, at its level), not straight to stderr: an ExperimentalWarning (node:sqlite,
 * used by the session index) is debug information, anything else a warning.
 */
function routeWarnings(log: ReturnType<typeof createLogger>): void {
  process.removeAllListeners('warning');
  process.on('warning', (w: Error) => {
    if (w.name === 'ExperimentalWarning') log.debug(`node: ${w.message}`);
    else log.warn(`node: ${w.name}: ${w.message}`);
  });
}
