import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import type { Logger } from './contracts/plugin';
import type { ToolContext, ToolDefinition } from './contracts/tool';
import { Tokens } from './contracts/tokens';
import { ConfigError, NO_ROOT_MESSAGE, type EffectiveConfig } from './config';
import type { CacheConfig } from './config';
import type { Indexer, ScopeSettings } from './contracts/engine';
import type { JsonLayout } from './contracts/records';
import { FileService, RootlessFiles } from './files/file-service';
import { Sandbox } from './files/sandbox';
import { loadPlugins, type PluginSpec } from './plugins/loader';
import { LoadWatchdog } from './plugins/load-watchdog';
import { checkExtensions, checkRequirements } from './plugins/requires';
import { installApiResolution } from './plugins/api-module';
import { systemClock } from './clock';
import { nodeFileSystem, type FileSystem } from './files/file-system';
import type { Clock } from './contracts/clock';
import type { FileAccess } from './contracts/tool';
import { containerOf } from './container';
import type { Container } from './contracts/plugin';
import { tagLogger } from './log';
import { Registry } from './plugins/registry';
import { createServerBuilder, createServerFactory, DEFAULT_ANSWERS, type OfferedTool, type ServerSpec } from './server/build-server';
import type { Limits } from './contracts/limits';
import type { CommandContext } from './contracts/command';
import type { RegexService } from './contracts/regex';
import { clipText, McpgwError, type ErrorPayload } from './errors';
import { toolContext } from './server/tool-context';
import { runTool } from './server/tool-adapter';
import { Session } from './session/session';

/** A command's deadline from its start: none in effect, within every timer's 32-bit range. */
const COMMAND_DEADLINE_MS = 2_000_000_000;

/** What tool selection reads of a config. */
export type ToolSelection = Pick<EffectiveConfig, 'bundles' | 'allow' | 'deny' | 'profile'>;

export interface KernelOptions {
  version: string;
  /** mcpgw's own folder (for resolving built-in and fallback plugin packages). */
  ownDir: string;
  log: Logger;
  /** The clock every deadline, expiry and timeout reads (default the system clock; tests pass a FakeClock). */
  clock?: Clock;
  /** Loads a plugin's resolved entry file (default `import()`); tests load plugin objects in-process with it. */
  importModule?: (entry: string) => Promise<unknown>;
  /** Bound on loading each plugin, ms (plugins/load-watchdog.ts: past it the process exits 2); absent: none. */
  pluginLoadBoundMs?: number;
}

/** What a service scope is made for: a root folder (null: none) and the limits of an effective config. */
export interface ScopeOptions {
  root: string | null;
  limits: Limits;
  /** The persistent index cache's folder and bound; absent or null: none (every open indexes). */
  cache?: CacheConfig | null;
}

/** The wiring: registries filled by plugins, the profile's tool selection, the server factory. */
export class Kernel {
  readonly registry = new Registry();
  readonly container: DependencyContainer;

  constructor(readonly options: KernelOptions) {
    this.container = rootContainer.createChildContainer();
    this.container.register(Tokens.Clock, { useValue: options.clock ?? systemClock });
    this.container.register(Tokens.FileSystem, { useValue: nodeFileSystem });
    this.container.register(Tokens.Logger, { useValue: options.log });
    this.container.register(Tokens.Registry, { useValue: this.registry.view() });
    // The engine's services (Records, Regex, ScanEngine, JsonLayout, Indexer, IndexCache) are registered by the
    // composition root (src/compose), never by the kernel: the kernel hosts, an engine computes.
  }

  /** The kernel's clock (`Tokens.Clock`: a test replaces it by registering another before loading plugins). */
  get clock(): Clock {
    return this.container.resolve<Clock>(Tokens.Clock);
  }

  /** The server-wide regex service (`Tokens.Regex`, `ctx.regex`): stateless. */
  get regex(): RegexService {
    return this.container.resolve<RegexService>(Tokens.Regex);
  }

  /**
   * Loads plugins in order, each into its own child container, then checks what they `require` of each other and what
   * they provided to each other's extension points. `config`: the config's plugin sections (a plugin's `configSection`
   * is its options) and the folder their paths are relative to; a section no loaded plugin claims is refused.
   * @throws PluginLoadError, ConfigError (an unclaimed section)
   */
  async load(specs: readonly PluginSpec[], config?: { sections: Readonly<Record<string, Record<string, unknown>>>; dir: string }): Promise<void> {
    installApiResolution();
    const sections = config ? { ...config, claimed: new Set<string>() } : undefined;
    const watchdog = this.options.pluginLoadBoundMs !== undefined ? new LoadWatchdog(this.options.pluginLoadBoundMs) : undefined;
    try {
      await loadPlugins(specs, { registry: this.registry, kernelVersion: this.options.version, ownDir: this.options.ownDir, container: this.container, log: this.options.log, clock: this.clock, ...(this.options.importModule ? { importModule: this.options.importModule } : {}), ...(sections ? { config: sections } : {}), ...(watchdog ? { watchdog } : {}) });
    } finally {
      watchdog?.close();
    }
    const unclaimed = Object.keys(sections?.sections ?? {}).filter((k) => !sections!.claimed.has(k));
    if (unclaimed.length) {
      const owned = this.registry.plugins.length ? ` Sections of the loaded plugins: ${[...sections!.claimed].join(', ') || 'none'}.` : '';
      throw new ConfigError(`(top level): unknown key "${unclaimed[0]}": neither an mcpgw setting nor the config section of a loaded plugin.${owned}`);
    }
    checkRequirements(this.registry);
    checkExtensions(this.registry);
  }

  /**
   * The tools a profile offers: its bundles (all when it names none), narrowed by `allow`, minus `deny`
   * (deny wins over allow). `mcpgw serve` offers exactly these and `mcpgw list-tools` prints them.
   * @throws ConfigError (exit 2) for a bundle no plugin registered, an `allow` name its bundles do not
   *   have, or a `deny` name no loaded plugin registered (deny lists are joined through `extends`, so a
   *   denied tool may belong to a bundle this profile does not offer; a name nobody registers is a typo).
   */
  selectTools(config: ToolSelection): ToolDefinition[] {
    const names = this.bundleNames(config);
    const where = config.profile ? `Profile "${config.profile}"` : 'The config';
    const tools: ToolDefinition[] = [];
    for (const name of names) {
      const owned = this.registry.bundles.get(name);
      if (!owned) {
        throw new ConfigError(`${where} offers tool bundle "${name}", which no loaded plugin registers. Bundles: ${[...this.registry.bundles.keys()].join(', ') || '(none)'}.`);
      }
      tools.push(...owned.item.tools);
    }
    if (config.allow) {
      for (const t of config.allow) {
        if (!tools.some((tool) => tool.name === t)) throw new ConfigError(`${where} allows tool "${t}", which its bundles do not have.`);
      }
    }
    for (const t of config.deny) {
      if (!this.registry.tools.has(t)) {
        throw new ConfigError(`${where} denies tool "${t}", which no loaded plugin registers. Tools: ${[...this.registry.tools.keys()].join(', ') || '(none)'}.`);
      }
    }
    return tools.filter((t) => (config.allow ? config.allow.includes(t.name) : true) && !config.deny.includes(t.name)).map((t) => this.advertised(t));
  }

  /** Tools as advertised (`ToolDefinition.advertise`: texts from the registry), computed once per tool. */
  private readonly advertisedTools = new WeakMap<ToolDefinition, ToolDefinition>();

  /** `tool` with the description and input schema its `advertise` gives for what the loaded plugins registered. */
  private advertised(tool: ToolDefinition): ToolDefinition {
    if (!tool.advertise) return tool;
    let out = this.advertisedTools.get(tool);
    if (!out) {
      const a = tool.advertise(this.registry.view());
      out = { ...tool, ...(a.description !== undefined ? { description: a.description } : {}), ...(a.inputSchema ? { inputSchema: a.inputSchema } : {}) };
      this.advertisedTools.set(tool, out);
    }
    return out;
  }

  /** The tools a profile offers (as `selectTools`), each with its bundle and the plugin that registered it. */
  offered(config: ToolSelection): OfferedTool[] {
    return this.selectTools(config).map((tool) => {
      const bundle = this.registry.tools.get(tool.name)!;
      const lenient = this.registry.bundles.get(bundle.item)?.item.lenientArguments === true;
      return { tool, bundle: bundle.item, plugin: bundle.plugin, ...(lenient ? { lenient } : {}) };
    });
  }

  /**
   * The bundles a profile offers: the ones it names, or else the default set — every registered bundle but those not
   * offered by default (`ToolBundle.offeredByDefault: false`; a plugin decides it from its options).
   */
  bundleNames(config: Pick<ToolSelection, 'bundles'>): string[] {
    if (config.bundles) return config.bundles;
    return [...this.registry.bundles.values()].filter(({ item }) => item.offeredByDefault !== false).map(({ item }) => item.name);
  }

  /** True when some offered tool's bundle reads files under the root (`ToolBundle.needsRoot`, default true). */
  needsRoot(config: ToolSelection): boolean {
    const tools = this.selectTools(config);
    return tools.some((t) => this.registry.bundles.get(this.registry.tools.get(t.name)?.item ?? '')?.item.needsRoot !== false);
  }

  /** Server instructions: what the server is, plus each offered bundle's own line. Under 2,000 characters. */
  instructions(config: Pick<ToolSelection, 'bundles'>): string {
    const names = this.bundleNames(config);
    const lines = [
      `mcpgw gives read-only, bounded access to data files (formats: ${[...this.registry.formats.keys()].join(', ') || 'none'}) under one root folder. Paths are relative to that root. Results are capped in size and paged with cursors; errors carry a code and a hint.`,
      ...names.map((n) => this.registry.bundles.get(n)?.item.description).filter((d): d is string => !!d),
    ];
    return clipText(lines.join('\n'), 1990);
  }

  /**
   * A service scope: a child of the kernel's container with the services of one root and one set of limits —
   * `Tokens.Scope`, `Tokens.Limits`, `Tokens.Files` (the sandbox over `root`; none: every open is ACCESS_DENIED), its
   * index pass `Tokens.Indexer` (the engine's, for this scope's index cache folder) — and, through the kernel's
   * container, the engine's server-wide `Tokens.ScanEngine` (its semaphore bounds concurrent scans across every
   * connection). Servers, plugin commands and the CLI's `query` and `aggregate` take their services from one; nothing
   * else builds them.
   */
  scope(options: ScopeOptions): Container {
    const scope = this.container.createChildContainer();
    const settings: ScopeSettings = { root: options.root, limits: options.limits, cache: options.cache ?? null };
    scope.register(Tokens.Scope, { useValue: settings });
    scope.register(Tokens.Limits, { useValue: options.limits });
    const formats = () => [...this.registry.formats.values()].map((o) => o.item);
    const fs = this.container.resolve<FileSystem>(Tokens.FileSystem);
    const indexer = scope.isRegistered(Tokens.Indexer, true) ? scope.resolve<Indexer>(Tokens.Indexer) : null;
    const files: FileAccess = options.root === null
      ? new RootlessFiles(formats, options.limits, { fs, clock: this.clock, indexer })
      : new FileService(new Sandbox(options.root, fs), formats, options.limits, this.clock, indexer);
    scope.register(Tokens.Files, { useValue: files });
    return containerOf(scope);
  }

  /** A Session (an MCP session's state) whose handle tables expire on the kernel's clock. */
  newSession(): Session {
    return new Session(this.clock);
  }

  /** The per-connection server factory for an effective config. @throws McpgwError when the root is missing. */
  serverFactory(config: EffectiveConfig) {
    return createServerFactory(this.serverSpec(config));
  }

  /**
   * Builds servers over a caller-owned Session (HTTP: the principal's store). @throws McpgwError when the root is missing.
   */
  serverBuilder(config: EffectiveConfig) {
    return createServerBuilder(this.serverSpec(config));
  }

  /**
   * The context a plugin command runs with (`mcpgw <command>`): what a tool gets (the one factory, toolContext), with no
   * request deadline (2e9 ms on: every timer stays within its 32-bit range), a session of its own, `progress` as given
   * (the CLI draws a bar on a terminal), `print` to stdout, and `runTool` to run the plugin's own tools as a call would.
   * `io.root`: the command's sandbox root instead of the config's (a command that takes a FILE, CommandDefinition.file).
   */
  commandContext(config: EffectiveConfig, io: { signal: AbortSignal; progress: CommandContext['progress']; print(text: string): void; interactive: boolean; root?: string }, owner = 'command'): CommandContext {
    const spec = this.serverSpec(io.root !== undefined ? { ...config, root: io.root } : config, false);
    const plugin = this.registry.commands.get(owner)?.plugin;
    const session = new Session(this.clock).scope(owner);
    const call = (): ToolContext => toolContext(spec, {
      session,
      ...(plugin ? { plugin, log: tagLogger(spec.log, { plugin, command: owner }) } : {}),
      signal: io.signal,
      deadline: spec.clock.now() + COMMAND_DEADLINE_MS,
      progress: io.progress,
    });
    return {
      ...call(),
      print: io.print,
      interactive: io.interactive,
      runTool: async (tool, args) => {
        // a context of its own per call: its JSON layout counts the lone surrogates of this answer only
        const r = await runTool(tool, args, call(), plugin, { blame: (e) => this.registry.blame.of(e) });
        if (r.isError) {
          const e = r.structuredContent.error as ErrorPayload;
          throw new McpgwError(e.code, e.hint ? `${e.message} (${e.hint})` : e.message);
        }
        return r.structuredContent;
      },
    };
  }

  private serverSpec(config: EffectiveConfig, checkRoot = true): ServerSpec {
    if (checkRoot && config.root === null && this.needsRoot(config)) throw new ConfigError(NO_ROOT_MESSAGE);
    const scope = this.scope({ root: config.root, limits: config.limits, cache: config.cache });
    const files = scope.resolve(Tokens.Files);
    return {
      name: 'mcpgw',
      version: this.options.version,
      instructions: this.instructions(config),
      tools: this.offered(config),
      registry: scope.resolve(Tokens.Registry),
      files,
      limits: scope.resolve(Tokens.Limits),
      log: this.options.log,
      clock: scope.resolve(Tokens.Clock),
      root: files instanceof FileService ? files.root : '',
      scan: scope.resolve(Tokens.ScanEngine),
      regex: scope.resolve(Tokens.Regex),
      json: () => scope.resolve<JsonLayout>(Tokens.JsonLayout),
      answers: config.answers ?? DEFAULT_ANSWERS,
      schemaCache: config.cache ? { dir: config.cache.dir, salt: this.schemaSalt() } : null,
      blame: (err) => this.registry.blame.of(err),
    };
  }

  /** What the advertised JSON Schemas are written by, beyond the loaded code: mcpgw's, zod's and each plugin's versions. */
  private schemaSalt(): string {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const zod = (require('zod/package.json') as { version: string }).version;
    // the registered formats and languages too: advertised texts name them (ToolDefinition.advertise)
    return [`mcpgw@${this.options.version}`, `zod@${zod}`, ...this.registry.plugins.map((p) => `${p.name}@${p.version}`), `formats:${[...this.registry.formats.keys()]}`, `languages:${[...this.registry.queryLanguages.keys()]}`].join(';');
  }
}
