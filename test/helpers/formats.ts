import 'reflect-metadata';
import type { Format, Plugin } from '../../src/kernel/contracts';
import { registerPlugin, type Contributions } from '../../src/plugin-kit/register-plugin';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import type { Limits } from '../../src/kernel/contracts/limits';
import { FileService } from '../../src/kernel/files/file-service';
import { Sandbox } from '../../src/kernel/files/sandbox';
import { systemClock } from '../../src/kernel/clock';
import { EngineIndexer } from '../../src/engine/files/indexer';

/** What a plugin's register() contributed, captured by the plugin API's own test context. */
export type { Contributions };

/** Runs a plugin's register() against a capturing context (the kernel's real records toolkit and errors). */
export async function contributionsOf(plugin: Plugin, options: unknown = {}): Promise<Contributions> {
  return registerPlugin(plugin, options);
}

/** The formats a plugin registers. */
export async function formatsOf(plugin: Plugin): Promise<Format[]> {
  return (await contributionsOf(plugin)).formats;
}

/** A FileService over `root` with the given formats and the engine's index pass (no index cache), as tools see it. */
export function fileService(root: string, formats: Format[], limits: Partial<Limits> = {}): FileService {
  return new FileService(new Sandbox(root), () => formats, { ...DEFAULT_LIMITS, ...limits }, systemClock, new EngineIndexer());
}

/** Collects every record of a source as values (malformed ones as the thrown error). */
export function values(source: { count: number; value(i: number): unknown }): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < source.count; i++) {
    try { out.push(source.value(i)); } catch (e) { out.push(e); }
  }
  return out;
}
