import * as path from 'node:path';
import { cosmiconfig } from 'cosmiconfig';
import { configSchema, type ConfigFile } from './schema';
import { ConfigError, describeIssues } from './config-error';

/** Cosmiconfig search places (DESIGN "Configuration"). */
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
}

/**
 * Loads and validates the config: `explicit` (from --config) or discovery from `cwd` upward to the
 * user's home folder, then the user's config folder (`~/.config/mcpgw/`) — cosmiconfig 9's "global"
 * search strategy.
 * @throws ConfigError naming the file, the key path and what was expected.
 */
export async function loadConfig(explicit: string | undefined, cwd: string): Promise<LoadedConfig> {
  const explorer = cosmiconfig('mcpgw', { searchPlaces: SEARCH_PLACES, cache: false, searchStrategy: 'global' });
  let result;
  try {
    result = explicit ? await explorer.load(path.resolve(cwd, explicit)) : await explorer.search(cwd);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') throw new ConfigError(`Config file ${explicit} does not exist.`);
    throw new ConfigError(`Cannot read config ${explicit ?? ''}: ${e.message}`);
  }
  if (!result || result.isEmpty) {
    return { config: {}, filepath: result?.filepath ?? null, dir: result ? path.dirname(result.filepath) : cwd };
  }
  const parsed = configSchema.safeParse(result.config);
  if (!parsed.success) {
    throw new ConfigError(`Invalid config in ${result.filepath}:\n${describeIssues(parsed.error.issues)}`);
  }
  return { config: parsed.data, filepath: result.filepath, dir: path.dirname(result.filepath) };
}
