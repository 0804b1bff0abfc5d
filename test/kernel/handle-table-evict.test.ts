/** A table of continuations that is full drops its least recently used id (`whenFull: 'evict'`); files refuse. */
import { IdleHandleTable } from '../../src/kernel/session/handle-table';
import { FakeClock } from '../../src/kernel/fake-clock';
import { McpgwError } from '../../src/kernel/errors';

const options = { style: 'counter' as const, prefix: 'c_', noun: 'cursor', limit: 'maxCursors', idleMs: 60_000, max: 3, expiredHint: 'Run the read again.' };
const failure = (f: () => unknown) => { try { f(); } catch (e) { return e as McpgwError; } throw new Error('no error'); };

test('evict: the least recently used goes, its onEvict runs, a later use is HANDLE_EXPIRED saying why', () => {
  const evicted: string[] = [];
  const t = new IdleHandleTable<string>({ ...options, whenFull: 'evict', onEvict: (v) => evicted.push(v) }, new FakeClock(0));
  const [a, b, c] = ['A', 'B', 'C'].map((v) => t.add(v));
  expect(t.get(a!)).toBe('A'); // a used: b is now the least recently used
  const d = t.add('D');
  expect(evicted).toEqual(['B']);
  expect(t.size).toBe(3);
  expect([t.get(a!), t.get(c!), t.get(d)]).toEqual(['A', 'C', 'D']);
  const e = failure(() => t.get(b!));
  expect(e.code).toBe('HANDLE_EXPIRED');
  expect(e.message).toBe(`The cursor ${b} was dropped to make room: 3 cursors (maxCursors) were open and it was the least recently used. Run the read again.`);
  t.add('E'); // a, c, d used in that order: a goes
  expect(evicted).toEqual(['B', 'A']);
});

test('refuse (the default): RESOURCE_LIMIT_EXCEEDED naming the limit, nothing dropped', () => {
  const evicted: string[] = [];
  const t = new IdleHandleTable<string>({ ...options, onEvict: (v) => evicted.push(v) }, new FakeClock(0));
  for (const v of ['A', 'B', 'C']) t.add(v);
  const e = failure(() => t.add('D'));
  expect(e.code).toBe('RESOURCE_LIMIT_EXCEEDED');
  expect(e.limit).toEqual({ name: 'maxCursors', limit: 3, value: 3 });
  expect(evicted).toEqual([]);
});
