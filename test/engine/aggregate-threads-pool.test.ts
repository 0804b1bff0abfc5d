/**
 * Aggregates on pooled worker threads (src/engine/scan/aggregate-threads.ts over idle-workers.ts), with real threads:
 * the threads of one aggregate serve the next and idle down on the (fake) clock, then the owner is told (onIdleDown);
 * the record check's WebAssembly module is compiled once on this thread and sent to the threads with each job; a
 * thread that dies in the middle of an aggregate gives an error, not a hang nor a partial answer, and is not reused.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import jsonl from '../../plugins/format-jsonl/src/index';
import { FakeClock } from '../../src/kernel/fake-clock';
import type { AggregateOptions, AggregateResult, Format, RecordSource } from '../../src/kernel/contracts';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { slotPlan } from '../../src/engine/aggregate/extract';
import { SimdRecordCheck } from '../../src/engine/aggregate/check-simd';
import { AggregateThreads, QueryScanEngine } from '../../src/engine/scan';
import { fileService, formatsOf } from '../helpers/formats';

let dir: string;
let formats: Format[];
let source: RecordSource;
// ~5.6 MB: several 1 MiB slices for each of two threads; record 777 is malformed (skipped and reported).
const N = 40_000;
const STATUSES = ['ok', 'failed', 'done', 'retry', 'ok'];
const line = (i: number) => (i === 777 ? '{"id":777,"status":"ok"' : `{"id":${i},"status":${JSON.stringify(STATUSES[i % 5])},"pad":"${'x'.repeat(100 + (i % 7))}"}`);
const expected = new Map<string, number>();
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-aggregate-pool-'));
  formats = await formatsOf(jsonl);
  fs.writeFileSync(path.join(dir, 'pool.jsonl'), Array.from({ length: N }, (_, i) => line(i)).join('\n'));
  fs.writeFileSync(path.join(dir, 'one-slice.jsonl'), Array.from({ length: 100 }, (_, i) => line(i)).join('\n'));
  source = (await fileService(dir, formats).open('pool.jsonl')).source;
  for (let i = 0; i < N; i++) if (i !== 777) expected.set(STATUSES[i % 5]!, (expected.get(STATUSES[i % 5]!) ?? 0) + 1);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const byStatus: AggregateOptions['dimensions'] = [{ kind: 'value', path: ['status'] }];
const spec = (): AggregateOptions => ({ source, dimensions: byStatus, metrics: [], order: { by: 'count', desc: true } });
const counts = (r: AggregateResult) => new Map(r.groups.map((g) => [g.key[0] as string, g.count]));

/** Threads whose jobs and starts are recorded; `die`: threads started while it is set are stand-ins that fail. */
class SpyThreads extends AggregateThreads {
  jobs: { check: unknown }[] = [];
  die: string | null = null;
  /** Messages stand-ins posted to this thread on their parent port. */
  said: unknown[] = [];
  protected override spawn(): Worker {
    const worker = this.die ? new Worker(this.die, { eval: true }) : super.spawn();
    if (this.die) worker.on('message', (m) => this.said.push(m));
    const post = worker.postMessage.bind(worker);
    worker.postMessage = (m: { type: string; init?: { check: unknown } }, transfer?: readonly unknown[]) => {
      if (m.type === 'job') this.jobs.push({ check: m.init!.check });
      post(m, transfer as never);
    };
    worker.unref();
    return worker;
  }
}

function setup(clock = new FakeClock()) {
  const idleDowns: number[] = [];
  const pool: SpyThreads = new SpyThreads({ pluginOf: () => undefined, threads: 2, minBytes: 0, clock, idleMs: 1000, onIdleDown: () => idleDowns.push(pool.pool.size) });
  return { pool, clock, idleDowns, eng: new QueryScanEngine({ limits: () => DEFAULT_LIMITS, aggregates: pool }) };
}

test('the threads of one aggregate serve the next, and are let go idleMs after it on the clock', async () => {
  const { pool, clock, eng, idleDowns } = setup();
  for (let k = 0; k < 3; k++) {
    const r = await eng.aggregate(spec());
    expect(counts(r)).toEqual(expected);
    expect(r).toMatchObject({ recordsScanned: N, recordsMatched: N - 1, complete: true });
    expect(r.skipped).toBe(1);
  }
  expect(pool.pool.spawned).toBe(2);
  expect(pool.jobs).toHaveLength(6);
  expect(pool.pool.size).toBe(2);
  // once the threads are gone, a collection frees what the aggregates left here (their shared buffers)
  clock.advance(999);
  expect(pool.pool.size).toBe(2);
  expect(idleDowns).toEqual([]);
  clock.advance(1);
  expect(pool.pool.size).toBe(0);
  expect(idleDowns).toEqual([0]); // called once, with no thread left
  // the next aggregate starts threads again, with the same answer
  expect(counts(await eng.aggregate(spec()))).toEqual(expected);
  expect(pool.pool.spawned).toBe(4);
  pool.pool.close();
}, 60_000);

test('the record check is compiled once on this thread and sent to every thread with its job', async () => {
  const { pool, eng } = setup();
  await eng.aggregate(spec());
  await eng.aggregate(spec());
  const module = SimdRecordCheck.module(slotPlan([['status']], DEFAULT_LIMITS.maxDepth));
  expect(module).toBeInstanceOf(WebAssembly.Module);
  expect(pool.jobs).toHaveLength(4);
  for (const j of pool.jobs) expect(j.check).toBe(module);
  pool.pool.close();
}, 60_000);

/**
 * A stand-in thread: answers its job's first slice as done with nothing counted (a wrong partial answer, were it
 * used), then exits with code 7 on the next.
 */
const DIES_MID_SCAN = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => {
  if (m.type !== 'job') return;
  const port = m.init.port;
  let slices = 0;
  port.on('message', (b) => {
    if (b.type !== 'batch') return;
    if (++slices === 2) process.exit(7);
    port.postMessage({ type: 'done', seq: b.seq, stats: { scanned: b.count, matched: 0, units: 0, skipped: 0, firstSkipped: [], loneSurrogates: 0 } });
  });
  port.postMessage({ type: 'ready' });
});`;

test('a thread that dies in the middle of an aggregate gives INTERNAL_ERROR (no hang, no partial answer) and is not reused', async () => {
  const { pool, eng } = setup();
  pool.die = DIES_MID_SCAN;
  await expect(eng.aggregate(spec())).rejects.toMatchObject({ code: 'INTERNAL_ERROR', message: expect.stringMatching(/exit code 7/) });
  // threads that did not fail may be kept; the dead ones are gone, and the next aggregate is whole again
  pool.die = null;
  const r = await eng.aggregate(spec());
  expect(counts(r)).toEqual(expected);
  expect(r.recordsMatched).toBe(N - 1);
  pool.pool.close();
}, 60_000);

/** A stand-in thread that answers every slice with a failure of its own at once, then says so on its parent port. */
const FAILS_EACH_SLICE = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => {
  if (m.type !== 'job') return;
  const port = m.init.port;
  port.on('message', (b) => {
    if (b.type === 'batch') {
      port.postMessage({ type: 'fatal', code: 'IO_ERROR', message: 'the stand-in fails slice ' + b.seq });
      parentPort.postMessage('failed');
    }
    if (b.type === 'end') port.close();
  });
  port.postMessage({ type: 'ready' });
});`;

test('a thread that fails its slice while the engine reads on gives that error, never a hang', async () => {
  const { pool, eng } = setup();
  pool.die = FAILS_EACH_SLICE;
  // One slice's worth of records, whose batches end only once the failure has come (while the engine waits for them).
  const inner = (await fileService(dir, formats).open('one-slice.jsonl')).source;
  const turn = () => new Promise((r) => setImmediate(r));
  const slow: RecordSource = {
    format: inner.format, count: inner.count, rootIsSequence: inner.rootIsSequence, identity: inner.identity,
    raw: (i) => inner.raw(i), text: (i) => inner.text(i), value: (i, w) => inner.value(i, w), location: (i) => inner.location(i),
    batches: (o) => (async function* () {
      yield* inner.batches(o);
      while (!pool.said.includes('failed')) await turn();
      for (let k = 0; k < 20; k++) await turn();
    })(),
  };
  await expect(eng.aggregate({ ...spec(), source: slow })).rejects.toMatchObject({ code: 'IO_ERROR', message: 'the stand-in fails slice 0' });
  pool.die = null;
  expect(counts(await eng.aggregate(spec()))).toEqual(expected);
  pool.pool.close();
}, 60_000);

test('a thread that dies between aggregates is not handed to the next one', async () => {
  const { pool, eng } = setup();
  await eng.aggregate(spec());
  expect(pool.pool.size).toBe(2);
  const [w] = pool.pool.take(1) as [Worker];
  pool.pool.give(w);
  await w.terminate();
  expect(pool.pool.size).toBe(1);
  expect(counts(await eng.aggregate(spec()))).toEqual(expected);
  expect(pool.pool.spawned).toBe(3);
  pool.pool.close();
}, 60_000);
