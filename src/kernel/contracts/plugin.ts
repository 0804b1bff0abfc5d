import type { ErrorCode, ErrorDetails, McpgwError } from '../errors';
import type { Clock } from './clock';
import type { Format } from './format';
import type { QueryLanguage } from './query';
import type { RecordsToolkit } from './records';
import type { EngineToolkit } from './toolkit';
import type { CommandDefinition } from './command';
import type { Token } from './tokens';
import type { ToolBundle } from './tool';

/** Logs go to stderr (never stdout, which is the protocol). */
export interface Logger {
  error(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
}

/** A plugin's name and version, as its manifest gives them. */
export interface PluginInfo {
  readonly name: string;
  readonly version: string;
}

/**
 * The kernel's services, by injection token (`Tokens`). Each plugin sees its own child container: the kernel's
 * services plus its own `Tokens.Plugin`, `Tokens.PluginOptions` and a `Tokens.Logger` tagged with its name
 * (docs/architecture.md "Services and the container").
 */
export interface Container {
  /** The service registered under `token`. @throws Error when nothing is (see `isRegistered`). */
  resolve<T>(token: Token<T>): T;
  /** Whether `token` has a service here or in the kernel's container. */
  isRegistered(token: Token<unknown>): boolean;
}

/**
 * What a plugin's `register` receives: its own context (like a Rollup plugin's), tagged with its name. Every
 * contribution goes through it; a name registered twice (format, query language, tool bundle, tool, extension point,
 * an extension point's item, command) refuses start-up naming both plugins.
 */
export interface PluginContext {
  /** The kernel's plugin-API version (semver), checked against `Plugin.apiVersion`. */
  readonly apiVersion: string;
  /** mcpgw's own version. */
  readonly kernelVersion: string;
  /** This plugin's name and version. */
  readonly plugin: PluginInfo;
  registerFormat(format: Format): void;
  registerQueryLanguage(language: QueryLanguage): void;
  registerToolBundle(bundle: ToolBundle): void;
  /**
   * Declares an extension point other plugins provide items to (`provide`), as a Rollup plugin's `api` or a Fastify
   * decorator: a history plugin may define `history-source` for others to add sources to. Its name must be unique.
   */
  defineExtensionPoint<T extends { readonly name: string }>(point: ExtensionPoint<T>): void;
  /**
   * Provides `item` to extension point `point` — this plugin's or another's, loaded before or after it: items are
   * checked (`ExtensionPoint.check`) once every plugin has loaded, and an item for a point no loaded plugin defines
   * stops start-up naming the point. Its name must be unique within the point.
   */
  provide<T extends { readonly name: string }>(point: string, item: T): void;
  /** A CLI command (`mcpgw <name> …`, contracts/command.ts). */
  registerCommand(command: CommandDefinition): void;
  /**
   * Replaces an engine service for the whole server (how a SQL or remote engine plugs in): one of `Tokens.ScanEngine`,
   * `Tokens.Regex`, `Tokens.Records`, `Tokens.Indexer`. Tools get it through their context from then on; two plugins
   * replacing one service refuse start-up naming both.
   */
  registerService<T>(token: Token<T>, service: T): void;
  /** Byte-level record machinery for format plugins. */
  readonly records: RecordsToolkit;
  /** The engine's stateless helpers (contracts/toolkit.ts): JSON walker, byte search, path tokens, marked text, WebAssembly encoding, empty-answer hints. */
  readonly toolkit: EngineToolkit;
  /** A catalogue error (docs/architecture.md "Error results"), marked as coming from this plugin in the log. */
  error(code: ErrorCode, message: string, details?: ErrorDetails): McpgwError;
  /** This plugin's container: the kernel's services by token (see `Tokens`). */
  readonly container: Container;
  /** The kernel's log, every line tagged with this plugin's name. */
  readonly log: Logger;
  /** The kernel's clock (contracts/clock.ts): read deadlines against it, not against `Date.now()`. */
  readonly clock: Clock;
  /**
   * The folder relative paths in this plugin's options are relative to: the config file's (the current folder when
   * there is none).
   */
  readonly configDir: string;
}

/**
 * An extension point a plugin defines (`PluginContext.defineExtensionPoint`) and other plugins provide items to; the
 * items are read through `RegistryView.extensions(name)`, in the order provided.
 */
export interface ExtensionPoint<T extends { readonly name: string } = { readonly name: string }> {
  /** Lower-case words joined by `-` (`history-source`); unique among loaded plugins' points. */
  readonly name: string;
  /** What one item is called in messages (`history source`). */
  readonly noun: string;
  /** What is wrong with `item` (start-up then stops naming the plugin that provided it), or undefined. */
  check?(item: T): string | undefined;
  /**
   * Called once every plugin has loaded, with the items provided: what is wrong (start-up then stops naming the plugin
   * that defined the point; e.g. a config naming an item nobody provides), or undefined.
   */
  complete?(items: readonly T[]): string | undefined;
}

/**
 * Something a plugin needs another plugin to register, checked once every plugin has loaded: a missing one stops
 * start-up (exit 2) naming this plugin, what it needs and `providedBy`.
 */
export interface Requirement {
  /** `extensionPoint`: a point some plugin defines; `extension`: an item `point:name` some plugin provides. */
  readonly kind: 'format' | 'queryLanguage' | 'bundle' | 'extensionPoint' | 'extension';
  /** The registered name (`jsonpath`; a point `history-source`; an item `history-source:claude`). */
  readonly name: string;
  /** The package that registers it (`@mcpgw/query-jsonpath`), named in the start-up error. */
  readonly providedBy?: string;
}

/**
 * A plugin module's default export, its manifest (docs/architecture.md "Plugin API"): plain data plus one hook, like
 * a Rollup plugin. `apiVersion` is a semver range of the plugin API it was built for; the loader refuses a mismatch
 * with a message naming both versions (the fastify-plugin pattern).
 */
export interface Plugin<Options = unknown> {
  readonly name: string;
  readonly version: string;
  readonly apiVersion: string;
  /** What this plugin needs other plugins to register (the explorer needs the query language `jsonpath`). */
  readonly requires?: readonly Requirement[];
  /**
   * The top-level key of the config file whose object is this plugin's options when the config gives it none in
   * `plugins` (`history: {…}` for a plugin whose section is `history`). A top-level object no plugin claims is refused.
   */
  readonly configSection?: string;
  /**
   * Validates the options given in the config (`["name", {options}]`); a zod schema fits. Runs again, on the same
   * options as configured, on every worker thread that loads the plugin (for its query language).
   */
  readonly options?: { safeParse(input: unknown): { success: true; data: Options } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } } };
  register(context: PluginContext, options: Options): void | Promise<void>;
}
