/**
 * `requires` in a plugin's manifest: checked once every plugin has loaded (so order does not matter); the first unmet
 * requirement stops start-up with a PluginLoadError (the CLI exits 2) naming the plugin, what it requires and the
 * package that provides it. The same through the built CLI: test/e2e/requires.test.ts.
 */
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { container } from 'tsyringe';
import type { Plugin, Requirement } from '../../src/kernel/contracts';
import { FakeClock } from '../../src/kernel/fake-clock';
import { loadPlugins, PluginLoadError } from '../../src/kernel/plugins/loader';
import { Registry } from '../../src/kernel/plugins/registry';
import { checkExtensions, checkRequirements } from '../../src/kernel/plugins/requires';

const silent = { error() {}, warn() {}, info() {}, debug() {} };
let tmp: string;
beforeAll(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-req-')); });
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function load(plugins: Plugin[]): Promise<Registry> {
  const registry = new Registry();
  const modules = new Map<string, unknown>();
  const specs = plugins.map((p, i) => {
    const file = path.join(tmp, `r${i}-${Math.random().toString(36).slice(2)}.cjs`);
    fs.writeFileSync(file, '// stands in for a plugin module\n');
    modules.set(file, p);
    return { id: file, options: {}, fromDir: tmp, origin: 'config' as const };
  });
  await loadPlugins(specs, { registry, kernelVersion: '0.1.0', ownDir: tmp, container: container.createChildContainer(), log: silent, clock: new FakeClock(), importModule: async (e) => modules.get(e) });
  checkRequirements(registry);
  checkExtensions(registry);
  return registry;
}

const needs = (name: string, requires: Requirement[]): Plugin => ({ name, version: '1.0.0', apiVersion: '^3.0.0', requires, register() {} });
const provider: Plugin = {
  name: 'provider', version: '2.0.0', apiVersion: '^3.0.0',
  register(c) {
    c.registerQueryLanguage({ name: 'jq', compile: (text) => ({ text, evaluate: () => [] }) });
    c.registerFormat({ name: 'csv', extensions: ['.csv'], detect: () => null, open: async () => { throw new Error('unused'); } });
  },
};

async function refusal(plugins: Plugin[]): Promise<string> {
  const err = await load(plugins).then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(PluginLoadError);
  return (err as Error).message;
}

test('a missing query language stops start-up naming the plugin, the language and the package that provides it', async () => {
  expect(await refusal([needs('mcpgw-tools-x', [{ kind: 'queryLanguage', name: 'jq', providedBy: 'mcpgw-query-jq' }])])).toBe(
    'Plugin mcpgw-tools-x@1.0.0: requires query language "jq", which no loaded plugin registers. Load mcpgw-query-jq, which provides it (config "builtins" or "plugins").',
  );
});

test('without providedBy the message says to load a plugin that provides it', async () => {
  expect(await refusal([needs('x', [{ kind: 'format', name: 'parquet' }])])).toBe(
    'Plugin x@1.0.0: requires format "parquet", which no loaded plugin registers. Load a plugin that provides it (config "plugins").',
  );
});

test.each([
  ['bundle', 'tool bundle "b"'], ['extensionPoint', 'extension point "b"'], ['extension', 'extension "b"'],
] as const)('kind %s is named as %s', async (kind, words) => {
  expect(await refusal([needs('x', [{ kind, name: 'b' }])])).toContain(`requires ${words}, which no loaded plugin registers.`);
});

test('met requirements load, whatever the order of the plugins', async () => {
  const requirer = needs('requirer', [{ kind: 'queryLanguage', name: 'jq' }, { kind: 'format', name: 'csv' }]);
  expect((await load([requirer, provider])).plugins.map((p) => p.name)).toEqual(['requirer', 'provider']);
  expect((await load([provider, requirer])).plugins.map((p) => p.name)).toEqual(['provider', 'requirer']);
});

test('the plugin record lists what it requires (mcpgw plugins --json)', async () => {
  const r = await load([provider, needs('requirer', [{ kind: 'queryLanguage', name: 'jq', providedBy: 'provider' }])]);
  expect(r.plugins[1]!.requires).toEqual([{ kind: 'queryLanguage', name: 'jq', providedBy: 'provider' }]);
  expect(r.plugins[0]!).not.toHaveProperty('requires');
});

test('a malformed requires is refused as such', async () => {
  const bad = { ...needs('odd', []), requires: [{ kind: 'language', name: 'jq' }] } as unknown as Plugin;
  expect(await refusal([bad])).toBe(
    'Plugin odd@1.0.0: "requires" has {"kind":"language","name":"jq"}: each entry is { kind: "format" | "queryLanguage" | "bundle" | "extensionPoint" | "extension", name, providedBy? }.',
  );
});

describe('extension points: a plugin defines one, any plugin provides to it, checked once all have loaded', () => {
  interface Greeter { readonly name: string; greet(who: string): string }
  const host = (seen: string[][] = []): Plugin => ({
    name: 'host', version: '1.0.0', apiVersion: '^3.0.0',
    register(c) {
      c.defineExtensionPoint<Greeter>({
        name: 'greeter', noun: 'greeter',
        check: (g) => (typeof g.greet === 'function' ? undefined : 'needs greet().'),
        complete: (items) => void seen.push(items.map((g) => g.name)) ?? undefined,
      });
      c.provide<Greeter>('greeter', { name: 'plain', greet: (w) => `hello ${w}` });
    },
  });
  const guest = (item: object): Plugin => ({ name: 'guest', version: '1.0.0', apiVersion: '^3.0.0', register(c) { c.provide('greeter', item as Greeter); } });

  test('items come in the order provided, from a plugin loaded before the one that defines the point too', async () => {
    const seen: string[][] = [];
    const registry = await load([guest({ name: 'loud', greet: (w: string) => `HELLO ${w}` }), host(seen)]);
    const items = registry.view().extensions<Greeter>('greeter');
    expect(items.list().map((g) => g.greet('you'))).toEqual(['HELLO you', 'hello you']);
    expect(items.get('plain')!.greet('me')).toBe('hello me');
    expect(registry.view().extensions('nothing').list()).toEqual([]);
    expect(seen).toEqual([['loud', 'plain']]);
    expect(registry.plugins.map((p) => [p.name, p.extensionPoints, p.provides])).toEqual([['guest', undefined, { greeter: ['loud'] }], ['host', ['greeter'], { greeter: ['plain'] }]]);
  });

  test('an item for a point no loaded plugin defines stops start-up naming the point', async () => {
    expect(await refusal([guest({ name: 'loud', greet: () => '' })])).toBe(
      'Plugin guest@1.0.0: provides "loud" to extension point "greeter", which no loaded plugin defines. Load the plugin that defines it (config "builtins" or "plugins").',
    );
  });

  test('an item the point\'s check refuses stops start-up naming the plugin that provided it', async () => {
    expect(await refusal([host(), guest({ name: 'mute' })])).toBe('Plugin guest@1.0.0: greeter "mute": needs greet().');
  });

  test('two items of one name, or two points of one name, are a conflict naming both plugins', async () => {
    expect(await refusal([host(), guest({ name: 'plain', greet: () => '' })])).toBe('Plugin guest@1.0.0: Plugin guest registers greeter "plain", which plugin host already registered.');
    const rival: Plugin = { name: 'rival', version: '1.0.0', apiVersion: '^3.0.0', register(c) { c.defineExtensionPoint({ name: 'greeter', noun: 'greeter' }); } };
    expect(await refusal([host(), rival])).toBe('Plugin rival@1.0.0: Plugin rival registers extension point "greeter", which plugin host already registered.');
  });

  test('requires of kind extensionPoint and extension are met by a point and by an item', async () => {
    const r = await load([needs('user', [{ kind: 'extensionPoint', name: 'greeter' }, { kind: 'extension', name: 'greeter:plain' }]), host()]);
    expect(r.plugins.map((p) => p.name)).toEqual(['user', 'host']);
    expect(await refusal([needs('user', [{ kind: 'extension', name: 'greeter:loud' }]), host()])).toContain('requires extension "greeter:loud", which no loaded plugin registers.');
  });
});
