/**
 * A query language plugin's fault and log lines on the engine's worker threads (docs/architecture.md
 * "Isolation and blame"): its crash reaches the main thread with the thread's stack, so the plugin on it is blamed,
 * and its `context.log` lines reach the server's log, tagged `thread: true`, for scans and for aggregates' `where`
 * (with the loader's own debug line for the thread's load). The fixture (test/fixtures/plugins/faulty-language.cjs)
 * logs a warning and an error, then throws a TypeError, on a record holding "boom". Uses the BUILT worker scripts
 * (dist/): `npx tsc -b` (jest's global setup does it).
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
import { AggregateThreads } from '../../src/engine/scan/aggregate-threads';
import { fileService, formatsOf } from '../helpers/formats';

const FIXTURE = path.resolve(__dirname, '..', 'fixtures', 'plugins', 'faulty-language.cjs');
const silent = { error() {}, warn() {}, info() {}, debug() {} };
let dir: string;
let registry: Registry;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-thread-blame-'));
  fs.writeFileSync(path.join(dir, 'r.jsonl'), '{"id":1}\n{"id":2,"boom":true}\n{"id":3}\n');
  registry = new Registry();
  await loadPlugin({ id: FIXTURE, options: {}, fromDir: dir, origin: 'config' }, {
    registry, kernelVersion: 'test', ownDir: dir, container: container.createChildContainer(), log: silent, clock: new FakeClock(),
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    importModule: async (entry) => require(entry),
  });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The server's log as lines `level message fields`. */
function logInto(lines: string[]) {
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

async function failure(run: (engine: QueryScanEngine, source: Awaited<ReturnType<ReturnType<typeof fileService>['open']>>['source']) => Promise<unknown>, engine: QueryScanEngine) {
  const opened = await fileService(dir, await formatsOf(jsonl)).open('r.jsonl');
  try {
    await run(engine, opened.source);
  } catch (err) {
    return err as Error & { code?: string };
  } finally {
    opened.close();
  }
  throw new Error('the run did not fail');
}

test('a scan on threads: the crash keeps the plugin\'s stack; its warn and error lines reach the log', async () => {
  const lines: string[] = [];
  const pool = new ThreadPool({ pluginOf: (n) => registry.queryLanguagePlugin(n), threads: 1, minBytes: 0, log: logInto(lines) });
  const engine = new QueryScanEngine({ limits: () => DEFAULT_LIMITS, workers: pool });
  const query = registry.queryLanguages.get('faulty')!.item.compile('any');
  const err = await failure((e, source) => e.run({ source, query, addressing: 'record' }), engine);
  expect(err.code).toBe('INTERNAL_ERROR');
  expect(err.message).toBe("Cannot read properties of undefined (reading 'nodes')");
  expect(err.stack).toMatch(/^TypeError: Cannot read properties of undefined \(reading 'nodes'\)\n {4}at .*faulty-language\.cjs/);
  expect(registry.blame.of(err)).toBe('acme-faulty-language');
  expect(lines.filter((l) => !l.startsWith('debug '))).toEqual([
    'warn about to fail {"plugin":"acme-faulty-language","main":false,"thread":true}',
    'error failing on a record {"plugin":"acme-faulty-language","id":2,"thread":true}',
  ]);
});

test('an aggregate\'s where on threads: the same', async () => {
  const lines: string[] = [];
  const aggregates = new AggregateThreads({ pluginOf: (n) => registry.queryLanguagePlugin(n), threads: 1, minBytes: 0, log: logInto(lines) });
  const engine = new QueryScanEngine({ limits: () => DEFAULT_LIMITS, aggregates });
  const query = registry.queryLanguages.get('faulty')!.item.compile('any');
  const err = await failure((e, source) => e.aggregate({ source, where: { query, as: 'select' }, dimensions: [], metrics: [], order: { by: 'count', desc: true } }), engine);
  expect(err.code).toBe('INTERNAL_ERROR');
  expect(err.stack).toMatch(/\n {4}at .*faulty-language\.cjs/);
  expect(registry.blame.of(err)).toBe('acme-faulty-language');
  expect(lines.filter((l) => !l.startsWith('debug '))).toEqual([
    'warn about to fail {"plugin":"acme-faulty-language","main":false,"thread":true}',
    'error failing on a record {"plugin":"acme-faulty-language","id":2,"thread":true}',
  ]);
});
