/**
 * Worker threads get a plugin as it was configured: the scan engine's threads load a query language's plugin through
 * the kernel's loader with the options from the config, validated by the plugin's own schema, so a third-party
 * language evaluates on a thread exactly as on the main thread. Uses the BUILT worker script (dist/): `npx tsc -b`.
 */
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { container } from 'tsyringe';
import jsonl from '../../plugins/format-jsonl/src';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { FakeClock } from '../../src/kernel/fake-clock';
import { loadPlugin } from '../../src/kernel/plugins/loader';
import { Registry } from '../../src/kernel/plugins/registry';
import { QueryScanEngine, ThreadPool } from '../../src/engine/scan';
import { fileService, formatsOf } from '../helpers/formats';

const FIXTURE = path.resolve(__dirname, '..', 'fixtures', 'plugins', 'query-options.cjs');
const silent = { error() {}, warn() {}, info() {}, debug() {} };
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-wopts-'));
  fs.writeFileSync(path.join(dir, 'r.jsonl'), '{"id":1}\n{"id":2}\n{"id":3}\n');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The registry after loading the fixture with `options` as a config would give them. */
async function registryWith(options: Record<string, unknown>): Promise<Registry> {
  const registry = new Registry();
  await loadPlugin({ id: FIXTURE, options, fromDir: dir, origin: 'config' }, {
    registry, kernelVersion: 'test', ownDir: dir, container: container.createChildContainer(), log: silent, clock: new FakeClock(),
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    importModule: async (entry) => require(entry),
  });
  return registry;
}

async function scan(registry: Registry, threaded: boolean) {
  const source = (await fileService(dir, await formatsOf(jsonl)).open('r.jsonl')).source;
  const query = registry.queryLanguages.get('tagged')!.item.compile('records');
  const engine = new QueryScanEngine({
    limits: () => DEFAULT_LIMITS,
    ...(threaded ? { workers: new ThreadPool({ pluginOf: (n) => registry.queryLanguagePlugin(n), threads: 2, minBytes: 0 }) } : {}),
  });
  try {
    return (await engine.run({ source, query, addressing: 'record' })).nodes.map((n) => ({ record: n.record, value: JSON.parse(JSON.stringify(n.value)) }));
  } finally {
    source.close();
  }
}

test('the registry stamps the language name on a compiled query that lacks it, so the engine can send it to a thread', async () => {
  const registry = await registryWith({});
  const query = registry.queryLanguages.get('tagged')!.item.compile('x');
  expect(query.language).toBe('tagged');
  expect(registry.queryLanguagePlugin('tagged')).toEqual({ entry: FIXTURE, options: {} });
  expect(new ThreadPool({ pluginOf: (n) => registry.queryLanguagePlugin(n) }).wanted(10, query)).toBe(true);
});

test('a third-party language with options, scanned on worker threads, sees its validated options (as on the main thread)', async () => {
  const registry = await registryWith({ tag: 'configured' });
  const expected = [1, 2, 3].map((id, i) => ({ record: i, value: { tag: 'CONFIGURED', record: { id } } }));
  const onThreads = await scan(registry, true);
  const onMain = await scan(registry, false);
  expect(onThreads).toEqual(expected.map((n) => ({ ...n, value: { ...n.value, main: false } })));
  expect(onMain).toEqual(expected.map((n) => ({ ...n, value: { ...n.value, main: true } })));
});

test('without options the plugin\'s defaults apply on the threads too', async () => {
  const registry = await registryWith({});
  expect((await scan(registry, true)).map((n) => n.value.tag)).toEqual(['DEFAULT', 'DEFAULT', 'DEFAULT']);
});
