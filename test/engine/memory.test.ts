/** Closing gives memory back: a full collection runs shortly after, so released buffers do not wait for pressure. */
import { RELEASE_MIN_BYTES, releaseAfterClose, releaseSoon } from '../../src/engine/memory';

afterEach(() => jest.useRealTimers());

test('after releaseSoon, an unreachable 64 MB buffer is collected when its timer fires; a burst of releases schedules one collection', async () => {
  jest.useFakeTimers({ doNotFake: ['setImmediate'] });
  let big: ArrayBuffer | null = new ArrayBuffer(64 * 1024 * 1024);
  const ref = new WeakRef(big);
  big = null;
  // A WeakRef's target stays alive until the job that made it ends: let it end before the collection.
  await new Promise((r) => setImmediate(r));
  releaseSoon(10);
  expect(jest.getTimerCount()).toBe(1);
  releaseSoon(10); // one pending collection serves a burst of releases
  expect(jest.getTimerCount()).toBe(1);
  jest.advanceTimersByTime(10);
  expect(jest.getTimerCount()).toBe(0);
  expect(ref.deref()).toBeUndefined();
});

test('closing a small source schedules no full collection; closing a big one schedules one', () => {
  jest.useFakeTimers({ doNotFake: ['setImmediate'] });
  releaseAfterClose(RELEASE_MIN_BYTES - 1, 10);
  releaseAfterClose(540 * 1024, 10); // a session file
  expect(jest.getTimerCount()).toBe(0);
  releaseAfterClose(RELEASE_MIN_BYTES, 10);
  expect(jest.getTimerCount()).toBe(1);
  jest.advanceTimersByTime(10);
  expect(jest.getTimerCount()).toBe(0);
});
