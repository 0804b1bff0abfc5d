import 'reflect-metadata';
import { instancePerContainerCachingFactory } from 'tsyringe';
import { Kernel, type KernelOptions } from '../kernel/kernel';
import { Tokens } from '../kernel/contracts/tokens';
import type { RegexService } from '../kernel/contracts/regex';
import type { ScanEngine } from '../kernel/contracts/scan';
import type { Limits } from '../kernel/contracts/limits';
import type { ScopeSettings, WorkerPlugin } from '../kernel/contracts/engine';
import { WORKER_LANGUAGE_MODULE } from '../kernel/plugins/worker-language';
import { WORKER_TASK_MODULE } from '../kernel/plugins/worker-task';
import { openRegularFile } from '../kernel/files/regular-file';
import { recordsToolkit } from '../engine/records';
import { engineToolkit } from '../engine/toolkit';
import { CallJsonLayout } from '../engine/records/json-layout';
import { IndexCache } from '../engine/cache/index-cache';
import { EngineIndexer } from '../engine/files/indexer';
import type { QueryScanEngine } from '../engine/scan/engine';
import type { WorkerPool } from '../engine/scan/workers';
import type { AggregatePool } from '../engine/scan/aggregate';

/**
 * The composition root: the default engine (src/engine) wired into a kernel's container under `Tokens`. The kernel
 * never imports an engine; it resolves these. A test or a plugin that registers another implementation of a token
 * (in the kernel's container, before a scope is made) replaces this one.
 *
 * Kernel-wide: Records (the records toolkit plugins get as `context.records`), Toolkit (`context.toolkit`), Regex (RE2, loaded at the first pattern),
 * JsonLayout (a new per-call layout at each resolve), ScanEngine (one server-wide engine, built at the first scan).
 * Per scope: IndexCache (one per folder and bound, for the scope's `cache` settings) and Indexer (the index pass over it).
 */
export function registerEngine(kernel: Kernel): void {
  const c = kernel.container;
  c.register(Tokens.Records, { useValue: recordsToolkit });
  c.register(Tokens.Toolkit, { useValue: engineToolkit });
  // The RE2 engine (re2js) and its service load on the first pattern compiled, not at start-up.
  let regex: RegexService | undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const service = (): RegexService => (regex ??= new (require('../engine/regex') as typeof import('../engine/regex')).Re2RegexService());
  const lazyRegex: RegexService = {
    get engine() {
      return service().engine;
    },
    compile: (pattern, options) => service().compile(pattern, options),
  };
  c.register(Tokens.Regex, { useValue: lazyRegex });
  c.register(Tokens.JsonLayout, { useFactory: () => new CallJsonLayout() });
  const caches = new Map<string, IndexCache>();
  c.register(Tokens.IndexCache, {
    useFactory: instancePerContainerCachingFactory((scope) => {
      const { cache } = scope.resolve<ScopeSettings>(Tokens.Scope);
      if (!cache) return null;
      // Its salt names mcpgw's version and each format's plugin and version, so an index written by other code is
      // never read as this code's.
      const salt = [`mcpgw@${kernel.options.version}`, ...[...kernel.registry.formats.values()].map((o) => `${o.item.name}:${o.plugin}@${kernel.registry.plugins.find((p) => p.name === o.plugin)?.version ?? '?'}`)].join(';');
      const key = `${cache.dir}\0${cache.maxBytes}`;
      let found = caches.get(key);
      if (!found) caches.set(key, (found = new IndexCache({ dir: cache.dir, maxBytes: cache.maxBytes, salt, openFile: openRegularFile, log: kernel.options.log, now: () => kernel.clock.now() })));
      return found;
    }),
  });
  c.register(Tokens.Indexer, { useFactory: instancePerContainerCachingFactory((scope) => new EngineIndexer(scope.resolve<IndexCache | null>(Tokens.IndexCache))) });
  let standIn: ScanEngine | undefined;
  c.register(Tokens.ScanEngine, { useFactory: (scope) => (standIn ??= scanEngine(kernel, scope.resolve<Limits>(Tokens.Limits))) });
}

/** A kernel with the default engine wired in (the CLI's, and tests'). */
export function createKernel(options: KernelOptions): Kernel {
  const kernel = new Kernel(options);
  registerEngine(kernel);
  return kernel;
}

/**
 * The server-wide engine. Its modules (the engine, record walks, plans: ~90 KB) load at the first call that scans,
 * not at start-up; until then the registered engine is a stand-in that builds it on first use.
 */
function scanEngine(kernel: Kernel, limits: Limits): ScanEngine {
  let engine: QueryScanEngine | undefined;
  const real = (): QueryScanEngine => (engine ??= buildEngine(kernel, limits));
  return {
    run: (options) => real().run(options),
    aggregate: (options) => real().aggregate(options),
    slot: (deadline, signal) => real().slot(deadline, signal),
    missingMembers: (source, names, signal) => real().missingMembers(source, names, signal),
    numberLikeStrings: (query, options) => real().numberLikeStrings(query, options),
    queryNotes: (query, options) => real().queryNotes(query, options),
    // The record loop over a tool's matcher needs none of the scan engine's modules.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    match: (options) => (require('../engine/scan/match') as typeof import('../engine/scan/match')).runMatch(options, kernel.clock),
    // A plugin's task takes a thread of the same pool without building the scan engine.
    thread: (task) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { taskThread } = require('../engine/scan/task-thread') as typeof import('../engine/scan/task-thread');
      return taskThread(threadPool(kernel), WORKER_TASK_MODULE, task);
    },
  };
}

/** The kernel's one pool of engine threads (built at the first scan, aggregate or task that asks for threads). */
function threadPool(kernel: Kernel): ReturnType<typeof import('../engine/scan/engine-threads').engineThreads> {
  let pool = kernelThreads.get(kernel);
  if (!pool) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { engineThreads } = require('../engine/scan/engine-threads') as typeof import('../engine/scan/engine-threads');
    kernelThreads.set(kernel, (pool = engineThreads({ clock: kernel.clock })));
  }
  return pool;
}

/** One pool of engine threads per kernel, for every service scope's scans, aggregates and plugins' tasks (engine-threads.ts). */
const kernelThreads = new WeakMap<Kernel, ReturnType<typeof import('../engine/scan/engine-threads').engineThreads>>();

function buildEngine(kernel: Kernel, limits: Limits): QueryScanEngine {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { QueryScanEngine } = require('../engine/scan/engine') as typeof import('../engine/scan/engine');
  // Worker threads load a query language's plugin with the kernel's loader, as configured on the main thread.
  const pluginOf = (name: string): WorkerPlugin | undefined => {
    const plugin = kernel.registry.queryLanguagePlugin(name);
    return plugin && { ...plugin, loader: WORKER_LANGUAGE_MODULE };
  };
  return new QueryScanEngine({
    limits: () => limits,
    log: kernel.options.log,
    clock: kernel.clock,
    // Scans and aggregates share one pool of threads (built, with its modules, at the first scan or aggregate that asks
    // whether to use threads).
    workers: onFirstUse<WorkerPool>(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { ThreadPool } = require('../engine/scan/workers') as typeof import('../engine/scan/workers');
      return new ThreadPool({ pluginOf, clock: kernel.clock, threadPool: threadPool(kernel), log: kernel.options.log });
    }),
    aggregates: onFirstUse<AggregatePool>(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { AggregateThreads } = require('../engine/scan/aggregate-threads') as typeof import('../engine/scan/aggregate-threads');
      return new AggregateThreads({ pluginOf, clock: kernel.clock, threadPool: threadPool(kernel), log: kernel.options.log });
    }),
  });
}

/** A pool (worker threads for scans or aggregates) built, its module loaded, when first asked anything. */
function onFirstUse<P extends WorkerPool | AggregatePool>(make: () => P): P {
  let pool: P | undefined;
  const get = (): P => (pool ??= make());
  return {
    wanted: (...args: unknown[]) => (get().wanted as (...a: unknown[]) => boolean)(...args),
    run: (job: unknown) => (get().run as (j: unknown) => Promise<unknown>)(job),
  } as unknown as P;
}
