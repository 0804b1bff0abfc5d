import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { z } from 'zod';
import type { Client } from '@modelcontextprotocol/client';
import type { Clock } from '../kernel/contracts/clock';
import type { Logger, Plugin } from '../kernel/contracts/plugin';
import type { ToolDefinition } from '../kernel/contracts/tool';
import type { ErrorPayload } from '../kernel/errors';
import type { PluginSpec } from '../kernel/plugins/loader';

/** What `testTools` builds the server from. */
export interface ToolTesterOptions {
  /** The options of the plugin under test, as a config's `["name", {options}]` gives them. */
  options?: Record<string, unknown>;
  /** Files written under a new temporary root (paths relative to it, `/`-separated); removed on `close()`. */
  files?: Record<string, string | Uint8Array>;
  /** An existing folder as the root instead of a temporary one (never removed). */
  root?: string;
  /**
   * Built-in plugins loaded before the plugin under test: `true` all, `false` none, or names (`format-jsonl`, …).
   * Default: the built-in formats and query languages (`format-json`, `format-jsonl`, `format-jsonseq`,
   * `query-jsonpath`, `query-pointer`), so a tool reads what mcpgw reads. The plugin under test is never loaded twice.
   */
  builtins?: boolean | readonly string[];
  /** Other plugins loaded after the built-ins and before the plugin under test: objects, paths or package names, optionally with options. */
  plugins?: readonly (Plugin | string | [Plugin | string, Record<string, unknown>])[];
  /** More of the config (`limits`, `profiles`, `profile`, `recordFormat`, a config section …); `root` and `cache` are the tester's. */
  config?: Record<string, unknown>;
  /** The persistent index folder (`cacheDir`); default none (`cache: false`). */
  cacheDir?: string;
  /**
   * The kernel's clock (default: the system clock); a `FakeClock` drives deadlines and expiry. Scans on the engine's
   * worker threads time their records on it too (a record stuck in a regular expression is timed in its time).
   */
  clock?: Clock;
  /** The client's `clientInfo.name` (default `mcpgw-tool-tester`, a name no client family lists: results carry their full JSON text). */
  clientName?: string;
}

/** One tool call's result, as the MCP client received it. */
export interface ToolCallResult {
  /** The structuredContent: the tool's answer, or `{ error }`. */
  structuredContent: Record<string, any>;
  isError: boolean;
  /** The text block. */
  text: string;
  /** The error of an error result. */
  error?: ErrorPayload;
}

/** A server with the plugin's tools, driven through a real MCP client (see `testTools`). */
export interface ToolTester {
  /** The root folder the tools read. */
  readonly root: string;
  /** The tools the server offers (tools/list), in its order. */
  readonly tools: readonly string[];
  /** The MCP client (`listTools`, `callTool` with progress or a signal, …). */
  readonly client: Client;
  /** What the kernel and the plugins logged: `[level, message, fields]`. */
  readonly logged: readonly [keyof Logger, string, Record<string, unknown> | undefined][];
  /**
   * Calls a tool through the client and checks the result: a success against the tool's output schema, an error
   * result against the error shape (`{error: {code, message, …}}`, a catalogue code). @throws ToolResultMismatch
   */
  call(name: string, args?: Record<string, unknown>, options?: { signal?: AbortSignal; onprogress?: (p: { progress: number; total?: number }) => void }): Promise<ToolCallResult>;
  /** Closes the client and the server and removes the temporary root. */
  close(): Promise<void>;
}

/** A result that does not match the tool's output schema (or an error result without the error shape). */
export class ToolResultMismatch extends Error {
  constructor(readonly tool: string, readonly issues: string, readonly result: unknown) {
    super(`Tool ${tool} answered a result that does not match its ${issues.startsWith('error:') ? 'error shape' : 'outputSchema'}:\n${issues}`);
    this.name = 'ToolResultMismatch';
  }
}

/** mcpgw's own package folder (this file is dist/plugin-kit/… or src/plugin-kit/…). */
const OWN_DIR = path.resolve(__dirname, '..', '..');
const DEFAULT_BUILTINS = ['format-json', 'format-jsonl', 'format-jsonseq', 'query-jsonpath', 'query-pointer'];

/**
 * Drives a plugin's tools in-process the way a client does: a real kernel (the default engine, the built-in formats
 * and languages unless told otherwise) loads the plugin with its options, serves a root (a new temporary folder with
 * `files`, or `root`), and a real MCP client (`@modelcontextprotocol/client`) talks to it over the SDK's in-memory
 * transport, each message passed as JSON text as on a wire. Every result is checked against the tool's output schema (`call`). `plugin`: the plugin object (its
 * module's default export), or its module path or package name — give a path when a query language of it must run on
 * the engine's worker threads, which load plugins by path. Close it when done.
 * @throws PluginLoadError or ConfigError as `mcpgw check` reports them
 */
export async function testTools(plugin: Plugin | string, options: ToolTesterOptions = {}): Promise<ToolTester> {
  // Loaded here, not at the kit's import: a plugin that imports the kit at run time needs none of it.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { Client: McpClient } = require('@modelcontextprotocol/client') as typeof import('@modelcontextprotocol/client');
  const { InMemoryTransport } = require('@modelcontextprotocol/server') as typeof import('@modelcontextprotocol/server');
  const { createKernel } = require('../compose/engine') as typeof import('../compose/engine');
  const { resolveConfig } = require('../kernel/config') as typeof import('../kernel/config');
  const { importEntry } = require('../kernel/plugins/loader') as typeof import('../kernel/plugins/loader');
  const { BUILTIN_PLUGINS } = require('../cli/builtins') as typeof import('../cli/builtins');
  const { ERROR_CODES } = require('../kernel/errors') as typeof import('../kernel/errors');
  const version = (require(path.join(OWN_DIR, 'package.json')) as { version: string }).version;
  /* eslint-enable @typescript-eslint/no-require-imports */

  const own = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-tool-tester-')));
  const remove = () => fs.rmSync(own, { recursive: true, force: true });
  try {
    const root = options.root ?? path.join(own, 'root');
    if (options.root === undefined) {
      fs.mkdirSync(root);
      for (const [rel, content] of Object.entries(options.files ?? {})) {
        const file = path.join(root, ...rel.split('/'));
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, content);
      }
    }
    // Plugin objects are loaded from stand-in files the kernel's loader is told to read as them.
    const objects = new Map<string, unknown>();
    const specOf = (p: Plugin | string, pluginOptions: Record<string, unknown>, n: number) => {
      if (typeof p === 'string') return { id: p, options: pluginOptions, fromDir: process.cwd(), origin: 'config' as const };
      const stand = path.join(own, `plugin-${n}.cjs`);
      fs.writeFileSync(stand, '// stands in for a plugin object given to testTools\n');
      objects.set(stand, { default: p });
      return { id: stand, options: pluginOptions, fromDir: own, origin: 'config' as const };
    };
    const underTest = typeof plugin === 'string' ? plugin : plugin.name;
    const builtins = options.builtins === undefined ? DEFAULT_BUILTINS : options.builtins === true ? BUILTIN_PLUGINS : options.builtins === false ? [] : options.builtins;
    const specs: PluginSpec[] = builtins
      .map((b) => (b.startsWith('@mcpgw/') ? b : `@mcpgw/${b}`))
      .filter((b) => b !== underTest)
      .map((id) => ({ id, options: {}, fromDir: OWN_DIR, origin: 'builtin' as const }));
    (options.plugins ?? []).forEach((entry, i) => {
      const [p, o] = Array.isArray(entry) ? entry : [entry, {}];
      specs.push(specOf(p as Plugin | string, o as Record<string, unknown>, i + 1));
    });
    specs.push(specOf(plugin, options.options ?? {}, 0));

    const logged: [keyof Logger, string, Record<string, unknown> | undefined][] = [];
    const line = (level: keyof Logger) => (message: string, fields?: Record<string, unknown>) => void logged.push([level, message, fields]);
    const log: Logger = { error: line('error'), warn: line('warn'), info: line('info'), debug: line('debug') };
    const kernel = createKernel({
      version, ownDir: OWN_DIR, log, ...(options.clock ? { clock: options.clock } : {}),
      importModule: (entry) => (objects.has(entry) ? Promise.resolve(objects.get(entry)) : importEntry(entry)),
    });
    await kernel.load(specs);
    const cache = options.cacheDir === undefined ? { cache: false } : { cacheDir: options.cacheDir };
    const config = resolveConfig({ config: { ...options.config, root, ...cache } as never, dir: own }, {}, {}, own, { ownDir: OWN_DIR });
    const schemas = new Map(kernel.offered(config).map((o) => [o.tool.name, resultSchema(o.tool, o.lenient === true)]));

    const server = kernel.serverFactory(config)();
    const client = new McpClient({ name: options.clientName ?? 'mcpgw-tool-tester', version });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    // Each message crosses as JSON text, as on a wire: what the client reads is what a client over stdio reads (a
    // `JSON.rawJSON` number arrives as a number; the in-memory pair alone would hand over the server's own objects).
    for (const side of [clientSide, serverSide]) {
      const send = side.send.bind(side);
      side.send = (message, sendOptions) => send(JSON.parse(JSON.stringify(message)), sendOptions);
    }
    await server.connect(serverSide);
    await client.connect(clientSide);
    const tools = (await client.listTools()).tools.map((t) => t.name);

    const codes: readonly string[] = ERROR_CODES;
    return {
      root, tools, client, logged,
      async call(name, args = {}, callOptions = {}) {
        const result = (await client.callTool({ name, arguments: args }, { ...(callOptions.signal ? { signal: callOptions.signal } : {}), ...(callOptions.onprogress ? { onprogress: callOptions.onprogress } : {}) })) as {
          structuredContent?: Record<string, any>; content?: { type: string; text?: string }[]; isError?: boolean;
        };
        const structuredContent = result.structuredContent ?? {};
        const text = result.content?.find((c) => c.type === 'text')?.text ?? '';
        if (result.isError === true) {
          const error = structuredContent.error as ErrorPayload | undefined;
          if (!error || typeof error.message !== 'string' || !codes.includes(error.code)) {
            throw new ToolResultMismatch(name, `error: expected { error: { code: one of ${codes.join(', ')}, message } }, got ${JSON.stringify(structuredContent).slice(0, 500)}`, result);
          }
          return { structuredContent, isError: true, text, error };
        }
        const schema = schemas.get(name);
        if (schema) {
          const checked = schema.safeParse(finite(structuredContent));
          if (!checked.success) throw new ToolResultMismatch(name, checked.error.issues.map((i) => `  ${i.path.map(String).join('.') || '(top level)'}: ${i.message}`).join('\n'), result);
        }
        return { structuredContent, isError: false, text };
      },
      async close() {
        try {
          await client.close();
          await server.close();
        } finally {
          remove(); // the tester's own folder: stand-ins and the temporary root (a given root is elsewhere)
        }
      },
    };
  } catch (err) {
    remove();
    throw err;
  }
}

/**
 * `value` with each number past a double's range (a `1e400` on the wire, ±Infinity once parsed) as the largest double
 * of its sign: still a number to the schema, as the server checks it.
 */
function finite(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value : Math.sign(value) * Number.MAX_VALUE;
  if (Array.isArray(value)) return value.map(finite);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: finite(v), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

/** A tool's result schema: its output schema, with the `warnings` a lenient bundle's results may carry. */
function resultSchema(tool: ToolDefinition, lenient: boolean): z.ZodObject {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { lenientOutput } = require('../kernel/server/lenient-schemas') as typeof import('../kernel/server/lenient-schemas');
  return lenient ? lenientOutput(tool.outputSchema as z.ZodObject) : (tool.outputSchema as z.ZodObject);
}
