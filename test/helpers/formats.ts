import 'reflect-metadata';
import type { Format, Plugin, PluginRegistry, QueryLanguage, ToolBundle } from '../../src/kernel/contracts';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import type { Limits } from '../../src/kernel/contracts/limits';
import { McpgwError } from '../../src/kernel/errors';
import { FileService } from '../../src/kernel/files/file-service';
import { Sandbox } from '../../src/kernel/files/sandbox';
import { recordsToolkit } from '../../src/kernel/records';
import { createLogger } from '../../src/kernel/log';
import { container } from 'tsyringe';

/** What a plugin's register() contributed, captured by a registry that records instead of registering. */
export interface Contributions {
  formats: Format[];
  queryLanguages: QueryLanguage[];
  bundles: ToolBundle[];
}

/** Runs a plugin's register() against a capturing registry (the kernel's real records toolkit and errors). */
export async function contributionsOf(plugin: Plugin, options: unknown = {}): Promise<Contributions> {
  const out: Contributions = { formats: [], queryLanguages: [], bundles: [] };
  const registry: PluginRegistry = {
    apiVersion: '1.0.0',
    kernelVersion: 'test',
    registerFormat: (f) => void out.formats.push(f),
    registerQueryLanguage: (l) => void out.queryLanguages.push(l),
    registerToolBundle: (b) => void out.bundles.push(b),
    records: recordsToolkit,
    error: (code, message, details) => new McpgwError(code, message, details),
    container,
    log: createLogger('error'),
  };
  await plugin.register(registry, options);
  return out;
}

/** The formats a plugin registers. */
export async function formatsOf(plugin: Plugin): Promise<Format[]> {
  return (await contributionsOf(plugin)).formats;
}

/** A FileService over `root` with the given formats, as tools see it. */
export function fileService(root: string, formats: Format[], limits: Partial<Limits> = {}): FileService {
  return new FileService(new Sandbox(root), () => formats, { ...DEFAULT_LIMITS, ...limits });
}

/** Collects every record of a source as values (malformed ones as the thrown error). */
export function values(source: { count: number; value(i: number): unknown }): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < source.count; i++) {
    try { out.push(source.value(i)); } catch (e) { out.push(e); }
  }
  return out;
}
