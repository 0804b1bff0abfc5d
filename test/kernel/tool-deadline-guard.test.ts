/**
 * A tool handler that never settles is answered at its deadline plus GRACE_MS (fault-guard.ts), on the kernel's
 * clock: a FakeClock decides, no test waits. An answer that comes in time is the answer.
 */
import { z } from 'zod';
import { runTool } from '../../src/kernel/server/tool-adapter';
import { toolContext } from '../../src/kernel/server/tool-context';
import { GRACE_MS } from '../../src/kernel/server/fault-guard';
import { FakeClock } from '../../src/kernel/fake-clock';
import { systemClock } from '../../src/kernel/clock';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { Session } from '../../src/kernel/session/session';
import type { ToolDefinition } from '../../src/kernel/contracts';

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };

function context(clock: FakeClock | typeof systemClock, requestTimeoutMs = 3000) {
  return toolContext(
    { registry: {} as never, files: {} as never, limits: { ...DEFAULT_LIMITS, requestTimeoutMs }, log: quiet, clock, root: '', scan: {} as never, regex: {} as never, json: () => ({}) as never },
    { session: new Session(clock).scope('t'), plugin: 'acme-slow' },
  );
}

const tool = (handler: ToolDefinition['handler']): ToolDefinition =>
  ({ name: 'slow', title: 'slow', description: 'slow', inputSchema: z.object({}), outputSchema: z.object({ ok: z.boolean() }), handler }) as ToolDefinition;

test('a handler that never settles: INTERNAL_ERROR naming the plugin at deadline + GRACE_MS, not a moment before', async () => {
  const clock = new FakeClock();
  let settled: Awaited<ReturnType<typeof runTool>> | undefined;
  void runTool(tool(() => new Promise(() => undefined)), {}, context(clock), 'acme-slow').then((r) => (settled = r));
  await clock.advanceAsync(3000 + GRACE_MS - 1);
  expect(settled).toBeUndefined();
  await clock.advanceAsync(1);
  expect(settled?.isError).toBe(true);
  expect(settled?.structuredContent.error).toEqual({
    code: 'INTERNAL_ERROR',
    message: 'Internal error in acme-slow (tool slow): the tool did not answer by its deadline (requestTimeoutMs 3000 ms); its work was abandoned.',
    hint: 'A fault of the plugin that registered the tool: report it there. The server goes on serving.',
    limit: { name: 'requestTimeoutMs', limit: 3000, value: 3000 + GRACE_MS },
  });
});

test('a handler that answers after its deadline but within the grace: its answer', async () => {
  const clock = new FakeClock();
  let settled: Awaited<ReturnType<typeof runTool>> | undefined;
  const slow = tool((_args, ctx) => new Promise((resolve) => ctx.clock.setTimeout(() => resolve({ ok: true }), 3000 + GRACE_MS - 1)));
  void runTool(slow, {}, context(clock), 'acme-slow').then((r) => (settled = r));
  await clock.advanceAsync(3000 + GRACE_MS);
  expect(settled?.structuredContent).toEqual({ ok: true });
  expect(clock.pending).toBe(0); // the guard's timer is gone with the call
});

test('a deadline past a timer\'s range (requestTimeoutMs 3e9) is not guarded: the answer comes, not a guard firing at once', async () => {
  // Node fires a timer set past 2^31 − 1 ms at once: were the guard set, it would answer before the handler's 20 ms.
  const slow = tool(() => new Promise((resolve) => setTimeout(() => resolve({ ok: true }), 20)));
  const r = await runTool(slow, {}, context(systemClock, 3_000_000_000), 'acme-slow');
  expect(r.structuredContent).toEqual({ ok: true });
});
