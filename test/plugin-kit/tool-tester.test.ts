/**
 * The plugin kit's tool tester (src/plugin-kit/tool-tester.ts) and the server's check of results against output
 * schemas (src/kernel/server/tool-adapter.ts), both through the real MCP client over the in-memory transport.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { FakeClock, testTools } from '../../src/plugin-kit/index';
import type { Plugin, ToolDefinition } from '../../src/plugin-api/index';

const tool = <I extends z.ZodObject, O extends z.ZodObject>(t: ToolDefinition<I, O>): ToolDefinition<I, O> => t;

/** A bundle `probe`: `count_lines` reads a file through the sandbox (any format), `answer` returns what it is told. */
const probe: Plugin = {
  name: 'probe-plugin', version: '1.0.0', apiVersion: '^3.0.0',
  register(context) {
    context.registerToolBundle({
      name: 'probe',
      tools: [
        tool({
          name: 'count_records', title: 'count', description: 'Counts the records of a file.',
          inputSchema: z.object({ path: z.string() }),
          outputSchema: z.object({ records: z.number().int(), format: z.string() }),
          async handler(args, ctx) {
            const opened = await ctx.files.open(args.path, { signal: ctx.signal });
            try {
              return { records: opened.source.count, format: opened.source.format };
            } finally {
              opened.close();
            }
          },
        }),
        tool({
          name: 'answer', title: 'answer', description: 'Answers {n} with what it is given.',
          inputSchema: z.object({ n: z.union([z.number(), z.string()]) }),
          outputSchema: z.object({ n: z.number() }),
          handler: (args) => ({ n: args.n as number }),
        }),
        tool({
          name: 'huge', title: 'huge', description: 'Answers a number past a double\'s range, exactly.',
          inputSchema: z.object({}),
          outputSchema: z.object({ n: z.number() }),
          handler: () => ({ n: JSON.rawJSON('-1e400') as unknown as number }),
        }),
        tool({
          name: 'deadline', title: 'deadline', description: 'Says how far the deadline is.',
          inputSchema: z.object({}),
          outputSchema: z.object({ left: z.number() }),
          handler: (_args, ctx) => ({ left: ctx.deadline - ctx.clock.now() }),
        }),
      ],
    });
  },
};

describe('the tool tester', () => {
  test('serves the plugin\'s tools over a temporary root with the built-in formats; results come through the client', async () => {
    const t = await testTools(probe, { files: { 'a.jsonl': '{"x":1}\n{"x":2}\n{"x":3}\n', 'sub/b.json': '[1,2]' } });
    try {
      expect(t.tools).toEqual(['count_records', 'answer', 'huge', 'deadline']);
      // 3 lines by hand; a top-level array of 2 elements
      expect((await t.call('count_records', { path: 'a.jsonl' })).structuredContent).toEqual({ records: 3, format: 'jsonl' });
      expect((await t.call('count_records', { path: 'sub/b.json' })).structuredContent).toEqual({ records: 2, format: 'json' });
      const outside = await t.call('count_records', { path: '../a.jsonl' });
      expect(outside.isError).toBe(true);
      expect(outside.error?.code).toBe('ACCESS_DENIED');
      expect(fs.existsSync(path.join(t.root, 'sub', 'b.json'))).toBe(true);
    } finally {
      await t.close();
    }
    expect(fs.existsSync(t.root)).toBe(false);
  });

  test('runs on the given clock and config: the deadline is requestTimeoutMs on a FakeClock', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const t = await testTools(probe, { clock, config: { limits: { requestTimeoutMs: 1234 } } });
    try {
      expect((await t.call('deadline')).structuredContent).toEqual({ left: 1234 });
    } finally {
      await t.close();
    }
  });

  test('a plugin given by path loads as the kernel loads it; an existing root stays', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-tt-')));
    try {
      fs.writeFileSync(path.join(dir, 'p.cjs'), `const { z } = require(${JSON.stringify(require.resolve('zod'))});
module.exports = { name: 'by-path', version: '0.0.1', apiVersion: '^3.0.0', register(c) {
  c.registerToolBundle({ name: 'bp', tools: [{ name: 'bp_root', title: 't', description: 'd', inputSchema: z.object({}), outputSchema: z.object({ ok: z.boolean() }), handler: () => ({ ok: true }) }] });
} };\n`);
      const t = await testTools(path.join(dir, 'p.cjs'), { root: dir, builtins: false });
      try {
        expect(t.root).toBe(dir);
        expect((await t.call('bp_root')).structuredContent).toEqual({ ok: true });
      } finally {
        await t.close();
      }
      expect(fs.existsSync(path.join(dir, 'p.cjs'))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('results are checked against output schemas', () => {
  test('{n: "x"} against {n: number} is INTERNAL_ERROR naming the plugin and the member, logged; {n: 1} and {n: -1e400} pass', async () => {
    const t = await testTools(probe);
    try {
      expect((await t.call('answer', { n: 1 })).structuredContent).toEqual({ n: 1 });
      // a number past a double's range is a number: written digit for digit, checked as one (server and tester)
      const huge = await t.call('huge');
      expect({ isError: huge.isError, text: huge.text }).toEqual({ isError: false, text: '{"n":-1e400}' });
      const bad = await t.call('answer', { n: 'x' });
      expect(bad.isError).toBe(true);
      expect(bad.error?.code).toBe('INTERNAL_ERROR');
      expect(bad.error?.message).toBe('Internal error in probe-plugin (tool answer): the result of answer does not match its outputSchema:\n  n: Invalid input: expected number, received string');
      expect(JSON.parse(bad.text)).toEqual(bad.structuredContent);
      const line = t.logged.find(([level, message]) => level === 'error' && message === 'tool answer failed');
      expect(line?.[2]).toMatchObject({ plugin: 'probe-plugin' });
    } finally {
      await t.close();
    }
  });
});
