/**
 * The scan engine reads its deadline on the kernel's clock: with a FakeClock that moves 1 ms per evaluated record, a
 * page stops at the first deadline check past the deadline (every 256 records inside a batch), and the next page
 * continues exactly there. The semaphore's wait for a scan slot runs on the same clock.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import { FakeClock } from '../../src/kernel/fake-clock';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import type { CompiledQuery, RecordSource } from '../../src/kernel/contracts';
import { QueryScanEngine } from '../../src/engine/scan';
import { fileService, formatsOf } from '../helpers/formats';

let dir: string;
let source: RecordSource;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-scan-clock-'));
  fs.writeFileSync(path.join(dir, 'n.jsonl'), Array.from({ length: 1000 }, (_, i) => `{"i":${i}}\n`).join(''));
  source = (await fileService(dir, await formatsOf(jsonl)).open('n.jsonl')).source;
});
afterAll(() => { source.close(); fs.rmSync(dir, { recursive: true, force: true }); });

/** A query selecting each record whose evaluation takes 1 ms on `clock`. */
const slowQuery = (clock: FakeClock): CompiledQuery => ({ text: 'each', evaluate: (v) => { clock.advance(1); return [{ path: '', value: v }]; } });

test('a page stops at the first check past the deadline on the fake clock; pages add up to every record', async () => {
  const clock = new FakeClock();
  const engine = new QueryScanEngine({ limits: () => DEFAULT_LIMITS, clock });
  const first = await engine.run({ source, query: slowQuery(clock), addressing: 'record', deadline: clock.now() + 300 });
  expect(first.complete).toBe(false);
  // checks fall on records 256 and 512: 256 ms had passed at the first (< 300), 512 at the second
  expect(first.next).toEqual({ record: 512, node: 0 });
  expect(first.nodes.map((n) => n.record)).toEqual([...Array(512).keys()]);
  const rest = await engine.run({ source, query: slowQuery(clock), addressing: 'record', resume: first.next!, deadline: clock.now() + 10_000 });
  expect(rest.complete).toBe(true);
  expect(rest.nodes.map((n) => n.record)).toEqual([...Array(488).keys()].map((k) => 512 + k));
});

test('the same scan with a deadline far away on the fake clock finishes in one page', async () => {
  const clock = new FakeClock();
  const engine = new QueryScanEngine({ limits: () => DEFAULT_LIMITS, clock });
  const all = await engine.run({ source, query: slowQuery(clock), addressing: 'record', deadline: clock.now() + 1001 });
  expect(all.complete).toBe(true);
  expect(all.nodes).toHaveLength(1000);
});

test('a scan waiting for a slot gives up at its deadline on the fake clock, not before', async () => {
  const clock = new FakeClock();
  const engine = new QueryScanEngine({ limits: () => ({ ...DEFAULT_LIMITS, maxConcurrentScans: 1 }), clock });
  let release!: () => void;
  const blocker: CompiledQuery = { text: 'block', evaluate: () => [] };
  const busy = new Promise<void>((r) => (release = r));
  // Holds the one slot: its sink waits until released.
  const holding = engine.run({ source, query: { ...blocker, evaluate: (v) => [{ path: '', value: v }] }, addressing: 'record', limit: 1, sink: () => busy });
  const waiting = engine.run({ source, query: blocker, addressing: 'record', deadline: clock.now() + 50 });
  let settled = false;
  waiting.catch(() => undefined).finally(() => { settled = true; });
  await clock.advanceAsync(49);
  expect(settled).toBe(false);
  await clock.advanceAsync(1);
  await expect(waiting).rejects.toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxConcurrentScans' } });
  release();
  await holding;
});
