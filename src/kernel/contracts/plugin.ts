import type { DependencyContainer } from 'tsyringe';
import type { ErrorCode, ErrorDetails, McpgwError } from '../errors';
import type { Format } from './format';
import type { QueryLanguage } from './query';
import type { RecordsToolkit } from './records';
import type { Embedder, SessionSource } from './sessions';
import type { CommandDefinition } from './command';
import type { ToolBundle } from './tool';

/** Logs go to stderr (never stdout, which is the protocol). */
export interface Logger {
  error(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
}

/**
 * What a plugin's `register` receives. Every contribution goes through it; a name registered twice
 * (format, query language, tool bundle, tool) refuses start-up naming both plugins.
 */
export interface PluginRegistry {
  /** The kernel's plugin-API version (semver), checked against `Plugin.apiVersion`. */
  readonly apiVersion: string;
  /** mcpgw's own version. */
  readonly kernelVersion: string;
  registerFormat(format: Format): void;
  registerQueryLanguage(language: QueryLanguage): void;
  registerToolBundle(bundle: ToolBundle): void;
  /**
   * A session source for the session-history bundle (contracts/sessions.ts); its name must be unique.
   * Optional: kernels before 1.1 lack it.
   */
  registerSessionSource?(source: SessionSource): void;
  /** An embedder for semantic_search (contracts/sessions.ts); its name must be unique. Optional: kernels before 1.1 lack it. */
  registerEmbedder?(embedder: Embedder): void;
  /** A CLI command (`mcpgw <name> …`, contracts/command.ts). Optional: kernels before 1.1 lack it. */
  registerCommand?(command: CommandDefinition): void;
  /** Byte-level record machinery for format plugins. */
  readonly records: RecordsToolkit;
  /** A catalogue error (see docs/architecture.md "Error results"). */
  error(code: ErrorCode, message: string, details?: ErrorDetails): McpgwError;
  /** The kernel's DI container (tsyringe), for plugins that prefer injection; see `Tokens`. */
  readonly container: DependencyContainer;
  readonly log: Logger;
}

/**
 * A plugin module's default export (docs/architecture.md "Plugin API"): plain data plus one hook, like a
 * Rollup plugin. `apiVersion` is a semver range of the plugin API it was built for; the loader
 * refuses a mismatch with a message naming both versions (the fastify-plugin pattern).
 */
export interface Plugin<Options = unknown> {
  readonly name: string;
  readonly version: string;
  readonly apiVersion: string;
  /** Validates the options given in the config (`["name", {options}]`); a zod schema fits. */
  readonly options?: { safeParse(input: unknown): { success: true; data: Options } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } } };
  register(registry: PluginRegistry, options: Options): void | Promise<void>;
}
