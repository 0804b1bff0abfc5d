import 'reflect-metadata';
import type { Format, Plugin, PluginRegistry } from '../../src/kernel/contracts';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import type { Limits } from '../../src/kernel/contracts/limits';
import { McpgwError } from '../../src/kernel/errors';
import { FileService } from '../../src/kernel/files/file-service';
import { Sandbox } from '../../src/kernel/files/sandbox';
import { recordsToolkit } from '../../src/kernel/records';
import { createLogger } from '../../src/kernel/log';
import { container } from 'tsyringe';

/** Runs a plugin's register() against a capturing registry and returns the formats it registered. */
export async function formatsOf(plugin: Plugin): Promise<Format[]> {
  const formats: Format[] = [];
  const registry: PluginRegistry = {
    apiVersion: '1.0.0',
    kernelVersion: 'test',
    registerFormat: (f) => void formats.push(f),
    registerQueryLanguage: () => undefined,
    registerToolBundle: () => undefined,
    records: recordsToolkit,
    error: (code, message, details) => new McpgwError(code, message, details),
    container,
    log: createLogger('error'),
  };
  await plugin.register(registry, {});
  return formats;
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
