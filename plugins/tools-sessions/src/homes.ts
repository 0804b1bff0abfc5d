import { realpathSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import type { SessionSource, ToolContext } from 'mcpgw/plugin-api';

/** The plugin's options: the config's `sessions` section (paths relative to the config file; see absoluteOptions). */
export const optionsSchema = z.strictObject({
  enabled: z.boolean().default(false),
  cacheDir: z.string().min(1).optional(),
  embedder: z.string().min(1).optional(),
  sources: z.record(z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'a source name: lower-case letters, digits, "-"'), z.strictObject({ home: z.string().min(1).optional(), enabled: z.boolean().optional() })).default({}),
});

export type SessionsOptions = z.output<typeof optionsSchema>;

/** A source with its home as configured. */
export interface SourceHome {
  source: SessionSource;
  /** Absolute home folder: environment `MCPGW_<NAME>_HOME` > config `sessions.sources.<name>.home` > the tool's default. */
  home: string;
  /** Where the home came from. */
  basis: 'environment' | 'config' | 'default';
  /** The folder holding the sessions (list_sources base_path). */
  basePath: string;
  /** True when the home exists (a source whose home is absent is invisible to every tool but list_sources). */
  available: boolean;
  /** The home's real path when available. */
  realHome: string | null;
}

/** `MCPGW_<NAME>_HOME` for a source name (`-` becomes `_`). */
export function envName(source: string): string {
  return `MCPGW_${source.toUpperCase().replace(/-/g, '_')}_HOME`;
}

/**
 * The enabled sources and their homes, in registration order. A source disabled in the config is left out.
 * Relative environment values resolve against the current folder; `~/` against the user's home folder.
 */
export function sourceHomes(sources: readonly SessionSource[], options: SessionsOptions, env: NodeJS.ProcessEnv = process.env, userHome = os.homedir()): SourceHome[] {
  const out: SourceHome[] = [];
  for (const source of sources) {
    const conf = options.sources[source.name];
    if (conf?.enabled === false) continue;
    const fromEnv = env[envName(source.name)];
    let home: string;
    let basis: SourceHome['basis'];
    if (fromEnv) { home = expand(fromEnv, userHome); basis = 'environment'; }
    else if (conf?.home) { home = expand(conf.home, userHome); basis = 'config'; }
    else { home = source.defaultHome(userHome); basis = 'default'; }
    let realHome: string | null = null;
    try {
      if (statSync(home).isDirectory()) realHome = realpathSync(home);
    } catch { /* absent */ }
    out.push({ source, home, basis, basePath: source.sessionsRoot(home), available: realHome !== null, realHome });
  }
  return out;
}

function expand(p: string, userHome: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(userHome, p.slice(1)) : path.resolve(p);
}

/** The extension point session sources are provided to (`context.provide('session-source', source)`). */
export const SOURCE_POINT = 'session-source';

/** The sources provided to this plugin's extension point, in the order provided. */
export function registeredSources(ctx: Pick<ToolContext, 'registry'>): readonly SessionSource[] {
  return ctx.registry.extensions<SessionSource>(SOURCE_POINT).list();
}

/**
 * The options with their paths absolute: relative to `dir` (the config file's folder), `~/…` to the user's home folder
 * (the config's `sessions` section is this plugin's options, `Plugin.configSection`).
 */
export function absoluteOptions(options: SessionsOptions, dir: string, userHome = os.homedir()): SessionsOptions {
  const abs = (p: string) => (p === '~' || p.startsWith('~/') ? path.join(userHome, p.slice(1)) : path.resolve(dir, p));
  const sources: SessionsOptions['sources'] = {};
  for (const [name, s] of Object.entries(options.sources)) sources[name] = { ...s, ...(s.home !== undefined ? { home: abs(s.home) } : {}) };
  return { ...options, ...(options.cacheDir !== undefined ? { cacheDir: abs(options.cacheDir) } : {}), sources };
}
