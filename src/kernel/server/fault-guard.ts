import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '../contracts/clock';
import type { Logger } from '../contracts/plugin';
import { capMessage, McpgwError, shownInput } from '../errors';

/**
 * Plugin code cannot take the server down (docs/architecture.md "Isolation and blame"): each tool call runs in an
 * async context of its own (`guardCall`), so a fault its code leaves behind — a rejection nobody handles, a throw from a
 * timer it set — is traced to the call; `installFaultGuard` catches such faults process-wide, logs them with the
 * plugin that raised them (by its stack, else the call's plugin) and answers the call in flight INTERNAL_ERROR. A call
 * whose handler has not settled at its deadline (plus GRACE_MS for an answer on its way) is answered too.
 */

/** Each call in flight: its plugin and tool, and how to answer it when a fault is traced to it. */
const calls = new AsyncLocalStorage<{ plugin: string | undefined; tool: string; fail(err: McpgwError): void }>();

/**
 * Past the deadline, time a handler still has to deliver an answer it is finishing: a page stopped at the deadline
 * still finishes one record, maybe on worker threads just started, which a loaded machine can take seconds over.
 */
export const GRACE_MS = 5000;

/** The longest delay a timer takes (Node's: 2^31 − 1 ms; a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Who raised a fault: the plugin whose code is on its stack (Registry.blame), else undefined. */
export type BlameFn = (err: unknown) => string | undefined;

/**
 * Runs `handler` as tool `tool` of `plugin`'s call: resolves with its answer, or rejects with an INTERNAL_ERROR naming
 * the plugin when a fault is traced to the call (installFaultGuard) or when it has not settled by `deadline` +
 * GRACE_MS on `clock`.
 */
export async function guardCall<T>(call: { plugin: string | undefined; tool: string; clock: Clock; deadline: number; timeoutMs: number }, handler: () => T | Promise<T>): Promise<T> {
  let fail!: (err: McpgwError) => void;
  const fault = new Promise<never>((_, reject) => (fail = reject));
  const by = call.plugin === undefined ? '' : ` in ${call.plugin}`;
  // A deadline past a timer's 32-bit range (a command's, a huge requestTimeoutMs) is no deadline to guard.
  const wait = call.deadline + GRACE_MS - call.clock.now();
  const timer = wait > MAX_TIMER_MS ? null : call.clock.setTimeout(() => {
    fail(new McpgwError('INTERNAL_ERROR', capMessage(`Internal error${by} (tool ${call.tool}): the tool did not answer by its deadline (requestTimeoutMs ${call.timeoutMs} ms); its work was abandoned.`), {
      limit: { name: 'requestTimeoutMs', limit: call.timeoutMs, value: call.timeoutMs + GRACE_MS },
      hint: 'A fault of the plugin that registered the tool: report it there. The server goes on serving.',
      ...(call.plugin !== undefined ? { plugin: call.plugin } : {}),
    }));
  }, wait, { unref: true });
  try {
    return await calls.run({ plugin: call.plugin, tool: call.tool, fail }, () => Promise.race([Promise.resolve().then(handler), fault]));
  } finally {
    timer?.cancel();
  }
}

/**
 * Catches uncaught exceptions and unhandled rejections for the rest of the process (`serve`): each is logged with the
 * plugin that raised it and, when it is traced to a call in flight, that call is answered INTERNAL_ERROR. A fault no
 * plugin and no call can be blamed for is mcpgw's own: it is logged and the process exits 1, as without the guard.
 */
export function installFaultGuard(log: Logger, blame: BlameFn): void {
  const onFault = (kind: string) => (err: unknown) => {
    const call = calls.getStore();
    const plugin = blame(err) ?? call?.plugin;
    const stack = shownInput((err instanceof Error ? err.stack : undefined) ?? String(err), 4000);
    if (plugin === undefined && call === undefined) {
      log.error(`${kind}: not raised by a plugin; exiting`, { error: stack });
      process.exit(1);
    }
    log.error(`plugin fault: ${kind}`, { plugin: plugin ?? 'unknown', ...(call ? { tool: call.tool } : {}), error: stack });
    if (call) {
      const message = err instanceof Error ? err.message : String(err);
      call.fail(new McpgwError('INTERNAL_ERROR', capMessage(`Internal error in ${plugin} (tool ${call.tool}): ${kind}: ${message}`), {
        hint: `A fault of ${plugin}: report it there. The server goes on serving.`,
        ...(plugin !== undefined ? { plugin } : {}),
      }));
    }
  };
  process.on('uncaughtException', onFault('uncaught exception'));
  process.on('unhandledRejection', onFault('unhandled rejection'));
}
