/**
 * One pool of engine threads (src/engine/scan/engine-threads.ts) for scans and aggregates, with real threads: a
 * scan's threads serve the next aggregate and the next scan, the pool idles down on the (fake) clock, and a scan that
 * stops after a page leaves the pool able to serve the next one whole. The answers are counted by hand from the
 * generated file.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import { FakeClock } from '../../src/kernel/fake-clock';
import type { AggregateResult, Format, RecordSource, ScanNode } from '../../src/kernel/contracts';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { AggregateThreads, QueryScanEngine, ThreadPool } from '../../src/engine/scan';
import { engineThreads } from '../../src/engine/scan/engine-threads';
import { fileService, formatsOf } from '../helpers/formats';
import { jsonpath } from '../helpers/query';

let dir: string;
let formats: Format[];
let source: RecordSource;
// ~5 MB: batches for both threads; every 10th record is "failed"
const N = 40_000;
const line = (i: number) => `{"id":${i},"status":"${i % 10 === 0 ? 'failed' : 'ok'}","pad":"${'x'.repeat(100 + (i % 7))}"}`;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-engine-threads-'));
  formats = await formatsOf(jsonl);
  fs.writeFileSync(path.join(dir, 'shared.jsonl'), Array.from({ length: N }, (_, i) => line(i)).join('\n'));
  source = (await fileService(dir, formats).open('shared.jsonl')).source;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function setup() {
  const clock = new FakeClock();
  const threads = engineThreads({ clock, keep: 2, idleMs: 1000, onIdleDown: () => undefined });
  const plugin = { entry: require.resolve('../../plugins/query-jsonpath/dist/index.js'), options: {} };
  const pluginOf = (n: string) => (n === 'jsonpath' ? plugin : undefined);
  const eng = new QueryScanEngine({
    limits: () => DEFAULT_LIMITS, clock,
    workers: new ThreadPool({ pluginOf, threads: 2, minBytes: 0, clock, threadPool: threads }),
    aggregates: new AggregateThreads({ pluginOf, threads: 2, minBytes: 0, clock, threadPool: threads }),
  });
  return { clock, threads, eng };
}

const counts = (r: AggregateResult) => new Map(r.groups.map((g) => [g.key[0] as string, g.count]));

test('a scan, an aggregate and a scan again run on the same two threads, which idle down together', async () => {
  const { clock, threads, eng } = setup();
  const query = (await jsonpath()).compile('$[?@.status == "failed"].id');
  const scan = async () => {
    const got: ScanNode[] = [];
    const r = await eng.run({ source, query, addressing: 'file', limit: N, sink: (nodes) => { got.push(...nodes); return nodes.length; } });
    expect(r.next).toBeNull();
    return got.map((n) => n.value as number);
  };
  const failed = Array.from({ length: N / 10 }, (_, k) => k * 10);
  expect(await scan()).toEqual(failed);
  expect(threads.spawned).toBe(2);
  expect(threads.size).toBe(2);
  const r = await eng.aggregate({ source, dimensions: [{ kind: 'value', path: ['status'] }], metrics: [], order: { by: 'count', desc: true } });
  expect(counts(r)).toEqual(new Map([['ok', N - N / 10], ['failed', N / 10]]));
  expect(await scan()).toEqual(failed);
  expect(threads.spawned).toBe(2); // no thread started after the first scan's
  clock.advance(1000);
  expect(threads.size).toBe(0);
  threads.close();
}, 60_000);

test('a scan that stops after its first page leaves the pool whole: threads it left clean come back, the others are replaced', async () => {
  const { threads, eng } = setup();
  const query = (await jsonpath()).compile('$[?@.status == "ok"].id');
  const page = async (limit: number) => {
    const got: ScanNode[] = [];
    const r = await eng.run({ source, query, addressing: 'file', limit, sink: (nodes) => { got.push(...nodes); return nodes.length; } });
    return { ids: got.map((n) => n.value as number), next: r.next };
  };
  const first = await page(5);
  expect(first.ids).toEqual([1, 2, 3, 4, 5]);
  expect(first.next).toBeTruthy();
  expect(threads.size).toBeLessThanOrEqual(2);
  const all = await page(N);
  expect(all.ids).toEqual(Array.from({ length: N }, (_, i) => i).filter((i) => i % 10 !== 0));
  expect(threads.spawned).toBeGreaterThanOrEqual(2);
  expect(threads.spawned).toBeLessThanOrEqual(4);
  threads.close();
}, 60_000);
