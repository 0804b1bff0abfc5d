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
import { checkRequirements } from '../../src/kernel/plugins/requires';

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
  return registry;
}

const needs = (name: string, requires: Requirement[]): Plugin => ({ name, version: '1.0.0', apiVersion: '^2.0.0', requires, register() {} });
const provider: Plugin = {
  name: 'provider', version: '2.0.0', apiVersion: '^2.0.0',
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
  ['bundle', 'tool bundle "b"'], ['sessionSource', 'session source "b"'], ['embedder', 'embedder "b"'],
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
    'Plugin odd@1.0.0: "requires" has {"kind":"language","name":"jq"}: each entry is { kind: "format" | "queryLanguage" | "bundle" | "sessionSource" | "embedder", name, providedBy? }.',
  );
});
