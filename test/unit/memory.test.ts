/** Closing gives memory back: a full collection runs shortly after, so released buffers do not wait for pressure. */
import { releaseSoon } from '../../src/kernel/memory';

test('after releaseSoon, an unreachable 64 MB buffer is collected', async () => {
  let big: ArrayBuffer | null = new ArrayBuffer(64 * 1024 * 1024);
  const ref = new WeakRef(big);
  big = null;
  releaseSoon(10);
  await new Promise((r) => setTimeout(r, 200));
  expect(ref.deref()).toBeUndefined();
});
