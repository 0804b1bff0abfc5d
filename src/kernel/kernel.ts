import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { clipText } from './unicode';
import type { Logger } from './contracts/plugin';
import type { ToolDefinition } from './contracts/tool';
import { Tokens } from './contracts/tokens';
import { ConfigError, NO_ROOT_MESSAGE, type EffectiveConfig } from './config';
import { FileService, RootlessFiles } from './files/file-service';
import { Sandbox } from './files/sandbox';
import { loadPlugins, type PluginSpec } from './plugins/loader';
import { Registry } from './plugins/registries';
import { createServerBuilder, createServerFactory, type ServerSpec } from './server/build-server';
import { AggregateThreads, QueryScanEngine, ThreadPool } from './scan';
import { Re2RegexService } from './regex';
import type { Limits } from './contracts/limits';
import type { CommandContext } from './contracts/command';
import { McpgwError } from './errors';
import { Session } from './session/session';

/** What tool selection reads of a config. */
export type ToolSelection = Pick<EffectiveConfig, 'bundles' | 'allow' | 'deny' | 'profile'> & { sessions?: { enabled: boolean } };

export interface KernelOptions {
  version: string;
  /** mcpgw's own folder (for resolving built-in and fallback plugin packages). */
  ownDir: string;
  log: Logger;
}

/** The wiring: registries filled by plugins, the profile's tool selection, the server factory. */
export class Kernel {
  readonly registry = new Registry();
  readonly container: DependencyContainer;

  constructor(readonly options: KernelOptions) {
    this.container = rootContainer.createChildContainer();
    const view = this.registry.view();
    this.container.register(Tokens.Formats, { useValue: view.formats });
    this.container.register(Tokens.QueryLanguages, { useValue: view.queryLanguages });
    this.container.register(Tokens.Logger, { useValue: options.log });
  }

  /** Loads plugins in order. @throws PluginLoadError */
  async load(specs: readonly PluginSpec[]): Promise<void> {
    await loadPlugins(specs, { registry: this.registry, kernelVersion: this.options.version, ownDir: this.options.ownDir, container: this.container, log: this.options.log });
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
    return tools.filter((t) => (config.allow ? config.allow.includes(t.name) : true) && !config.deny.includes(t.name));
  }

  /**
   * The bundles a profile offers: the ones it names, or else the default set — every registered bundle except those
   * that are not offered by default (`ToolBundle.offeredByDefault: false`) unless the config enables them
   * (`sessions.enabled` for the `sessions` bundle).
   */
  bundleNames(config: Pick<ToolSelection, 'bundles' | 'sessions'>): string[] {
    if (config.bundles) return config.bundles;
    const enabled = new Set(config.sessions?.enabled ? ['sessions'] : []);
    return [...this.registry.bundles.values()].filter(({ item }) => item.offeredByDefault !== false || enabled.has(item.name)).map(({ item }) => item.name);
  }

  /** True when some offered tool's bundle reads files under the root (`ToolBundle.needsRoot`, default true). */
  needsRoot(config: ToolSelection): boolean {
    const tools = this.selectTools(config);
    return tools.some((t) => this.registry.bundles.get(this.registry.tools.get(t.name)?.item ?? '')?.item.needsRoot !== false);
  }

  /** Server instructions: what the server is, plus each offered bundle's own line. Under 2,000 characters. */
  instructions(config: Pick<ToolSelection, 'bundles' | 'sessions'>): string {
    const names = this.bundleNames(config);
    const lines = [
      'mcpgw gives read-only, bounded access to JSON, JSON Lines and JSON text sequence files under one root folder. Paths are relative to that root. Results are capped in size and paged with cursors; errors carry a code and a hint.',
      ...names.map((n) => this.registry.bundles.get(n)?.item.description).filter((d): d is string => !!d),
    ];
    return clipText(lines.join('\n'), 1990);
  }

  /**
   * The server-wide scan engine for these limits (one per kernel: its semaphore bounds concurrent scans across
   * every connection). Worker threads load query languages from the plugins' recorded entry paths.
   */
  scanEngine(limits: Limits): QueryScanEngine {
    this.engine ??= new QueryScanEngine({
      limits: () => limits,
      log: this.options.log,
      workers: new ThreadPool({ entryOf: (name) => this.registry.queryLanguageEntry(name) }),
      aggregates: new AggregateThreads({ entryOf: (name) => this.registry.queryLanguageEntry(name) }),
    });
    return this.engine;
  }

  private engine: QueryScanEngine | undefined;

  /** The server-wide regex service (`ctx.regex`): stateless, one per kernel. */
  readonly regex = new Re2RegexService();

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
   * The context a plugin command runs with (`mcpgw <command>`): what a tool gets, with no deadline, a session of its
   * own, `progress` as given (the CLI draws a bar on a terminal) and `print` to stdout.
   */
  commandContext(config: EffectiveConfig, io: { signal: AbortSignal; progress: CommandContext['progress']; print(text: string): void; interactive: boolean }): CommandContext {
    const spec = this.serverSpec(config, false);
    return {
      registries: spec.registries,
      files: spec.files,
      session: new Session(),
      limits: spec.limits,
      signal: io.signal,
      deadline: Number.POSITIVE_INFINITY,
      progress: io.progress,
      log: spec.log,
      error: (code, message, details) => new McpgwError(code, message, details),
      root: spec.root,
      scan: spec.scan,
      regex: spec.regex,
      print: io.print,
      interactive: io.interactive,
    };
  }

  private serverSpec(config: EffectiveConfig, checkRoot = true): ServerSpec {
    const formats = () => [...this.registry.formats.values()].map((o) => o.item);
    if (checkRoot && config.root === null && this.needsRoot(config)) throw new ConfigError(NO_ROOT_MESSAGE);
    const sandbox = config.root === null ? null : new Sandbox(config.root);
    const files = sandbox ? new FileService(sandbox, formats, config.limits) : new RootlessFiles(formats, config.limits);
    this.container.register(Tokens.Limits, { useValue: config.limits });
    return {
      name: 'mcpgw',
      version: this.options.version,
      instructions: this.instructions(config),
      tools: this.selectTools(config),
      registries: this.registry.view(),
      files,
      limits: config.limits,
      log: this.options.log,
      root: sandbox?.root ?? '',
      scan: this.scanEngine(config.limits),
      regex: this.regex,
    };
  }
}
