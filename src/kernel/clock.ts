import type { Clock, ClockTimer } from './contracts/clock';

/** The real clock: `Date.now()` and Node's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms, options) {
    const t = setTimeout(fn, Math.max(0, ms));
    if (options?.unref) t.unref();
    return { cancel: () => clearTimeout(t) };
  },
  setInterval(fn, ms, options) {
    const t = setInterval(fn, Math.max(1, ms));
    if (options?.unref) t.unref();
    return { cancel: () => clearInterval(t) };
  },
};

export type { Clock, ClockTimer };
