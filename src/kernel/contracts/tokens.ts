import type { Clock } from './clock';
import type { FileSystem } from './file-system';
import type { Limits } from './limits';
import type { Logger, PluginInfo } from './plugin';
import type { RecordsToolkit } from './records';
import type { RegexService } from './regex';
import type { ScanEngine } from './scan';
import type { FileAccess, RegistryView } from './tool';

/** An injection token: a string that carries the type of the service registered under it. */
export type Token<T> = string & { readonly __service?: T };

const token = <T>(name: string): Token<T> => name as Token<T>;

/**
 * The injection tokens of the kernel's services (docs/architecture.md "Services and the container"). Strings, so two
 * copies of the plugin API agree on them: `context.container.resolve(Tokens.Clock)`.
 * Kernel-wide: Clock, FileSystem, Logger, Records, Regex, Registry. Per effective config (a service scope): Limits, Files,
 * ScanEngine. Per plugin (its child container): Plugin, PluginOptions, and a Logger tagged with its name.
 */
export const Tokens = {
  Clock: token<Clock>('mcpgw:clock'),
  Logger: token<Logger>('mcpgw:logger'),
  Records: token<RecordsToolkit>('mcpgw:records'),
  Regex: token<RegexService>('mcpgw:regex'),
  /** Read-only view of every registered format, query language, session source and embedder. */
  Registry: token<RegistryView>('mcpgw:registry'),
  /** `Limits` of the active profile. */
  Limits: token<Limits>('mcpgw:limits'),
  /** The system calls the sandbox resolves and opens paths with (node:fs; tests register a scripted one). */
  FileSystem: token<FileSystem>('mcpgw:file-system'),
  /** Sandboxed file access under the root (`ToolContext.files`). */
  Files: token<FileAccess>('mcpgw:files'),
  /** The server-wide query scan engine (`ToolContext.scan`). */
  ScanEngine: token<ScanEngine>('mcpgw:scan-engine'),
  /** The plugin's own name and version. */
  Plugin: token<PluginInfo>('mcpgw:plugin'),
  /** The plugin's options, as its `options` schema validated them. */
  PluginOptions: token<unknown>('mcpgw:plugin-options'),
} as const;
