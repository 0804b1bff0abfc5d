import type { Format, FormatProbe } from '../contracts/format';
import type { DependencyContainer } from 'tsyringe';
import type { CompiledQuery, QueryLanguage } from '../contracts/query';
import type { ExtensionPoint, Requirement } from '../contracts/plugin';
import type { CommandDefinition } from '../contracts/command';
import type { Detection, RegistryView, ToolBundle } from '../contracts/tool';
import { McpgwError } from '../errors';
import { Blame } from './blame';

/** A name registered twice; start-up refuses it naming both plugins. */
export class RegistrationConflict extends Error {
  constructor(readonly kind: string, readonly itemName: string, readonly first: string, readonly second: string) {
    super(`Plugin ${second} registers ${kind} "${itemName}", which plugin ${first} already registered.`);
    this.name = 'RegistrationConflict';
  }
}

interface Owned<T> { item: T; plugin: string }

/** What each plugin contributed, for `mcpgw plugins`. */
export interface PluginRecord {
  name: string;
  version: string;
  apiVersion: string;
  /** Where it was loaded from: `builtin`, a package name or a path. */
  source: string;
  formats: string[];
  queryLanguages: string[];
  bundles: string[];
  tools: string[];
  /** Engine services it replaced, by token (absent when none). */
  services?: string[];
  /** Extension points it defines (absent when none). */
  extensionPoints?: string[];
  /** What it provides to extension points, by point (absent when nothing). */
  provides?: Record<string, string[]>;
  /** CLI commands it registered (absent when none). */
  commands?: string[];
  /** What it requires of other plugins (absent when nothing). */
  requires?: Requirement[];
}

/** A loaded plugin as the kernel keeps it. */
export interface LoadedPlugin {
  /** The module file that was imported. */
  entry: string;
  /** Its options as configured (plain JSON, before validation): worker threads load the plugin again with them. */
  configured: Record<string, unknown>;
  /** Its child container (Plugin, PluginOptions, tagged Logger). */
  container: DependencyContainer;
}

import type { WorkerPlugin } from '../contracts/engine';

export type { WorkerPlugin };

/** Every registered format, query language and tool bundle, with the plugin that owns each. */
export class Registry {
  readonly formats = new Map<string, Owned<Format>>();
  readonly queryLanguages = new Map<string, Owned<QueryLanguage>>();
  readonly bundles = new Map<string, Owned<ToolBundle>>();
  readonly tools = new Map<string, Owned<string>>();
  /** Engine services plugins replaced, by token (`PluginContext.registerService`). */
  readonly services = new Map<string, Owned<unknown>>();
  /** Extension points by name (`PluginContext.defineExtensionPoint`). */
  readonly extensionPoints = new Map<string, Owned<ExtensionPoint<{ readonly name: string }>>>();
  /** Items provided to each point, by point and item name, in the order provided (checked by `checkExtensions`). */
  readonly extensions = new Map<string, Map<string, Owned<{ readonly name: string }>>>();
  readonly commands = new Map<string, Owned<CommandDefinition>>();
  readonly plugins: PluginRecord[] = [];
  /** Plugin name → how it was loaded. */
  readonly loaded = new Map<string, LoadedPlugin>();
  /** Which plugin's code raised a fault, by its stack (blame.ts). */
  readonly blame = new Blame();

  /** The plugin that registered query language `name`, as a worker thread loads it; undefined when none. */
  queryLanguagePlugin(name: string): WorkerPlugin | undefined {
    const owner = this.queryLanguages.get(name)?.plugin;
    const loaded = owner === undefined ? undefined : this.loaded.get(owner);
    return loaded ? { entry: loaded.entry, options: loaded.configured } : undefined;
  }

  addFormat(plugin: PluginRecord, format: Format): void {
    this.claim(this.formats, 'format', format.name, plugin.name, format);
    plugin.formats.push(format.name);
  }

  /** Every query the language compiles carries `language` (its registered name), so a worker thread can recompile it. */
  addQueryLanguage(plugin: PluginRecord, language: QueryLanguage): void {
    const name = language.name;
    const stamped: QueryLanguage = Object.assign(Object.create(language) as QueryLanguage, {
      compile: (text: string, options?: Parameters<QueryLanguage['compile']>[1]) => withLanguage(language.compile(text, options), name),
    });
    this.claim(this.queryLanguages, 'query language', language.name, plugin.name, stamped);
    plugin.queryLanguages.push(language.name);
  }

  addService(plugin: PluginRecord, token: string, service: unknown): void {
    this.claim(this.services, 'service', token, plugin.name, service);
    (plugin.services ??= []).push(token);
  }

  addExtensionPoint(plugin: PluginRecord, point: ExtensionPoint<{ readonly name: string }>): void {
    this.claim(this.extensionPoints, 'extension point', point.name, plugin.name, point);
    (plugin.extensionPoints ??= []).push(point.name);
  }

  /** An item for extension point `point`, which may be defined by a plugin loaded later (checked by `checkExtensions`). */
  addExtension(plugin: PluginRecord, point: string, item: { readonly name: string }): void {
    let items = this.extensions.get(point);
    if (!items) this.extensions.set(point, (items = new Map()));
    this.claim(items, `${this.extensionPoints.get(point)?.item.noun ?? `item of extension point ${point}`}`, item.name, plugin.name, item);
    ((plugin.provides ??= {})[point] ??= []).push(item.name);
  }

  addCommand(plugin: PluginRecord, command: CommandDefinition): void {
    this.claim(this.commands, 'command', command.name, plugin.name, command);
    (plugin.commands ??= []).push(command.name);
  }

  addBundle(plugin: PluginRecord, bundle: ToolBundle): void {
    for (const tool of bundle.tools) {
      const prior = this.tools.get(tool.name);
      if (prior) throw new RegistrationConflict('tool', tool.name, prior.plugin, plugin.name);
    }
    this.claim(this.bundles, 'tool bundle', bundle.name, plugin.name, bundle);
    for (const tool of bundle.tools) {
      this.tools.set(tool.name, { item: bundle.name, plugin: plugin.name });
      plugin.tools.push(tool.name);
    }
    plugin.bundles.push(bundle.name);
  }

  private claim<T>(map: Map<string, Owned<T>>, kind: string, name: string, plugin: string, item: T): void {
    if (typeof name !== 'string' || name.length === 0) throw new Error(`Plugin ${plugin} registers a ${kind} without a name.`);
    const prior = map.get(name);
    if (prior) throw new RegistrationConflict(kind, name, prior.plugin, plugin);
    map.set(name, { item, plugin });
  }

  /** The read-only view tools get. */
  view(): RegistryView {
    return {
      formats: {
        list: () => [...this.formats.values()].map(({ item }) => ({ name: item.name, extensions: item.extensions })),
        has: (name) => this.formats.has(name),
      },
      queryLanguages: {
        get: (name) => this.queryLanguages.get(name)?.item,
        list: () => [...this.queryLanguages.values()].map((o) => o.item),
      },
      extensions: <T extends { readonly name: string }>(point: string) => ({
        list: () => [...(this.extensions.get(point)?.values() ?? [])].map((o) => o.item as T),
        get: (name: string) => this.extensions.get(point)?.get(name)?.item as T | undefined,
      }),
      detect: (probe) => {
        try {
          const chosen = selectFormat([...this.formats.values()].map((o) => o.item), probe);
          return { name: chosen.format.name, detection: chosen.detection };
        } catch {
          return null;
        }
      },
    };
  }
}

/** `query` with `language` set to `name` when it lacks one (and so the queries of its `rest`). */
function withLanguage(query: CompiledQuery, name: string): CompiledQuery {
  if (query.language !== undefined) return query;
  const extra: PropertyDescriptorMap = { language: { value: name, enumerable: true } };
  if (typeof query.rest === 'function') {
    const rest = query.rest;
    extra.rest = { value: (k: number) => withLanguage(rest.call(query, k), name), enumerable: true };
  }
  if (Object.isExtensible(query) && !Object.prototype.hasOwnProperty.call(query, 'language')) {
    Object.defineProperties(query, extra);
    return query;
  }
  return Object.create(query, extra) as CompiledQuery;
}

/** Confidences closer than this are a tie, broken by the extension. */
const TIE = 0.1;

/**
 * Chooses the format of a file (docs/architecture.md "Records and formats"): an explicit name always wins; otherwise the
 * content decides (highest `detect` confidence), the extension breaks ties and decides alone
 * when no content matches (an empty `.jsonl` file is JSON Lines).
 * @throws McpgwError INVALID_ARGUMENT for an unknown explicit name; UNSUPPORTED_FORMAT when nothing matches.
 */
export function selectFormat(formats: readonly Format[], probe: FormatProbe, explicit?: string): { format: Format; detection: Detection } {
  if (explicit !== undefined && explicit !== 'auto') {
    const format = formats.find((f) => f.name === explicit);
    if (!format) {
      throw new McpgwError('INVALID_ARGUMENT', `Unknown format "${explicit}". Registered formats: ${formats.map((f) => f.name).join(', ')}.`);
    }
    return { format, detection: { basis: 'explicit', confidence: 1 } };
  }
  const scored = formats
    .map((format) => {
      let confidence: number | null = null;
      try { confidence = format.detect(probe); } catch { confidence = null; }
      return { format, confidence: confidence ?? 0, byExtension: format.extensions.includes(probe.extension) };
    })
    .sort((a, b) => b.confidence - a.confidence);
  const best = scored[0];
  if (best && best.confidence > 0) {
    const tied = scored.filter((s) => best.confidence - s.confidence < TIE && s.confidence > 0);
    const byExt = tied.find((s) => s.byExtension);
    if (tied.length > 1 && byExt) return { format: byExt.format, detection: { basis: 'extension', confidence: round(byExt.confidence) } };
    return { format: best.format, detection: { basis: 'content', confidence: round(best.confidence) } };
  }
  const byExt = scored.find((s) => s.byExtension);
  if (byExt) return { format: byExt.format, detection: { basis: 'extension', confidence: 0.5 } };
  const names = formats.map((f) => `${f.name} (${f.extensions.join(', ')})`).join('; ');
  throw new McpgwError('UNSUPPORTED_FORMAT', `${probe.fileName} is in no format this server reads.`, {
    hint: `Registered formats: ${names}. Pass format explicitly if the content is one of them.`,
  });
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
