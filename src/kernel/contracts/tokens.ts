import type { Clock } from './clock';
import type { Indexer, IndexStore, ScopeSettings } from './engine';
import type { FileSystem } from './file-system';
import type { Limits } from './limits';
import type { Logger, PluginInfo } from './plugin';
import type { JsonLayout, RecordsToolkit } from './records';
import type { RegexService } from './regex';
import type { ScanEngine } from './scan';
import type { FileAccess, RegistryView } from './tool';
import type { EngineToolkit } from './toolkit';

/** An injection token: a string that carries the type of the service registered under it. */
export type Token<T> = string & { readonly __service?: T };

const token = <T>(name: string): Token<T> => name as Token<T>;

/**
 * The injection tokens of the kernel's services (docs/architecture.md "Services and the container"). Strings, so two
 * copies of the plugin API agree on them: `context.container.resolve(Tokens.Clock)`.
 * Kernel-wide: Clock, FileSystem, Logger, Records, Regex, Toolkit, Registry, ScanEngine, JsonLayout. Per effective config (a service
 * scope): Scope, Limits, Files, Indexer, IndexCache. Per plugin (its child container): Plugin, PluginOptions, and a Logger
 * tagged with its name. The engine's services (Records, Regex, Toolkit, ScanEngine, JsonLayout, Indexer, IndexCache) are
 * registered by a composition root (src/compose), not by the kernel; a test or a plugin may register another.
 */
export const Tokens = {
  Clock: token<Clock>('mcpgw:clock'),
  Logger: token<Logger>('mcpgw:logger'),
  Records: token<RecordsToolkit>('mcpgw:records'),
  Regex: token<RegexService>('mcpgw:regex'),
  /** The engine's stateless helpers (`PluginContext.toolkit`): JSON walker, byte search, path tokens, marked text, WebAssembly encoding. */
  Toolkit: token<EngineToolkit>('mcpgw:toolkit'),
  /** Read-only view of every registered format, query language and extension point's items. */
  Registry: token<RegistryView>('mcpgw:registry'),
  /** `Limits` of the active profile. */
  Limits: token<Limits>('mcpgw:limits'),
  /** The system calls the sandbox resolves and opens paths with (node:fs; tests register a scripted one). */
  FileSystem: token<FileSystem>('mcpgw:file-system'),
  /** Sandboxed file access under the root (`ToolContext.files`). */
  Files: token<FileAccess>('mcpgw:files'),
  /** The server-wide query scan engine (`ToolContext.scan`): queries and aggregates. */
  ScanEngine: token<ScanEngine>('mcpgw:scan-engine'),
  /** What a service scope is made for: root, limits, index cache folder. */
  Scope: token<ScopeSettings>('mcpgw:scope'),
  /** The engine's index pass behind `FileAccess.open` and `read` (per scope). */
  Indexer: token<Indexer>('mcpgw:indexer'),
  /** The persistent index cache of the scope's folder; null: none. */
  IndexCache: token<IndexStore | null>('mcpgw:index-cache'),
  /** A JSON layout for one tool call or command (`ToolContext.json`): a new one at each resolve, counting what it replaced. */
  JsonLayout: token<JsonLayout>('mcpgw:json-layout'),
  /** The plugin's own name and version. */
  Plugin: token<PluginInfo>('mcpgw:plugin'),
  /** The plugin's options, as its `options` schema validated them. */
  PluginOptions: token<unknown>('mcpgw:plugin-options'),
} as const;
