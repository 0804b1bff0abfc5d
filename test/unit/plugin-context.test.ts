/**
 * The kernel's container and the contexts it gives plugins and tools: each plugin gets its own child container
 * (its name, its validated options, a log tagged with its name) over the kernel's services; each tool bundle gets its
 * own session scope (two bundles using the same table name do not see each other's ids); tools get the kernel's clock
 * and a deadline on it; and a test replaces a service (here the clock) by registering another implementation.
 * Real MCP calls over an in-memory transport pair.
 */
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { FakeClock } from '../../src/kernel/fake-clock';
import { resolveConfig } from '../../src/kernel/config';
import { Tokens, type Plugin, type PluginContext, type ToolDefinition } from '../../src/kernel/contracts';
import { createKernel } from '../../src/compose/engine';

let tmp: string;
beforeAll(() => { tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-ctx-'))); });
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
const log = Object.fromEntries(['error', 'warn', 'info', 'debug'].map((level) => [level, (message: string, fields?: Record<string, unknown>) => void lines.push({ level, message, ...(fields ? { fields } : {}) })])) as never;

/** A bundle `name` whose tool `<name>_put` adds an id to its table "files" and reports what the context held. */
const bundlePlugin = (name: string, seen: Record<string, unknown>): Plugin<{ greeting: string }> => ({
  name: `p-${name}`, version: '1.0.0', apiVersion: '^2.0.0',
  options: { safeParse: (o: unknown) => ({ success: true as const, data: { greeting: String((o as { greeting?: string }).greeting ?? 'hi').toUpperCase() } }) },
  register(context: PluginContext, options) {
    seen.options = options;
    seen.fromContainer = context.container.resolve(Tokens.PluginOptions);
    seen.plugin = context.container.resolve(Tokens.Plugin);
    seen.clock = context.container.resolve(Tokens.Clock) === context.clock;
    context.log.info('registering');
    const put: ToolDefinition = {
      name: `${name}_put`, title: 'put', description: 'put', inputSchema: z.object({}),
      outputSchema: z.object({ id: z.string(), size: z.number(), deadline: z.number(), now: z.number() }),
      handler(_args, ctx) {
        const table = ctx.session.handles<string>('files', { style: 'counter', prefix: `${name}_`, noun: 'file handle', limit: 'maxOpenFiles', idleMs: 60_000, max: 10 });
        const id = table.add('x');
        ctx.log.info('put', { id });
        return { id, size: table.size, deadline: ctx.deadline, now: ctx.clock.now() };
      },
    };
    context.registerToolBundle({ name, tools: [put] });
  },
});

test('plugins get their own containers and tagged logs; bundles their own session scopes; tools the kernel clock', async () => {
  const clock = new FakeClock(Date.UTC(2026, 5, 1));
  const seenA: Record<string, unknown> = {};
  const seenB: Record<string, unknown> = {};
  const modules = new Map<string, unknown>([[path.join(tmp, 'a.cjs'), bundlePlugin('a', seenA)], [path.join(tmp, 'b.cjs'), bundlePlugin('b', seenB)]]);
  for (const f of modules.keys()) fs.writeFileSync(f, '// stands in for a plugin module\n');
  const kernel = createKernel({ version: '0.1.0', ownDir: tmp, log, clock, importModule: async (e) => modules.get(e) });
  await kernel.load([
    { id: './a.cjs', options: { greeting: 'hello' }, fromDir: tmp, origin: 'config' },
    { id: './b.cjs', options: {}, fromDir: tmp, origin: 'config' },
  ]);
  expect(seenA).toEqual({ options: { greeting: 'HELLO' }, fromContainer: { greeting: 'HELLO' }, plugin: { name: 'p-a', version: '1.0.0' }, clock: true });
  expect(seenB.fromContainer).toEqual({ greeting: 'HI' });
  expect(lines.filter((l) => l.message === 'registering').map((l) => l.fields)).toEqual([{ plugin: 'p-a' }, { plugin: 'p-b' }]);

  const config = resolveConfig({ config: { root: tmp }, dir: tmp }, {}, {}, tmp);
  const server = kernel.serverFactory(config)();
  const client = new Client({ name: 't', version: '1' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  try {
    const call = async (name: string) => (await client.callTool({ name, arguments: {} })).structuredContent as { id: string; size: number; deadline: number; now: number };
    expect(await call('a_put')).toEqual({ id: 'a_1', size: 1, now: clock.now(), deadline: clock.now() + config.limits.requestTimeoutMs });
    expect(await call('a_put')).toMatchObject({ id: 'a_2', size: 2 });
    // Bundle b's table "files" is its own: it starts empty.
    expect(await call('b_put')).toMatchObject({ id: 'b_1', size: 1 });
    clock.advance(5000);
    expect(await call('b_put')).toMatchObject({ id: 'b_2', size: 2, now: clock.now(), deadline: clock.now() + config.limits.requestTimeoutMs });
  } finally {
    await client.close();
  }
  expect(lines.filter((l) => l.message === 'put').map((l) => l.fields)).toEqual([
    { plugin: 'p-a', bundle: 'a', id: 'a_1' }, { plugin: 'p-a', bundle: 'a', id: 'a_2' }, { plugin: 'p-b', bundle: 'b', id: 'b_1' }, { plugin: 'p-b', bundle: 'b', id: 'b_2' },
  ]);
});

test('a service scope resolves Limits, Files and the one ScanEngine for a root; the kernel\'s clock is the registered one', () => {
  const clock = new FakeClock();
  const kernel = createKernel({ version: '0.1.0', ownDir: tmp, log, clock });
  const limits = resolveConfig({ config: { root: tmp }, dir: tmp }, {}, {}, tmp).limits;
  const a = kernel.scope({ root: tmp, limits });
  const b = kernel.scope({ root: null, limits });
  expect(a.resolve(Tokens.Limits)).toBe(limits);
  expect(a.resolve(Tokens.ScanEngine)).toBe(b.resolve(Tokens.ScanEngine));
  expect(a.resolve(Tokens.Clock)).toBe(clock);
  expect(a.resolve(Tokens.Files)).not.toBe(b.resolve(Tokens.Files));
  expect(a.isRegistered(Tokens.Registry)).toBe(true);
  expect(kernel.container.isRegistered(Tokens.Files)).toBe(false);
});
