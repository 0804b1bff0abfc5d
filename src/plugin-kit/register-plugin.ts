import 'reflect-metadata';
import { container as rootContainer } from 'tsyringe';
import type { CommandDefinition } from '../kernel/contracts/command';
import type { Format } from '../kernel/contracts/format';
import type { ExtensionPoint, Logger, Plugin, PluginContext } from '../kernel/contracts/plugin';
import type { QueryLanguage } from '../kernel/contracts/query';
import { Tokens } from '../kernel/contracts/tokens';
import type { ToolBundle } from '../kernel/contracts/tool';
import { errorFactory } from '../kernel/errors';
import { recordsToolkit } from '../engine/records';
import { engineToolkit } from '../engine/toolkit';
import { PLUGIN_API_VERSION } from '../kernel/version';
import { containerOf } from '../kernel/container';
import { FakeClock } from '../kernel/fake-clock';

/** What a plugin's `register` contributed, as `registerPlugin` captured it (in registration order). */
export interface Contributions {
  formats: Format[];
  queryLanguages: QueryLanguage[];
  bundles: ToolBundle[];
  /** The extension points it defined. */
  extensionPoints: ExtensionPoint[];
  /** What it provided, by extension point (in the order provided). */
  provided: Record<string, { readonly name: string }[]>;
  commands: CommandDefinition[];
  /** The engine services it replaced, by token. */
  services: Record<string, unknown>;
  /** The options `register` received (validated by the plugin's `options` schema when it has one). */
  options: unknown;
  /** The lines the plugin logged: `[level, message, fields]`. */
  logged: [keyof Logger, string, Record<string, unknown> | undefined][];
}

/**
 * Runs `plugin.register` against a context that records what it registers instead of registering it — for a
 * plugin's own unit tests. The options are validated by the plugin's schema as the kernel does (a failure throws);
 * `records`, `toolkit`, `error` and the tokens are the engine's and kernel's own; `clock` defaults to a new FakeClock.
 * @throws Error when the options are invalid or `register` throws.
 */
export async function registerPlugin<Options>(plugin: Plugin<Options>, options: unknown = {}, clock = new FakeClock()): Promise<Contributions> {
  let validated: unknown = options;
  if (plugin.options) {
    const parsed = plugin.options.safeParse(options);
    if (!parsed.success) throw new Error(`invalid options: ${parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(options)'}: ${i.message}`).join('; ')}`);
    validated = parsed.data;
  }
  const out: Contributions = { formats: [], queryLanguages: [], bundles: [], extensionPoints: [], provided: {}, commands: [], services: {}, options: validated, logged: [] };
  const log = (level: keyof Logger) => (message: string, fields?: Record<string, unknown>) => void out.logged.push([level, message, fields]);
  const logger: Logger = { error: log('error'), warn: log('warn'), info: log('info'), debug: log('debug') };
  const container = rootContainer.createChildContainer();
  container.register(Tokens.Clock, { useValue: clock });
  container.register(Tokens.Records, { useValue: recordsToolkit });
  container.register(Tokens.Toolkit, { useValue: engineToolkit });
  container.register(Tokens.Logger, { useValue: logger });
  container.register(Tokens.Plugin, { useValue: { name: plugin.name, version: plugin.version } });
  container.register(Tokens.PluginOptions, { useValue: validated });
  const context: PluginContext = {
    apiVersion: PLUGIN_API_VERSION,
    kernelVersion: 'test',
    plugin: { name: plugin.name, version: plugin.version },
    registerFormat: (f) => void out.formats.push(f),
    registerQueryLanguage: (l) => void out.queryLanguages.push(l),
    registerToolBundle: (b) => void out.bundles.push(b),
    defineExtensionPoint: (p) => void out.extensionPoints.push(p as ExtensionPoint),
    provide: (point, item) => void (out.provided[point] ??= []).push(item),
    registerCommand: (c) => void out.commands.push(c),
    registerService: (token, service) => void (out.services[token] = service),
    records: recordsToolkit,
    toolkit: engineToolkit,
    error: errorFactory(plugin.name),
    container: containerOf(container),
    log: logger,
    clock,
    configDir: process.cwd(),
  };
  await plugin.register(context, validated as Options);
  return out;
}
