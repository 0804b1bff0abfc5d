/** FakeClock (a runtime export of the plugin API): time moves only when told, timers fire in due order at their time. */
import { FakeClock } from '../../src/plugin-kit/index';

test('now() starts where asked and moves only with advance', () => {
  const clock = new FakeClock(1000);
  expect(clock.now()).toBe(1000);
  clock.advance(250);
  expect(clock.now()).toBe(1250);
  expect(new FakeClock().now()).toBe(Date.UTC(2026, 0, 1));
});

test('timers fire earliest first, equal times in the order set, each seeing its own due time', () => {
  const clock = new FakeClock(0);
  const fired: [string, number][] = [];
  clock.setTimeout(() => fired.push(['b', clock.now()]), 20);
  clock.setTimeout(() => fired.push(['a', clock.now()]), 10);
  clock.setTimeout(() => fired.push(['c', clock.now()]), 20);
  clock.advance(15);
  expect(fired).toEqual([['a', 10]]);
  expect(clock.now()).toBe(15);
  clock.advance(5);
  expect(fired).toEqual([['a', 10], ['b', 20], ['c', 20]]);
});

test('cancelled timers never fire; intervals repeat until cancelled; a timer set by a timer fires in the same advance', () => {
  const clock = new FakeClock(0);
  const fired: number[] = [];
  clock.setTimeout(() => fired.push(-1), 5).cancel();
  const every = clock.setInterval(() => fired.push(clock.now()), 10);
  clock.setTimeout(() => clock.setTimeout(() => fired.push(1000 + clock.now()), 3), 12);
  clock.advance(35);
  expect(fired).toEqual([10, 1015, 20, 30]);
  every.cancel();
  clock.advance(100);
  expect(fired).toEqual([10, 1015, 20, 30]);
  expect(clock.pending).toBe(0);
});

test('advanceAsync lets awaited work run between timers', async () => {
  const clock = new FakeClock(0);
  const order: string[] = [];
  const wait = (ms: number) => new Promise<void>((r) => clock.setTimeout(r, ms));
  const job = (async () => { await wait(10); order.push(`first ${clock.now()}`); await wait(10); order.push(`second ${clock.now()}`); })();
  await clock.advanceAsync(25);
  await job;
  expect(order).toEqual(['first 10', 'second 20']);
});
