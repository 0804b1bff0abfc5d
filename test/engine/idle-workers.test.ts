/**
 * The pool of threads kept between scans (src/engine/scan/idle-workers.ts), with fake threads and a fake clock:
 * reuse before start, the idle-down after `idleMs` (reset by each thread given back), the `keep` bound, threads that
 * exit while idle, discarded threads, threads started ahead, and the owner's call when the pool has idled down.
 */
import { EventEmitter } from 'node:events';
import { FakeClock } from '../../src/kernel/fake-clock';
import { IdleWorkers } from '../../src/engine/scan/idle-workers';

class FakeThread extends EventEmitter {
  terminated = 0;
  constructor(readonly id: number) { super(); }
  terminate(): void {
    this.terminated++;
    this.emit('exit', 1);
  }
}

function pool(keep = 2, idleMs = 1000) {
  const clock = new FakeClock();
  const started: FakeThread[] = [];
  /** Per onIdleDown call: how many threads had been terminated by then. */
  const idleDowns: number[] = [];
  const p = new IdleWorkers<FakeThread>({
    spawn: () => { const t = new FakeThread(started.length); started.push(t); return t; }, clock, idleMs, keep,
    onIdleDown: () => idleDowns.push(started.filter((t) => t.terminated).length),
  });
  return { p, clock, started, idleDowns };
}

test('threads given back are taken again before any is started; the rest are started', () => {
  const { p, started } = pool(3);
  const a = p.take(2);
  expect(started).toHaveLength(2);
  for (const t of a) p.give(t);
  expect(p.size).toBe(2);
  const b = p.take(3);
  expect(started).toHaveLength(3);
  expect(new Set(b)).toEqual(new Set([...a, started[2]]));
  expect(p.size).toBe(0);
  expect(p.spawned).toBe(3);
});

test('idle threads are terminated idleMs after the last one came back, on the clock', () => {
  const { p, clock, started } = pool(2, 1000);
  const [a, b] = p.take(2) as [FakeThread, FakeThread];
  p.give(a);
  clock.advance(600);
  p.give(b); // the idle-down counts from here
  clock.advance(999);
  expect(p.size).toBe(2);
  expect(started.map((t) => t.terminated)).toEqual([0, 0]);
  clock.advance(1);
  expect(p.size).toBe(0);
  expect(started.map((t) => t.terminated)).toEqual([1, 1]);
  expect(clock.pending).toBe(0);
  // the next scan starts new threads
  p.take(1);
  expect(p.spawned).toBe(3);
});

test('a thread taken stops nothing: a scan longer than idleMs keeps its threads', () => {
  const { p, clock } = pool(2, 1000);
  const [a, b] = p.take(2) as [FakeThread, FakeThread];
  p.give(a);
  const [again] = p.take(1) as [FakeThread];
  expect(again).toBe(a);
  expect(clock.pending).toBe(0); // nothing idle, no timer
  clock.advance(5000);
  expect(a.terminated + b.terminated).toBe(0);
});

test('at most `keep` threads are kept; a discarded thread is terminated and not reused', () => {
  const { p, started } = pool(1);
  const [a, b] = p.take(2) as [FakeThread, FakeThread];
  p.give(a);
  p.give(b);
  expect(p.size).toBe(1);
  expect(b.terminated).toBe(1);
  const [c] = p.take(1) as [FakeThread];
  expect(c).toBe(a);
  p.discard(c);
  expect(c.terminated).toBe(1);
  p.give(c); // exited: not kept
  expect(p.size).toBe(0);
  expect(p.take(1)[0]).toBe(started[2]);
});

test('a thread that fails and exits while idle leaves the pool (its error does not throw here); when none is left the timer goes too', () => {
  const { p, clock } = pool(2);
  const [a, b] = p.take(2) as [FakeThread, FakeThread];
  p.give(a);
  p.give(b);
  expect(() => a.emit('error', new Error('boom'))).not.toThrow();
  a.emit('exit', 1);
  expect(p.size).toBe(1);
  expect(p.take(1)[0]).toBe(b);
  expect(clock.pending).toBe(0);
});

test('threads started ahead are taken by the next scan, and idle down when none comes', () => {
  const { p, clock, started } = pool(2, 1000);
  p.prestart(5); // bounded by keep
  expect(started).toHaveLength(2);
  p.prestart(2); // already there
  expect(started).toHaveLength(2);
  expect(new Set(p.take(2))).toEqual(new Set(started));
  expect(p.spawned).toBe(2);
  for (const t of started) p.give(t);
  p.prestart(2);
  expect(started).toHaveLength(2);
  clock.advance(1000);
  expect(started.map((t) => t.terminated)).toEqual([1, 1]);
});

test('onIdleDown is called once the idle-down has terminated the threads; not on close, nor when a scan took them first', () => {
  const { p, clock, started, idleDowns } = pool(2, 1000);
  const [a, b] = p.take(2) as [FakeThread, FakeThread];
  p.give(a);
  p.give(b);
  clock.advance(999);
  p.take(2); // a scan took both before the idle-down: no call
  clock.advance(5000);
  expect(idleDowns).toEqual([]);
  p.give(a);
  p.give(b);
  clock.advance(1000);
  expect(idleDowns).toEqual([2]); // after both were terminated
  expect(started.map((t) => t.terminated)).toEqual([1, 1]);
  clock.advance(5000);
  expect(idleDowns).toEqual([2]);
  // close() (the kernel's shutdown) terminates without the call
  const [c] = p.take(1) as [FakeThread];
  p.give(c);
  p.close();
  expect(c.terminated).toBe(1);
  clock.advance(5000);
  expect(idleDowns).toEqual([2]);
});
