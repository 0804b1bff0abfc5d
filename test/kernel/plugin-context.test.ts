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
import { inProcessClient } from '../helpers/mcp';
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
  name: `p-${name}`, version: '1.0.0', apiVersion: '^3.0.0',
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
  const client = await inProcessClient(server);
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

test('one context factory: a tool run over MCP and the same tool run by a plugin command get the same context (a JSON layout that counts replaced lone surrogates, errors tagged with the plugin)', async () => {
  const echo: ToolDefinition = {
    name: 'echo_json', title: 'echo', description: 'echo', inputSchema: z.object({ text: z.string(), fail: z.boolean().optional() }),
    outputSchema: z.object({ text: z.string(), raisedBy: z.string().optional() }),
    handler(args: { text: string; fail?: boolean }, ctx) {
      return { text: ctx.json.wellFormedText(args.text), raisedBy: ctx.error('NOT_FOUND', 'x').plugin ?? 'none' };
    },
  };
  let fromCommand: Record<string, unknown> | undefined;
  const plugin: Plugin = {
    name: 'p-echo', version: '1.0.0', apiVersion: '^3.0.0',
    register(context) {
      context.registerToolBundle({ name: 'echo', tools: [echo] });
      context.registerCommand!({ name: 'echo', description: 'echo', run: async (_args, ctx) => { fromCommand = await ctx.runTool(echo, { text: '"\\ud800 \\ud83d\\ude00"' }); return 0; } });
    },
  };
  fs.writeFileSync(path.join(tmp, 'echo.cjs'), '// stands in for a plugin module\n');
  const kernel = createKernel({ version: '0.1.0', ownDir: tmp, log, importModule: async () => plugin });
  await kernel.load([{ id: './echo.cjs', options: {}, fromDir: tmp, origin: 'config' }]);
  const config = resolveConfig({ config: { root: tmp }, dir: tmp }, {}, {}, tmp);
  // one lone surrogate escape (\ud800) rewritten, the pair left alone: RFC 8259 §8.2
  const expected = {
    text: '"\\ufffd \\ud83d\\ude00"',
    raisedBy: 'p-echo',
    warnings: [{ code: 'LONE_SURROGATE_REPLACED', message: expect.stringMatching(/^1 lone surrogate escape\(s\) in the JSON text of this answer/) }],
  };
  const ctx = kernel.commandContext(config, { signal: new AbortController().signal, progress: () => undefined, print: () => undefined, interactive: false }, 'echo');
  expect(await kernel.registry.commands.get('echo')!.item.run([], ctx)).toBe(0);
  expect(fromCommand).toEqual(expected);
  const server = kernel.serverFactory(config)();
  const client = await inProcessClient(server);
  try {
    expect((await client.callTool({ name: 'echo_json', arguments: { text: '"\\ud800 \\ud83d\\ude00"' } })).structuredContent).toEqual(expected);
  } finally {
    await client.close();
  }
});

test('a plugin\'s config section is its options (validated by its schema, errors naming the section\'s keys); an object no plugin claims is refused', async () => {
  let got: unknown;
  let dir = '';
  const plugin: Plugin<{ depth: number }> = {
    name: 'p-sec', version: '1.0.0', apiVersion: '^3.0.0', configSection: 'history',
    options: { safeParse: (o: unknown) => (typeof (o as { depth?: unknown }).depth === 'number' ? { success: true as const, data: o as { depth: number } } : { success: false as const, error: { issues: [{ path: ['depth'], message: 'expected a number' }] } }) },
    register(context, options) { got = options; dir = context.configDir; },
  };
  fs.writeFileSync(path.join(tmp, 'sec.cjs'), '// stands in for a plugin module\n');
  const spec = [{ id: './sec.cjs', options: {}, fromDir: tmp, origin: 'config' as const }];
  const kernel = () => createKernel({ version: '0.1.0', ownDir: tmp, log, importModule: async () => plugin });
  await kernel().load(spec, { sections: { history: { depth: 3 } }, dir: '/cfg' });
  expect([got, dir]).toEqual([{ depth: 3 }, '/cfg']);
  await expect(kernel().load(spec, { sections: { history: { depth: 'x' } }, dir: '/cfg' })).rejects.toThrow('Plugin p-sec@1.0.0: invalid options (config section "history"): history.depth: expected a number');
  await expect(kernel().load(spec, { sections: { history: { depth: 1 }, histroy: {} }, dir: '/cfg' })).rejects.toThrow('(top level): unknown key "histroy": neither an mcpgw setting nor the config section of a loaded plugin. Sections of the loaded plugins: history.');
});
