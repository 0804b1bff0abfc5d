/**
 * Time as the kernel sees it (`Tokens.Clock`, `ToolContext.clock`, `PluginContext.clock`). Every deadline, idle
 * expiry and timeout reads `now()` and waits with `setTimeout`, so a test drives them all by registering a fake clock
 * (`FakeClock` from `mcpgw/plugin-kit`) instead of sleeping. Deadlines are absolute: ms since the epoch on this clock.
 */
export interface Clock {
  /** ms since the epoch. */
  now(): number;
  /**
   * Calls `fn` once, `ms` milliseconds from now (at least 0). `unref: true`: the timer does not keep the process
   * alive (sweeps, housekeeping); default false, as Node's own.
   */
  setTimeout(fn: () => void, ms: number, options?: { unref?: boolean }): ClockTimer;
  /** Calls `fn` every `ms` milliseconds until cancelled. `unref` as for `setTimeout`. */
  setInterval(fn: () => void, ms: number, options?: { unref?: boolean }): ClockTimer;
}

/** A pending timer of a {@link Clock}. */
export interface ClockTimer {
  /** Stops the timer; idempotent. */
  cancel(): void;
}
