/**
 * Waits until `pred` holds, checking every 10 ms. What a test waits for (a child process's exec, a log line on another
 * pipe, an answer) comes later on a loaded machine, not never: the only bound is 50 s, far above any wait seen under
 * load and below Jest's 60 s test timeout, so a state that never comes fails the test with `what` (and the wait stops,
 * instead of keeping the worker alive after the test).
 */
export async function until(pred: () => boolean, what = 'the awaited state', maxMs = 50_000): Promise<void> {
  const end = Date.now() + maxMs;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`Waited ${maxMs / 1000} s for ${what}; it never came.`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
