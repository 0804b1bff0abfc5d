import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolvePluginModule } from '../plugins/resolve-module';
import { describeIssues } from './config-error';
import { profileSchema } from './schema';
import type { Limits } from '../contracts/limits';
import type { AnswerSettings } from '../contracts/tool';
import { DEFAULT_CACHE_MAX_BYTES, DEFAULT_LIMITS } from './defaults';
import { ConfigError } from './config-error';
import { logLevelSchema, type LoadedConfigLike, type LimitsConfig, type LogLevel, type ProfileConfig } from './types';

/** What a missing root says (a ConfigError, exit 2). */
export const NO_ROOT_MESSAGE =
  'No root folder is set. mcpgw serves files from one root folder and has no default (clients often start servers in / or your home folder).\n' +
  'Set it with --root DIR, the MCPGW_ROOT environment variable, or "root" in .mcpgwrc.';

/** Command-line flags that override the environment and the config. */
export interface Flags {
  root?: string;
  profile?: string;
  logLevel?: string;
}

/** The configuration in force: every precedence rule applied (flag > environment > config > default). */
export interface EffectiveConfig {
  /** Absolute root folder; null only when `ResolveOptions.rootOptional` allowed its absence. */
  root: string | null;
  /** The profile's name, or null when the config has no profiles (every bundle is offered). */
  profile: string | null;
  /** Bundle names to offer, or null for every registered bundle. */
  bundles: string[] | null;
  /** Tool names to offer (null: all of the bundles' tools). */
  allow: string[] | null;
  /** Tool names never offered. */
  deny: string[];
  limits: Limits;
  /** How answers are written: the profile's `recordFormat` and `resultText`, else the config's, else compact and auto. */
  answers: AnswerSettings;
  logLevel: LogLevel;
  /** The persistent index cache: its folder (absolute) and bound (bytes); null or absent: off. */
  cache?: CacheConfig | null;
}

/** Where the persistent index cache lives and how big it may grow (docs/architecture.md "Persistent index"). */
export interface CacheConfig {
  /** Absolute folder. */
  dir: string;
  /** Bytes. */
  maxBytes: number;
}

/** Where shareable profiles are looked up after the config file's folder. */
export interface ResolveOptions {
  /** mcpgw's own package folder. */
  ownDir?: string;
  /**
   * true: a missing root gives `root: null` instead of a ConfigError (the caller decides once it knows whether the
   * offered bundles read files under a root).
   */
  rootOptional?: boolean;
}

/**
 * Applies the precedence and profile composition of docs/architecture.md "Configuration". `extends` names another profile of the same
 * config, or else a shareable profile: an npm package (or a path, relative to the config file) whose
 * default export is a profile object, looked up from the config file's folder, then from mcpgw's own
 * folder (`options.ownDir`). A shareable profile's own `extends` names another package, looked up from
 * its folder. The child's `bundles`, `allow`, `root`, `recordFormat`, `resultText` replace the parent's, `deny` lists are joined,
 * `limits` merge key by key with the child first; a `root` (wherever it was written) is relative to
 * the config file. A cycle, an unknown profile, a missing package or one whose export is not a valid
 * profile is a ConfigError naming it.
 */
export function resolveConfig(loaded: LoadedConfigLike, flags: Flags, env: NodeJS.ProcessEnv, cwd: string, options: ResolveOptions = {}): EffectiveConfig {
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
    profile = flattenProfile(profileName, { profiles: config.profiles, dir, ownDir: options.ownDir });
  }

  // root: flag (relative to cwd) > env (relative to cwd) > profile root > config root (relative to the config file)
  let root: string | undefined;
  if (flags.root) root = path.resolve(cwd, flags.root);
  else if (env.MCPGW_ROOT) root = path.resolve(cwd, env.MCPGW_ROOT);
  else if (profile?.root) root = path.resolve(dir, profile.root);
  else if (config.root) root = path.resolve(dir, config.root);
  if (!root && !options.rootOptional) throw new ConfigError(NO_ROOT_MESSAGE);

  const limits: Limits = { ...DEFAULT_LIMITS, ...stripUndefined(config.limits), ...stripUndefined(profile?.limits) };
  return {
    root: root ?? null,
    profile: profileName ?? null,
    bundles: profile?.bundles ?? null,
    allow: profile?.allow ?? null,
    deny: profile?.deny ?? [],
    limits,
    answers: {
      recordFormat: profile?.recordFormat ?? config.recordFormat ?? 'compact',
      resultText: profile?.resultText ?? config.resultText ?? 'auto',
      redactSecrets: profile?.redactSecrets ?? config.redactSecrets ?? true,
    },
    logLevel: log.data,
    cache: config.cache === false ? null : { dir: config.cacheDir !== undefined ? absPath(config.cacheDir, dir) : defaultCacheDir(env), maxBytes: config.cacheMaxBytes ?? DEFAULT_CACHE_MAX_BYTES },
  };
}

/** The index cache's default folder: `$XDG_CACHE_HOME/mcpgw/index` (an absolute XDG_CACHE_HOME only, as the XDG spec says), else `~/.cache/mcpgw/index`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache'), 'mcpgw', 'index');
}

/** A path from the config: relative to the config file's folder, `~/…` to the user's home folder. */
function absPath(p: string, dir: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : path.resolve(dir, p);
}

interface ProfileLookup {
  profiles: Record<string, ProfileConfig>;
  /** The config file's folder. */
  dir: string;
  ownDir?: string;
}

/** Profiles one `extends` chain may hold (the named one included). */
export const MAX_PROFILE_CHAIN = 32;

/**
 * The profile `name` with its `extends` chain merged in. `fromPackage` is the folder of the shareable
 * profile that named `name` (its parents are packages too, looked up from there).
 */
function flattenProfile(name: string, lookup: ProfileLookup, seen: string[] = [], fromPackage?: string): ProfileConfig {
  if (seen.includes(name)) throw new ConfigError(`Profiles extend each other in a cycle: ${[...seen, name].join(' → ')}.`);
  if (seen.length >= MAX_PROFILE_CHAIN) {
    throw new ConfigError(`Profile "${seen[0]}" extends a chain of more than ${MAX_PROFILE_CHAIN} profiles (${seen.slice(0, 3).join(' → ')} → … → ${name}): merge some of them; a chain is at most ${MAX_PROFILE_CHAIN} long.`);
  }
  let own: ProfileConfig;
  let packageDir: string | undefined;
  if (fromPackage === undefined && Object.hasOwn(lookup.profiles, name)) own = lookup.profiles[name]!;
  else ({ profile: own, dir: packageDir } = loadShareableProfile(name, fromPackage ?? lookup.dir, lookup, seen[seen.length - 1]!));
  if (!own.extends) return own;
  const parent = flattenProfile(own.extends, lookup, [...seen, name], packageDir);
  const merged: ProfileConfig = {
    bundles: own.bundles ?? parent.bundles,
    allow: own.allow ?? parent.allow,
    root: own.root ?? parent.root,
    deny: [...new Set([...(parent.deny ?? []), ...(own.deny ?? [])])],
    limits: { ...stripUndefined(parent.limits), ...stripUndefined(own.limits) },
    recordFormat: own.recordFormat ?? parent.recordFormat,
    resultText: own.resultText ?? parent.resultText,
    redactSecrets: own.redactSecrets ?? parent.redactSecrets,
  };
  return merged;
}

const requireProfile = createRequire(__filename);

/** Loads and validates a shareable profile (`extends: "@acme/mcpgw-profile-strict"`). @throws ConfigError */
function loadShareableProfile(spec: string, fromDir: string, lookup: ProfileLookup, child: string): { profile: ProfileConfig; dir: string } {
  const searchDirs = lookup.ownDir ? [fromDir, lookup.ownDir] : [fromDir];
  const entry = resolvePluginModule(spec, fromDir, searchDirs);
  if (!entry) {
    const known = Object.keys(lookup.profiles);
    throw new ConfigError(
      `Profile "${child}" extends "${spec}", which is neither a profile of this config (${known.join(', ') || 'none'}) nor an installed package exporting a profile ` +
        `(looked up from ${fromDir}${lookup.ownDir ? ` and mcpgw's folder ${lookup.ownDir}` : ''}).`,
    );
  }
  let mod: unknown;
  try {
    mod = requireProfile(entry);
  } catch (err) {
    throw new ConfigError(`Profile "${child}" extends "${spec}", which cannot be loaded from ${entry}: ${(err as Error).message}`);
  }
  let exported = (mod as { default?: unknown } | null)?.default ?? mod;
  if (exported && typeof exported === 'object' && 'default' in exported && !('bundles' in exported)) exported = (exported as { default: unknown }).default;
  const parsed = profileSchema.safeParse(exported);
  if (!parsed.success) {
    throw new ConfigError(`Profile "${child}" extends "${spec}", whose default export (${entry}) is not a valid profile:\n${describeIssues(parsed.error.issues, spec)}`);
  }
  return { profile: parsed.data, dir: path.dirname(entry) };
}

function stripUndefined(o: LimitsConfig | undefined): LimitsConfig {
  if (!o) return {};
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as LimitsConfig;
}
