import type { ToolContext } from '../../src/kernel/contracts';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { McpgwError } from '../../src/kernel/errors';
import { jsonLayout } from '../../src/engine/records/json-layout';
import { Session } from '../../src/kernel/session/session';
import type { FakeClock } from '../../src/kernel/fake-clock';

/**
 * A ToolContext for calling explorer tool handlers in-process: an explorer session scope on `clock`, DEFAULT_LIMITS
 * (or `limits`), a deadline `deadlineMs` after the clock's now (default a minute), silent log and progress, files whose
 * verify passes, the kernel's JSON layout. `extra` adds or replaces members (scan, regex, registry, …).
 */
export function exploreContext(clock: FakeClock, opts: { limits?: Record<string, unknown>; deadlineMs?: number; extra?: Record<string, unknown> } = {}): ToolContext {
  return {
    session: new Session(clock).scope('explore'),
    limits: opts.limits ?? { ...DEFAULT_LIMITS },
    signal: new AbortController().signal,
    deadline: clock.now() + (opts.deadlineMs ?? 60_000),
    clock,
    progress: () => undefined,
    log: { error() {}, warn() {}, info() {}, debug() {} },
    error: (code: any, message: string, details?: any) => new McpgwError(code, message, details),
    files: { verify: () => undefined },
    json: jsonLayout,
    ...opts.extra,
  } as unknown as ToolContext;
}
