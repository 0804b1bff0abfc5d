/**
 * The public plugin API (src/plugin-api/index.ts) and the loader's handling of what third-party
 * plugins do wrong: an apiVersion outside the kernel's, bad options (named by plugin and key), a
 * register() that throws or rejects, two plugins claiming one format / query language / bundle /
 * tool name, malformed contributions. Plugin modules are injected (`importModule`) so that every
 * case runs in-process; the same paths through real ESM/CommonJS files and the built CLI are in
 * test/e2e/cli-plugins.test.ts and test/e2e/third-party*.test.ts.
 */
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { container } from 'tsyringe';
import { z } from 'zod';
import * as kit from '../../src/plugin-kit/index';
import { definePlugin, PLUGIN_API_VERSION } from '../../src/plugin-kit/index';
import type { Format, Plugin, QueryLanguage, ToolDefinition } from '../../src/plugin-api/index';
import { loadPlugins, PluginLoadError, type PluginSpec } from '../../src/kernel/plugins/loader';
import { Registry } from '../../src/kernel/plugins/registry';
import { McpgwError } from '../../src/kernel/errors';
import { FakeClock } from '../../src/kernel/fake-clock';

const silent = { error() {}, warn() {}, info() {}, debug() {} };
let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-api-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Loads `plugins` (each as if from its own file) with `options` per index; returns the registry. */
async function load(plugins: unknown[], options: Record<number, Record<string, unknown>> = {}): Promise<Registry> {
  const modules = new Map<string, unknown>();
  const specs: PluginSpec[] = plugins.map((mod, i) => {
    const file = path.join(tmp, `p${i}-${Math.random().toString(36).slice(2)}.cjs`);
    fs.writeFileSync(file, '// stands in for a plugin module\n');
    modules.set(file, mod);
    return { id: file, options: options[i] ?? {}, fromDir: tmp, origin: 'config' };
  });
  const registry = new Registry();
  await loadPlugins(specs, {
    registry,
    kernelVersion: '0.1.0',
    ownDir: tmp,
    container: container.createChildContainer(),
    log: silent,
    clock: new FakeClock(),
    importModule: async (entry) => modules.get(entry),
  });
  return registry;
}

async function loadError(plugins: unknown[], options: Record<number, Record<string, unknown>> = {}): Promise<PluginLoadError> {
  try {
    await load(plugins, options);
  } catch (err) {
    expect(err).toBeInstanceOf(PluginLoadError);
    return err as PluginLoadError;
  }
  throw new Error('expected the load to fail');
}

const format = (name: string): Format => ({ name, extensions: [`.${name}`], detect: () => null, open: async () => { throw new Error('unused'); } });
const language = (name: string): QueryLanguage => ({ name, compile: (text) => ({ text, evaluate: () => [] }) });
const tool = (name: string): ToolDefinition => ({
  name, title: name, description: `The ${name} tool.`, inputSchema: z.object({}), outputSchema: z.object({ ok: z.boolean() }), handler: () => ({ ok: true }),
});
const plugin = (name: string, register: Plugin['register'], extra: Partial<Plugin> = {}): Plugin => ({ name, version: '1.2.3', apiVersion: '^3.0.0', register, ...extra });

describe('mcpgw/plugin-kit', () => {
  test('holds the runtime members a plugin needs: the API version, error codes, DI tokens, definePlugin, compareNumerals, pointers and test helpers', () => {
    expect(PLUGIN_API_VERSION).toBe('3.3.0');
    expect(Object.keys(kit).sort()).toEqual(['ERROR_CODES', 'FakeClock', 'PLUGIN_API_VERSION', 'PointerSyntaxError', 'Tokens', 'appendToken', 'compareNumerals', 'definePlugin', 'escapeToken', 'formatPointer', 'libraryNumbers', 'parseExactJson', 'parsePointer', 'registerPlugin', 'testTools', 'unescapeToken']);
    expect(kit.compareNumerals('1e400', '1e401')).toBe(-1);
    expect(kit.ERROR_CODES).toContain('QUERY_SYNTAX_ERROR');
    expect(kit.Tokens.Registry).toBe('mcpgw:registry');
  });

  test('definePlugin returns its argument unchanged (it exists for type checking only)', () => {
    const options = z.strictObject({ greeting: z.string().default('hi') });
    const p = { name: 'x', version: '1.0.0', apiVersion: '^3.0.0', options, register: () => {} };
    expect(definePlugin(p)).toBe(p);
  });

  test('a plugin made with definePlugin loads and gets its options parsed by its own schema (defaults applied)', async () => {
    const seen: unknown[] = [];
    const p = definePlugin({
      name: 'greeter', version: '1.0.0', apiVersion: '^3.0.0',
      options: z.strictObject({ greeting: z.string().default('hello'), times: z.number().int().min(1) }),
      register(registry, options) {
        seen.push(options);
        registry.registerToolBundle({ name: 'greet', tools: [tool('greet_hello')] });
      },
    });
    const registry = await load([p], { 0: { times: 2 } });
    expect(seen).toEqual([{ greeting: 'hello', times: 2 }]);
    expect(registry.plugins).toEqual([
      { name: 'greeter', version: '1.0.0', apiVersion: '^3.0.0', source: expect.stringContaining(tmp), formats: [], queryLanguages: [], bundles: ['greet'], tools: ['greet_hello'] },
    ]);
  });
});

describe('apiVersion', () => {
  test.each([['^4.0.0'], ['~0.9.0'], ['>=3.4.0']])('%s does not include the kernel\'s 3.3.0: refused naming both versions', async (range) => {
    const err = await loadError([plugin('future', () => {}, { apiVersion: range })]);
    expect(err.message).toBe(
      `Plugin future@1.2.3: is built for plugin API ${range}, but this mcpgw 0.1.0 provides plugin API 3.3.0. Install a version of the plugin that supports plugin API 3.3.0.`,
    );
  });

  const API_3 = 'Plugin API 3 changed: mcpgw/plugin-api is types only: import definePlugin, the pointer helpers, compareNumerals, ERROR_CODES, Tokens, FakeClock and '
    + 'registerPlugin from mcpgw/plugin-kit; the JSON walker, byte search, marked text, WebAssembly encoding, path-token rules and '
    + 'emptyAnswerHint are no longer exports but services on context.toolkit; tool results are checked against their outputSchema';

  test.each([['^2.0.0'], ['^2.11.0'], ['2.x']])('%s (a plugin for plugin API 2): refused saying what plugin API 3 changed', async (range) => {
    const err = await loadError([plugin('two', () => {}, { apiVersion: range })]);
    expect(err.message).toBe(
      `Plugin two@1.2.3: is built for plugin API ${range}; this mcpgw 0.1.0 provides plugin API 3.3.0. ${API_3}. `
      + 'Install a version of the plugin built for plugin API 3, or see docs/plugin-api-changelog.md "3.0.0".',
    );
  });

  test.each([['^1.0.0'], ['1.x'], ['>=1.0.0 <2']])('%s (a plugin for plugin API 1): refused saying what plugin API 2 changed', async (range) => {
    const err = await loadError([plugin('old', () => {}, { apiVersion: range })]);
    expect(err.message).toBe(
      `Plugin old@1.2.3: is built for plugin API ${range}; this mcpgw 0.1.0 provides plugin API 3.3.0, which refuses 1.x plugins. `
      + 'Plugin API 2 changed: register() now receives a PluginContext (was PluginRegistry) whose container is mcpgw\'s own Container; '
      + 'tools read ctx.registry (was ctx.registries) and ctx.clock, and ctx.session is private to their bundle; a plugin may declare what it needs in `requires`; a record source reads batches() (was scan()) and states its rootType (fileType left the kernel contracts)'
      + `; plugin API 3: ${API_3.slice('Plugin API 3 changed: '.length)}. `
      + 'Install a version of the plugin built for plugin API 3, or see docs/plugin-api-changelog.md.',
    );
  });

  test.each([['^3.0.0'], ['3.x'], ['>=1.0.0'], ['*']])('%s includes 3.0.0: loads', async (range) => {
    const registry = await load([plugin('ok', () => {}, { apiVersion: range })]);
    expect(registry.plugins.map((p) => p.name)).toEqual(['ok']);
  });

  test('an apiVersion that is no semver range is refused as such', async () => {
    const err = await loadError([plugin('odd', () => {}, { apiVersion: 'latest' })]);
    expect(err.message).toBe('Plugin odd@1.2.3: apiVersion "latest" is not a semver range.');
  });
});

describe('options', () => {
  const withOptions = plugin('@acme/csv', () => {}, {
    options: z.strictObject({ delimiter: z.string().length(1), header: z.object({ row: z.number().int() }).optional() }) as Plugin['options'],
  });

  test('bad options name the plugin and each key with what was expected', async () => {
    const err = await loadError([withOptions], { 0: { delimiter: ';;', header: { row: 'one' }, extra: 1 } });
    expect(err.message).toMatch(/^Plugin @acme\/csv@1\.2\.3: invalid options: /);
    expect(err.message).toMatch(/delimiter: Too big: expected string to have exactly 1 characters/);
    expect(err.message).toMatch(/header\.row: Invalid input: expected number, received string/);
    expect(err.message).toMatch(/; extra: unknown option$/);
  });

  test('a plugin without a schema gets the options as written', async () => {
    const got: unknown[] = [];
    await load([plugin('raw', (_r, o) => void got.push(o))], { 0: { any: ['thing'] } });
    expect(got).toEqual([{ any: ['thing'] }]);
  });
});

describe('register()', () => {
  test('throwing an Error: start-up stops naming the plugin and the message', async () => {
    const err = await loadError([plugin('boom', () => { throw new Error('no licence key'); })]);
    expect(err.message).toBe('Plugin boom@1.2.3: register() failed: no licence key');
  });

  test('rejecting asynchronously, or throwing a non-Error, is reported the same way', async () => {
    expect((await loadError([plugin('later', async () => { await Promise.resolve(); throw new Error('wasm failed to instantiate'); })])).message)
      .toBe('Plugin later@1.2.3: register() failed: wasm failed to instantiate');
    expect((await loadError([plugin('str', () => { throw 'just a string'; })])).message).toBe('Plugin str@1.2.3: register() failed: just a string');
  });

  test('throwing a catalogue error made with registry.error keeps its message', async () => {
    const err = await loadError([plugin('cat', (r) => { throw r.error('INVALID_ARGUMENT', 'bad setup'); })]);
    expect(err.message).toBe('Plugin cat@1.2.3: register() failed: bad setup');
  });

  test('registry.error makes McpgwErrors; the registry carries the API and kernel versions', async () => {
    let made: unknown;
    let versions: string[] = [];
    await load([plugin('probe', (r) => { made = r.error('NOT_FOUND', 'x', { hint: 'y' }); versions = [r.apiVersion, r.kernelVersion]; })]);
    expect(made).toBeInstanceOf(McpgwError);
    expect(made).toMatchObject({ code: 'NOT_FOUND', message: 'x' });
    expect(versions).toEqual(['3.3.0', '0.1.0']);
  });
});

describe('two plugins claiming one name: refused naming both', () => {
  test('a format', async () => {
    const err = await loadError([plugin('csv-a', (r) => r.registerFormat(format('csv'))), plugin('csv-b', (r) => r.registerFormat(format('csv')))]);
    expect(err.message).toBe('Plugin csv-b@1.2.3: Plugin csv-b registers format "csv", which plugin csv-a already registered.');
  });

  test('a query language', async () => {
    const err = await loadError([plugin('jq-a', (r) => r.registerQueryLanguage(language('jq'))), plugin('jq-b', (r) => r.registerQueryLanguage(language('jq')))]);
    expect(err.message).toBe('Plugin jq-b@1.2.3: Plugin jq-b registers query language "jq", which plugin jq-a already registered.');
  });

  test('a tool name, in bundles of different names', async () => {
    const err = await loadError([
      plugin('one', (r) => r.registerToolBundle({ name: 'b1', tools: [tool('peek')] })),
      plugin('two', (r) => r.registerToolBundle({ name: 'b2', tools: [tool('other'), tool('peek')] })),
    ]);
    expect(err.message).toBe('Plugin two@1.2.3: Plugin two registers tool "peek", which plugin one already registered.');
  });

  test('a bundle name', async () => {
    const err = await loadError([
      plugin('one', (r) => r.registerToolBundle({ name: 'peek', tools: [tool('a')] })),
      plugin('two', (r) => r.registerToolBundle({ name: 'peek', tools: [tool('b')] })),
    ]);
    expect(err.message).toBe('Plugin two@1.2.3: Plugin two registers tool bundle "peek", which plugin one already registered.');
  });

  test('a plugin name', async () => {
    const err = await loadError([plugin('same', () => {}), plugin('same', () => {})]);
    expect(err.message).toBe('Plugin same@1.2.3: a plugin named same is already loaded.');
  });

  test('one bundle with two tools of one name', async () => {
    const err = await loadError([plugin('twice', (r) => r.registerToolBundle({ name: 'b', tools: [tool('t'), tool('t')] }))]);
    expect(err.message).toBe('Plugin twice@1.2.3: tool bundle b has two tools named "t".');
  });
});

describe('malformed contributions and modules', () => {
  test('a format without open(), an invalid tool name, an overlong description', async () => {
    expect((await loadError([plugin('f', (r) => r.registerFormat({ name: 'x', extensions: [], detect: () => null } as unknown as Format))])).message)
      .toBe('Plugin f@1.2.3: registerFormat() needs { name, extensions, detect(), open() }.');
    expect((await loadError([plugin('t', (r) => r.registerToolBundle({ name: 'b', tools: [tool('has space')] }))])).message)
      .toBe('Plugin t@1.2.3: tool name "has space" is not a valid MCP tool name.');
    expect((await loadError([plugin('d', (r) => r.registerToolBundle({ name: 'b', tools: [{ ...tool('long'), description: 'x'.repeat(2000) }] }))])).message)
      .toBe('Plugin d@1.2.3: tool long\'s description must be under 2,000 characters.');
  });

  test('a module whose default export lacks the contract names what is missing', async () => {
    const err = await loadError([{ default: { name: 'half', version: '1.0.0', apiVersion: '^3.0.0' } }]);
    expect(err.message).toContain('does not export a plugin: "register" is not a function.');
  });

  test('CommonJS compiled from ESM syntax (module.exports = { default: plugin }) loads', async () => {
    const registry = await load([{ default: { default: plugin('cjs-esm', (r) => r.registerQueryLanguage(language('cjsq'))) } }]);
    expect(registry.plugins[0]).toMatchObject({ name: 'cjs-esm', queryLanguages: ['cjsq'] });
  });
});
