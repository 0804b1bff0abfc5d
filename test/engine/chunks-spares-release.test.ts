/**
 * The chunk reader's spare buffers (up to 8 × 4 MiB) are let go after a second without use, and one full collection
 * is asked for then: an ArrayBuffer's memory goes back to the system only when a collection finds it unreachable, and
 * a server gone quiet runs none (32 MiB stayed resident after a 64-client load).
 */
jest.mock('../../src/engine/memory', () => ({ ...jest.requireActual('../../src/engine/memory'), releaseSoon: jest.fn() }));
import { releaseSoon } from '../../src/engine/memory';
import { CHUNK_BYTES, giveBack, takeBuffer } from '../../src/engine/records/chunks';

const released = releaseSoon as jest.MockedFunction<typeof releaseSoon>;

beforeEach(() => {
  jest.useFakeTimers();
  released.mockClear();
});
afterEach(() => jest.useRealTimers());

test('spares are kept for reuse within a second, then dropped with one collection asked for', () => {
  const a = takeBuffer(CHUNK_BYTES);
  const b = takeBuffer(CHUNK_BYTES);
  giveBack([a, b]);
  jest.advanceTimersByTime(999);
  expect(released).not.toHaveBeenCalled();
  // still spares: the next reads get them back (last given, first taken)
  expect(takeBuffer(CHUNK_BYTES)).toBe(b);
  giveBack([b]);
  // each giveBack restarts the second
  jest.advanceTimersByTime(999);
  expect(released).not.toHaveBeenCalled();
  jest.advanceTimersByTime(1);
  expect(released).toHaveBeenCalledTimes(1);
  expect(released).toHaveBeenCalledWith(0);
  // gone: a new read gets a new buffer
  const c = takeBuffer(CHUNK_BYTES);
  expect(c).not.toBe(a);
  expect(c).not.toBe(b);
});

test('no collection is asked for when there were no spares to drop', () => {
  // a small read's buffer is its own, never a spare
  giveBack([takeBuffer(1024)]);
  jest.advanceTimersByTime(5000);
  expect(released).not.toHaveBeenCalled();
});
