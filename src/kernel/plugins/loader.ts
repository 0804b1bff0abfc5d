import { pathToFileURL } from 'node:url';
import type { Clock } from '../contracts/clock';
import type { ExtensionPoint, Plugin, PluginContext, Requirement } from '../contracts/plugin';
import type { RecordsToolkit } from '../contracts/records';
import type { EngineToolkit } from '../contracts/toolkit';
import type { Format } from '../contracts/format';
import type { QueryLanguage } from '../contracts/query';
import type { ToolBundle } from '../contracts/tool';
import type { CommandDefinition } from '../contracts/command';
import { errorFactory, McpgwError } from '../errors';
import { Tokens } from '../contracts/tokens';
import { API_2_CHANGES, API_3_CHANGES, PLUGIN_API_VERSION } from '../version';
import { tagLogger } from '../log';
import { containerOf } from '../container';
import type { Logger } from '../contracts/plugin';
import type { DependencyContainer } from 'tsyringe';
import type { Token } from '../contracts/tokens';
import { RegistrationConflict, type PluginRecord, type Registry } from './registry';
import { isPathSpec, resolvePluginModule } from './resolve-module';
import { pluginRoot } from './blame';
import type { LoadWatchdog } from './load-watchdog';
import { satisfiesCaretRange } from './api-range';

/** The CLI's own commands: a plugin command may not start with one of them. */
export const BUILTIN_COMMANDS: readonly string[] = ['serve', 'list-tools', 'plugins', 'plugin', 'check', 'query', 'help'];

/** A plugin that cannot load: start-up stops with this message (exit code 2). */
export class PluginLoadError extends Error {
  constructor(readonly plugin: string, message: string) {
    super(`Plugin ${plugin}: ${message}`);
    this.name = 'PluginLoadError';
  }
}

export interface PluginSpec {
  /** npm package name or path. */
  id: string;
  options: Record<string, unknown>;
  /** Folder a path spec is relative to, and the first place packages are looked up. */
  fromDir: string;
  /** Shown in `mcpgw plugins`: `builtin` or `config`. */
  origin: 'builtin' | 'config';
}

/**
 * The config's plugin sections (top-level objects that are not mcpgw's own keys) and the folder their relative paths
 * are relative to. A plugin whose manifest names a `configSection` gets that object as its options when its spec has
 * none; a section no loaded plugin claims is refused (`unclaimedSections`).
 */
export interface ConfigSections {
  sections: Readonly<Record<string, Record<string, unknown>>>;
  /** The config file's folder (the current folder without one). */
  dir: string;
  /** Filled while loading: the sections plugins took. */
  claimed?: Set<string>;
}

export interface LoaderContext {
  registry: Registry;
  kernelVersion: string;
  /** mcpgw's own folder: packages are looked up there after the config's folder. */
  ownDir: string;
  /** The kernel's container: each plugin gets a child of it (its own Plugin, PluginOptions and tagged Logger). */
  container: DependencyContainer;
  log: Logger;
  clock: Clock;
  /** Loads a resolved entry file; default `import()` of its file URL (ESM and CommonJS alike). Tests inject their own. */
  importModule?: (entry: string) => Promise<unknown>;
  /** The config's plugin sections; none: every plugin's options come from its spec. */
  config?: ConfigSections;
  /** Bounds each plugin's import and register (load-watchdog.ts); none: unbounded (in-process tests). */
  watchdog?: LoadWatchdog;
}

/**
 * Loads plugins in order: resolve → `import()` (ESM and CommonJS alike) → check the contract and
 * `apiVersion` → validate options → `register`. Any failure is a PluginLoadError naming the plugin.
 * What plugins `require` is checked afterwards, once all are loaded (plugins/requires.ts).
 */
export async function loadPlugins(specs: readonly PluginSpec[], ctx: LoaderContext): Promise<void> {
  for (const spec of specs) await loadPlugin(spec, ctx);
}

/**
 * Loads one plugin into `ctx.registry`. The same steps run on a worker thread that needs a plugin's query language
 * (worker-language.ts), with the options as configured, so a worker's plugin is validated and configured as the main
 * thread's is. @throws PluginLoadError
 */
export async function loadPlugin(spec: PluginSpec, ctx: LoaderContext): Promise<PluginRecord> {
  const entry = resolvePluginModule(spec.id, spec.fromDir, [spec.fromDir, ctx.ownDir]);
  if (!entry) {
    const where = isPathSpec(spec.id) ? `no file or folder at ${spec.id} (relative to ${spec.fromDir})` : `package not found from ${spec.fromDir} or mcpgw's own folder`;
    throw new PluginLoadError(spec.id, `cannot be found: ${where}. ${isPathSpec(spec.id) ? '' : `Install it with npm install ${spec.id}.`}`.trim());
  }
  let mod: unknown;
  ctx.watchdog?.arm(spec.id, `loading ${entry}`);
  try {
    mod = await (ctx.importModule ?? importEntry)(entry);
  } catch (err) {
    throw new PluginLoadError(spec.id, `failed to load ${entry}: ${messageOf(err)}`);
  } finally {
    ctx.watchdog?.disarm();
  }
  const plugin = pickPlugin(mod);
  const problem = contractProblem(plugin);
  if (problem) throw new PluginLoadError(spec.id, `${entry} does not export a plugin: ${problem}. A plugin's default export is { name, version, apiVersion, register(context, options) }.`);
  const p = plugin as Plugin;
  const label = `${p.name}@${p.version}`;
  // `^2.x.y` ranges (every built-in plugin's) are checked without loading semver (start-up time); the rest by semver
  if (!satisfiesCaretRange(PLUGIN_API_VERSION, p.apiVersion)) checkApiRange(p.apiVersion, label, ctx.kernelVersion);
  const requiresProblem = requirementsProblem(p.requires);
  if (requiresProblem) throw new PluginLoadError(label, requiresProblem);
  // Options given with the spec win; else the config's section the manifest names (its errors name the section's keys).
  let configured = spec.options;
  let where = '';
  const section = typeof p.configSection === 'string' ? p.configSection : undefined;
  if (section !== undefined && Object.keys(spec.options ?? {}).length === 0 && ctx.config && Object.hasOwn(ctx.config.sections, section)) {
    configured = ctx.config.sections[section]!;
    where = `${section}.`;
    (ctx.config.claimed ??= new Set()).add(section);
  } else if (section !== undefined && ctx.config) (ctx.config.claimed ??= new Set()).add(section);
  let options: unknown = configured;
  if (p.options) {
    const parsed = p.options.safeParse(configured);
    if (!parsed.success) {
      const keys = parsed.error.issues.flatMap(describeOptionIssue).map((k) => where + k).join('; ');
      throw new PluginLoadError(label, `invalid options${where ? ` (config section "${section}")` : ''}: ${keys}`);
    }
    options = parsed.data;
  }
  const record: PluginRecord = {
    name: p.name, version: p.version, apiVersion: p.apiVersion, source: spec.origin === 'builtin' ? 'builtin' : spec.id,
    formats: [], queryLanguages: [], bundles: [], tools: [],
    ...(p.requires?.length ? { requires: p.requires.map((r) => ({ ...r })) } : {}),
  };
  if (ctx.registry.plugins.some((r) => r.name === p.name)) {
    throw new PluginLoadError(label, `a plugin named ${p.name} is already loaded.`);
  }
  const container = ctx.container.createChildContainer();
  const log = tagLogger(ctx.log, { plugin: p.name });
  container.register(Tokens.Plugin, { useValue: { name: p.name, version: p.version } });
  container.register(Tokens.PluginOptions, { useValue: options });
  container.register(Tokens.Logger, { useValue: log });
  const context = makeContextFor(record, container, log, ctx);
  ctx.registry.blame.add(p.name, pluginRoot(spec.id, spec.fromDir, entry, isPathSpec(spec.id)));
  ctx.watchdog?.arm(label, 'register()');
  try {
    await p.register(context, options);
  } catch (err) {
    if (err instanceof PluginLoadError) throw err;
    if (err instanceof RegistrationConflict) throw new PluginLoadError(label, err.message);
    throw new PluginLoadError(label, `register() failed: ${messageOf(err)}`);
  } finally {
    ctx.watchdog?.disarm();
  }
  ctx.registry.plugins.push(record);
  ctx.registry.loaded.set(p.name, { entry, configured, container });
  ctx.log.debug('plugin loaded', { plugin: label, from: entry });
  return record;
}

/**
 * Refuses a plugin whose `apiVersion` is not a semver range, or is one PLUGIN_API_VERSION does not satisfy (prereleases
 * included). semver is loaded here, on the first range the caret check (api-range.ts) does not settle: the three
 * functions used, not the package's index (which loads every module of semver). @throws PluginLoadError
 */
function checkApiRange(apiVersion: string, label: string, kernelVersion: string): void {
  const validRange = require('semver/ranges/valid') as typeof import('semver/ranges/valid');
  const satisfies = require('semver/functions/satisfies') as typeof import('semver/functions/satisfies');
  const intersects = require('semver/ranges/intersects') as typeof import('semver/ranges/intersects');
  if (!validRange(apiVersion)) {
    throw new PluginLoadError(label, `apiVersion "${apiVersion}" is not a semver range.`);
  }
  if (!satisfies(PLUGIN_API_VERSION, apiVersion, { includePrerelease: true })) {
    if (intersects(apiVersion, '1.x', { includePrerelease: true })) {
      throw new PluginLoadError(label, `is built for plugin API ${apiVersion}; this mcpgw ${kernelVersion} provides plugin API ${PLUGIN_API_VERSION}, which refuses 1.x plugins. Plugin API 2 changed: ${API_2_CHANGES}; plugin API 3: ${API_3_CHANGES}. Install a version of the plugin built for plugin API 3, or see docs/plugin-api-changelog.md.`);
    }
    if (intersects(apiVersion, '2.x', { includePrerelease: true })) {
      throw new PluginLoadError(label, `is built for plugin API ${apiVersion}; this mcpgw ${kernelVersion} provides plugin API ${PLUGIN_API_VERSION}. Plugin API 3 changed: ${API_3_CHANGES}. Install a version of the plugin built for plugin API 3, or see docs/plugin-api-changelog.md "3.0.0".`);
    }
    throw new PluginLoadError(label, `is built for plugin API ${apiVersion}, but this mcpgw ${kernelVersion} provides plugin API ${PLUGIN_API_VERSION}. Install a version of the plugin that supports plugin API ${PLUGIN_API_VERSION}.`);
  }
}

/** The services a plugin may replace (`registerService`): the engine's, not the kernel's own. */
const REPLACEABLE: readonly string[] = [Tokens.ScanEngine, Tokens.Regex, Tokens.Records, Tokens.Indexer];

const KINDS: readonly Requirement['kind'][] = ['format', 'queryLanguage', 'bundle', 'extensionPoint', 'extension'];

/** What is wrong with a manifest's `requires`, or null. */
function requirementsProblem(requires: unknown): string | null {
  if (requires === undefined) return null;
  if (!Array.isArray(requires)) return '"requires" must be an array of { kind, name, providedBy? }.';
  for (const r of requires as Partial<Requirement>[]) {
    if (!r || !KINDS.includes(r.kind as Requirement['kind']) || typeof r.name !== 'string' || r.name.length === 0 || (r.providedBy !== undefined && typeof r.providedBy !== 'string')) {
      return `"requires" has ${JSON.stringify(r)}: each entry is { kind: ${KINDS.map((k) => `"${k}"`).join(' | ')}, name, providedBy? }.`;
    }
  }
  return null;
}

/** `key.path: message`; an unknown key (zod's `unrecognized_keys`) is named by its own path. */
function describeOptionIssue(issue: { path: readonly PropertyKey[]; message: string; code?: string; keys?: readonly string[] }): string[] {
  const at = issue.path.map(String);
  if (issue.code === 'unrecognized_keys' && Array.isArray(issue.keys)) return issue.keys.map((k) => `${[...at, k].join('.')}: unknown option`);
  return [`${at.join('.') || '(options)'}: ${issue.message}`];
}

/**
 * Loads a plugin's entry file. `require` first: a CommonJS plugin (the built-ins among them) then loads without the ES
 * module loader's detour (its resolution and export parsing cost start-up ~40% of the plugins' load time), and
 * `require` of an ES module returns its namespace as `import()` does (Node >= 22.12). An ES module `require` cannot
 * load (one with top-level await, or a Node that does not load ES modules by `require`) is imported.
 */
export async function importEntry(entry: string): Promise<unknown> {
  if (!entry.endsWith('.mjs')) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return require(entry);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code !== 'ERR_REQUIRE_ESM' && code !== 'ERR_REQUIRE_ASYNC_MODULE') throw err;
    }
  }
  return import(pathToFileURL(entry).href);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function pickPlugin(mod: unknown): unknown {
  let m = (mod as { default?: unknown }).default ?? mod;
  // CommonJS compiled from ESM syntax: module.exports = { default: plugin }
  if (m && typeof m === 'object' && !('register' in m) && 'default' in m) m = (m as { default: unknown }).default;
  return m;
}

function contractProblem(p: unknown): string | null {
  if (!p || typeof p !== 'object') return 'the default export is not an object';
  const o = p as Record<string, unknown>;
  for (const k of ['name', 'version', 'apiVersion']) {
    if (typeof o[k] !== 'string' || (o[k] as string).length === 0) return `"${k}" is missing or not a string`;
  }
  if (typeof o.register !== 'function') return '"register" is not a function';
  return null;
}

function makeContextFor(record: PluginRecord, container: DependencyContainer, log: Logger, ctx: LoaderContext): PluginContext {
  const label = `${record.name}@${record.version}`;
  const need = (cond: boolean, what: string) => {
    if (!cond) throw new PluginLoadError(label, what);
  };
  return {
    apiVersion: PLUGIN_API_VERSION,
    kernelVersion: ctx.kernelVersion,
    plugin: { name: record.name, version: record.version },
    registerFormat(format: Format) {
      need(!!format && typeof format.name === 'string' && typeof format.detect === 'function' && typeof format.open === 'function' && Array.isArray(format.extensions),
        'registerFormat() needs { name, extensions, detect(), open() }.');
      ctx.registry.addFormat(record, format);
    },
    registerQueryLanguage(language: QueryLanguage) {
      need(!!language && typeof language.name === 'string' && typeof language.compile === 'function', 'registerQueryLanguage() needs { name, compile() }.');
      ctx.registry.addQueryLanguage(record, language);
    },
    registerToolBundle(bundle: ToolBundle) {
      need(!!bundle && typeof bundle.name === 'string' && Array.isArray(bundle.tools), 'registerToolBundle() needs { name, tools: [] }.');
      const names = new Set<string>();
      for (const t of bundle.tools) {
        need(!names.has(t.name), `tool bundle ${bundle.name} has two tools named ${JSON.stringify(t.name)}.`);
        names.add(t.name);
        need(typeof t.name === 'string' && /^[a-zA-Z0-9_.-]{1,64}$/.test(t.name), `tool name ${JSON.stringify(t.name)} is not a valid MCP tool name.`);
        need(typeof t.handler === 'function' && !!t.inputSchema && !!t.outputSchema, `tool ${t.name} needs inputSchema, outputSchema and handler.`);
        need(typeof t.description === 'string' && t.description.length < 2000, `tool ${t.name}'s description must be under 2,000 characters.`);
      }
      ctx.registry.addBundle(record, bundle);
    },
    defineExtensionPoint(point: ExtensionPoint<{ readonly name: string }>) {
      need(!!point && typeof point.name === 'string' && /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(point.name) && typeof point.noun === 'string' && point.noun.length > 0,
        'defineExtensionPoint() needs { name: "lower-case-words", noun, check?(), complete?() }.');
      ctx.registry.addExtensionPoint(record, point);
    },
    provide(point: string, item: { readonly name: string }) {
      need(typeof point === 'string' && point.length > 0 && !!item && typeof item.name === 'string' && item.name.length > 0,
        'provide() needs the name of an extension point and an item with a name.');
      ctx.registry.addExtension(record, point, item);
    },
    registerService<T>(token: Token<T>, service: T) {
      need(REPLACEABLE.includes(token as string), `registerService() replaces only an engine service: ${REPLACEABLE.join(', ')}; not ${JSON.stringify(token)}.`);
      need(service !== null && typeof service === 'object', `registerService(${token}) needs a service object.`);
      ctx.registry.addService(record, token, service);
      ctx.container.register(token, { useValue: service });
    },
    registerCommand(command: CommandDefinition) {
      need(!!command && typeof command.name === 'string' && /^[a-z][a-z0-9-]*( [a-z][a-z0-9-]*)*$/.test(command.name) && typeof command.run === 'function',
        'registerCommand() needs { name: "word [word…]" (lower case), description, run() }.');
      need(!BUILTIN_COMMANDS.includes(command.name.split(' ')[0]!), `command ${JSON.stringify(command.name)} would shadow the built-in command ${command.name.split(' ')[0]}.`);
      ctx.registry.addCommand(record, command);
    },
    get records() {
      // The engine's toolkit (Tokens.Records), registered by the composition root.
      if (!container.isRegistered(Tokens.Records, true)) throw new McpgwError('INTERNAL_ERROR', 'No records toolkit is registered (Tokens.Records): the kernel was built without an engine (src/compose wires one).');
      return container.resolve<RecordsToolkit>(Tokens.Records);
    },
    get toolkit() {
      // The engine's stateless helpers (Tokens.Toolkit), registered by the composition root.
      if (!container.isRegistered(Tokens.Toolkit, true)) throw new McpgwError('INTERNAL_ERROR', 'No engine toolkit is registered (Tokens.Toolkit): the kernel was built without an engine (src/compose wires one).');
      return container.resolve<EngineToolkit>(Tokens.Toolkit);
    },
    error: errorFactory(record.name),
    container: containerOf(container),
    log,
    clock: ctx.clock,
    configDir: ctx.config?.dir ?? process.cwd(),
  };
}
