import type { ToolContext } from '../../src/kernel/contracts';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { CallJsonLayout } from '../../src/engine/records/json-layout';
import { Session } from '../../src/kernel/session/session';
import { toolContext } from '../../src/kernel/server/tool-context';
import type { FakeClock } from '../../src/kernel/fake-clock';

/**
 * A ToolContext for calling explorer tool handlers in-process, made by the one factory the server and the commands use
 * (toolContext): an explorer session scope on `clock`, DEFAULT_LIMITS (or `limits`), a deadline `deadlineMs` after the
 * clock's now (default a minute), silent log and progress, files whose verify passes, the engine's per-call JSON layout.
 * `extra` adds or replaces members (scan, regex, registry, …).
 */
export function exploreContext(clock: FakeClock, opts: { limits?: Record<string, unknown>; deadlineMs?: number; extra?: Record<string, unknown> } = {}): ToolContext {
  const ctx = toolContext({
    registry: undefined as never,
    files: { verify: () => undefined } as never,
    limits: (opts.limits ?? { ...DEFAULT_LIMITS }) as never,
    log: { error() {}, warn() {}, info() {}, debug() {} },
    clock,
    root: '',
    scan: undefined as never,
    regex: undefined as never,
    json: () => new CallJsonLayout(),
  }, { session: new Session(clock).scope('explore'), deadline: clock.now() + (opts.deadlineMs ?? 60_000) });
  return { ...ctx, ...opts.extra } as ToolContext;
}
