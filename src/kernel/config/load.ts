import * as os from 'node:os';
import * as path from 'node:path';
import { cosmiconfig, globalConfigSearchPlaces, type CosmiconfigResult, type PublicExplorer } from 'cosmiconfig';
import { configSchema, type ConfigFile } from './schema';
import { ConfigError, describeIssues } from './config-error';

/** Cosmiconfig search places (docs/architecture.md "Configuration"). */
export const SEARCH_PLACES = [
  'package.json',
  '.mcpgwrc',
  '.mcpgwrc.json',
  '.mcpgwrc.yaml',
  '.mcpgwrc.yml',
  '.mcpgwrc.js',
  '.mcpgwrc.cjs',
  '.mcpgwrc.mjs',
  'mcpgw.config.js',
  'mcpgw.config.cjs',
  'mcpgw.config.mjs',
];

export interface LoadedConfig {
  config: ConfigFile;
  /** The file it came from, or null when none was found. */
  filepath: string | null;
  /** Folder that relative paths in the config are relative to (the file's folder, else cwd). */
  dir: string;
  /** Folders discovery could not read and passed over (absent when none). */
  skipped?: string[];
  /**
   * Plugins' sections: top-level objects under keys that are not mcpgw's own (`history: {…}`), each the options of
   * the loaded plugin whose manifest claims it (`Plugin.configSection`; an unclaimed one is refused once plugins load).
   */
  sections?: Record<string, Record<string, unknown>>;
}

/** Splits a config's top-level keys into mcpgw's own and plugin sections (objects under other keys). */
export function pluginSections(raw: unknown): { own: unknown; sections: Record<string, Record<string, unknown>> } {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { own: raw, sections: {} };
  const own: Record<string, unknown> = {};
  const sections: Record<string, Record<string, unknown>> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (!Object.hasOwn(configSchema.shape, k) && v !== null && typeof v === 'object' && !Array.isArray(v)) sections[k] = v as Record<string, unknown>;
    else own[k] = v;
  }
  return { own, sections };
}

/** Why a folder cannot be searched: it is not readable, not a folder, or a symlink loop. Such folders are skipped. */
const UNREADABLE = new Set(['EACCES', 'EPERM', 'ENOTDIR', 'ELOOP', 'ENAMETOOLONG']);

/**
 * Loads and validates the config: `explicit` (from --config) or discovery from `cwd` upward to the
 * user's home folder, then the user's config folder (`~/.config/mcpgw/`) — cosmiconfig 9's "global"
 * search strategy, one folder at a time, so that a folder it cannot read (an unreadable `~/.config`, a symlink
 * loop) is skipped (and named in `skipped`) instead of failing start-up.
 * @throws ConfigError naming the file, the key path and what was expected.
 */
export async function loadConfig(explicit: string | undefined, cwd: string, home = os.homedir()): Promise<LoadedConfig> {
  let result: CosmiconfigResult;
  const skipped: string[] = [];
  try {
    result = explicit
      ? await cosmiconfig('mcpgw', { searchPlaces: SEARCH_PLACES, cache: false }).load(path.resolve(cwd, explicit))
      : await discover(cwd, home, skipped);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') throw new ConfigError(`Config file ${explicit} does not exist.`);
    throw new ConfigError(`Cannot read config ${explicit ?? ''}: ${e.message}`);
  }
  const extra = skipped.length ? { skipped } : {};
  if (!result || result.isEmpty) {
    return { config: {}, filepath: result?.filepath ?? null, dir: result ? path.dirname(result.filepath) : cwd, ...extra };
  }
  const { own, sections } = pluginSections(result.config);
  const parsed = configSchema.safeParse(own);
  if (!parsed.success) {
    throw new ConfigError(`Invalid config in ${result.filepath}:\n${describeIssues(parsed.error.issues)}`);
  }
  return { config: parsed.data, filepath: result.filepath, dir: path.dirname(result.filepath), sections, ...extra };
}

/**
 * The folders cosmiconfig's "global" strategy searches, in order: `from`, its parents up to the home folder (or the
 * file-system root when `from` is outside it), then the user's config folder.
 */
export function discoveryFolders(from: string, home = os.homedir()): { dir: string; global: boolean }[] {
  const stop = path.resolve(home);
  const out = [{ dir: from, global: false }];
  for (let cur = from; cur !== stop;) {
    const parent = path.dirname(cur);
    if (parent === cur) break;
    out.push({ dir: parent, global: false });
    cur = parent;
  }
  out.push({ dir: globalConfigFolder(home), global: true });
  return out;
}

/**
 * The user's config folder for mcpgw as cosmiconfig 9 computes it (env-paths with no suffix): `$XDG_CONFIG_HOME/mcpgw`
 * or `~/.config/mcpgw` on Linux, `~/Library/Preferences/mcpgw` on macOS, `%APPDATA%\mcpgw\Config` on Windows.
 */
export function globalConfigFolder(home = os.homedir()): string {
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Preferences', 'mcpgw');
  if (process.platform === 'win32') return path.join(process.env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'mcpgw', 'Config');
  return path.join(process.env.XDG_CONFIG_HOME || path.join(home, '.config'), 'mcpgw');
}

async function discover(cwd: string, home: string, skipped: string[]): Promise<CosmiconfigResult> {
  const explorers: Record<'local' | 'global', PublicExplorer> = {
    local: cosmiconfig('mcpgw', { searchPlaces: SEARCH_PLACES, cache: false, searchStrategy: 'none' }),
    global: cosmiconfig('mcpgw', { searchPlaces: globalConfigSearchPlaces, cache: false, searchStrategy: 'none' }),
  };
  for (const { dir, global } of discoveryFolders(path.resolve(cwd), home)) {
    try {
      const found = await explorers[global ? 'global' : 'local'].search(dir);
      if (found) return found;
    } catch (err) {
      if (!UNREADABLE.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
      skipped.push(dir);
    }
  }
  return null;
}
