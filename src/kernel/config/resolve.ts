import * as path from 'node:path';
import type { Limits } from '../contracts/limits';
import { DEFAULT_LIMITS } from './defaults';
import { ConfigError } from './config-error';
import { logLevelSchema, type LoadedConfigLike, type LimitsConfig, type LogLevel, type ProfileConfig } from './types';

/** Command-line flags that override the environment and the config. */
export interface Flags {
  root?: string;
  profile?: string;
  logLevel?: string;
}

/** The configuration in force: every precedence rule applied (flag > environment > config > default). */
export interface EffectiveConfig {
  /** Absolute root folder. */
  root: string;
  /** The profile's name, or null when the config has no profiles (every bundle is offered). */
  profile: string | null;
  /** Bundle names to offer, or null for every registered bundle. */
  bundles: string[] | null;
  /** Tool names to offer (null: all of the bundles' tools). */
  allow: string[] | null;
  /** Tool names never offered. */
  deny: string[];
  limits: Limits;
  logLevel: LogLevel;
}

/**
 * Applies DESIGN's precedence and profile composition. `extends` names another profile; the
 * child's `bundles`, `allow`, `root` replace the parent's, `deny` lists are joined, `limits` merge
 * key by key with the child first. A cycle or an unknown profile is a ConfigError.
 */
export function resolveConfig(loaded: LoadedConfigLike, flags: Flags, env: NodeJS.ProcessEnv, cwd: string): EffectiveConfig {
  const { config, dir } = loaded;
  const logRaw = flags.logLevel ?? env.MCPGW_LOG ?? config.logLevel ?? 'warn';
  const log = logLevelSchema.safeParse(logRaw);
  if (!log.success) throw new ConfigError(`Log level "${logRaw}" is not one of error, warn, info, debug.`);

  const profileName = flags.profile ?? env.MCPGW_PROFILE ?? config.profile ?? (config.profiles?.default ? 'default' : undefined);
  let profile: ProfileConfig | null = null;
  if (profileName !== undefined) {
    if (!config.profiles || !config.profiles[profileName]) {
      const known = Object.keys(config.profiles ?? {});
      throw new ConfigError(`Profile "${profileName}" is not defined.${known.length ? ` Profiles: ${known.join(', ')}.` : ' The config has no profiles.'}`);
    }
    profile = flattenProfile(profileName, config.profiles);
  }

  // root: flag (relative to cwd) > env (relative to cwd) > profile root > config root (relative to the config file)
  let root: string | undefined;
  if (flags.root) root = path.resolve(cwd, flags.root);
  else if (env.MCPGW_ROOT) root = path.resolve(cwd, env.MCPGW_ROOT);
  else if (profile?.root) root = path.resolve(dir, profile.root);
  else if (config.root) root = path.resolve(dir, config.root);
  if (!root) {
    throw new ConfigError(
      'No root folder is set. mcpgw serves files from one root folder and has no default (clients often start servers in / or your home folder).\n' +
        'Set it with --root DIR, the MCPGW_ROOT environment variable, or "root" in .mcpgwrc.',
    );
  }

  const limits: Limits = { ...DEFAULT_LIMITS, ...stripUndefined(config.limits), ...stripUndefined(profile?.limits) };
  return {
    root,
    profile: profileName ?? null,
    bundles: profile?.bundles ?? null,
    allow: profile?.allow ?? null,
    deny: profile?.deny ?? [],
    limits,
    logLevel: log.data,
  };
}

function flattenProfile(name: string, profiles: Record<string, ProfileConfig>, seen: string[] = []): ProfileConfig {
  if (seen.includes(name)) throw new ConfigError(`Profiles extend each other in a cycle: ${[...seen, name].join(' → ')}.`);
  const own = profiles[name];
  if (!own) throw new ConfigError(`Profile "${seen[seen.length - 1]}" extends "${name}", which is not defined.`);
  if (!own.extends) return own;
  const parent = flattenProfile(own.extends, profiles, [...seen, name]);
  const merged: ProfileConfig = {
    bundles: own.bundles ?? parent.bundles,
    allow: own.allow ?? parent.allow,
    root: own.root ?? parent.root,
    deny: [...(parent.deny ?? []), ...(own.deny ?? [])],
    limits: { ...stripUndefined(parent.limits), ...stripUndefined(own.limits) },
  };
  return merged;
}

function stripUndefined(o: LimitsConfig | undefined): LimitsConfig {
  if (!o) return {};
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as LimitsConfig;
}
