/**
 * A single document walked through lazy nodes (src/engine/scan/walk.ts) lets the event loop run while it scans, on
 * the engine's clock (a FakeClock that moves 1 ms each time it is read, so the walk's work takes clock time): a
 * callback queued on the event loop runs before the scan ends, and a cancellation it raises stops the scan.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import json from '../../plugins/format-json/src/index';
import { FakeClock } from '../../src/kernel/fake-clock';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import type { QueryLanguage, RecordSource } from '../../src/kernel/contracts';
import { QueryScanEngine } from '../../src/engine/scan';
import { fileService, formatsOf } from '../helpers/formats';
import { jsonpath } from '../helpers/query';

class TickingClock extends FakeClock {
  override now(): number {
    this.advance(1);
    return super.now();
  }
}

/** 300 members of 20 small objects each; every 7th object is a "preview". */
const doc = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f${i}`, Object.fromEntries(Array.from({ length: 20 }, (_, j) => [`b${j}`, { version_added: (i * 20 + j) % 7 === 0 ? 'preview' : String(j) }]))]));
const previews = Object.values(doc).reduce((n, f) => n + Object.values(f).filter((x) => x.version_added === 'preview').length, 0);

let dir: string;
let jp: QueryLanguage;
let source: RecordSource;
let close: () => void;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-walk-yield-'));
  jp = await jsonpath();
  fs.writeFileSync(path.join(dir, 'doc.json'), JSON.stringify(doc));
  const f = await fileService(dir, await formatsOf(json)).open('doc.json');
  source = f.source;
  close = () => f.close();
});
afterAll(() => {
  close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Every container walked (lazyBytes 0, nothing parsed whole), on a ticking clock. */
const engine = () => new QueryScanEngine({ limits: () => DEFAULT_LIMITS, clock: new TickingClock(), lazyBytes: 0, walk: { pieceBytes: 0, streamMin: Number.POSITIVE_INFINITY } });

test('the premise: the walk counts every preview', async () => {
  const r = await engine().run({ source, query: jp.compile('$..[?@.version_added == "preview"]'), addressing: 'file', limit: 0, countAll: true });
  expect(r).toMatchObject({ complete: true, total: previews });
  expect(previews).toBeGreaterThan(800);
});

test('the event loop runs while a document is walked', async () => {
  let ran = 0;
  let ended = false;
  const tick = () => setImmediate(() => { if (!ended) { ran++; tick(); } });
  tick();
  const r = await engine().run({ source, query: jp.compile('$..[?@.version_added == "preview"]'), addressing: 'file', limit: 0, countAll: true });
  ended = true;
  expect(r.total).toBe(previews);
  // the walk reads the clock at each of its ~6,300 positions: it lets the loop run every 15 of those ms
  expect(ran).toBeGreaterThan(20);
});

test('a cancellation raised on the event loop stops the walk at once', async () => {
  const ac = new AbortController();
  const clock = new TickingClock();
  let abortedAt = 0;
  setImmediate(() => { ac.abort(); abortedAt = clock.now(); });
  const e = new QueryScanEngine({ limits: () => DEFAULT_LIMITS, clock, lazyBytes: 0, walk: { pieceBytes: 0, streamMin: Number.POSITIVE_INFINITY } });
  await expect(e.run({ source, query: jp.compile('$..[?@.version_added == "preview"]'), addressing: 'file', limit: 0, countAll: true, signal: ac.signal }))
    .rejects.toMatchObject({ code: 'CANCELLED' });
  // stopped as the walk came back from the event loop: no position walked after the cancellation
  expect(abortedAt).toBeGreaterThan(0);
  expect(clock.now() - abortedAt).toBeLessThanOrEqual(2);
});

test('the deadline ends a page within one position of the walk', async () => {
  const clock = new TickingClock();
  const e = new QueryScanEngine({ limits: () => ({ ...DEFAULT_LIMITS, requestTimeoutMs: 500 }), clock, lazyBytes: 0, walk: { pieceBytes: 0, streamMin: Number.POSITIVE_INFINITY } });
  const deadline = clock.now() + 500;
  const r = await e.run({ source, query: jp.compile('$..[?@.version_added == "preview"]'), addressing: 'file', limit: 0, countAll: true, deadline });
  expect(r.complete).toBe(false);
  expect(r.next).not.toBeNull();
  // a position costs at most a few clock reads here (one filter test): the page ends right after its deadline
  expect(clock.now() - deadline).toBeLessThan(10);
});
