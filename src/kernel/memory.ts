import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Giving memory back after big releases. A closed file drops its offset index (8 bytes a record: 10 MB for a
 * million records) and read buffers, but V8 frees an ArrayBuffer only when a collection finds it unreachable, and
 * with no allocation pressure afterwards none runs: 16 closed handles on a 500 MB file kept ~300 MB resident.
 * `releaseSoon()` asks for one full collection shortly after (a burst of closes costs one), with the collector
 * obtained once at run time (the function `--expose-gc` would expose, without the command-line flag).
 */
let gc: (() => void) | null | undefined;

function collector(): (() => void) | null {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as () => void;
    } catch {
      gc = null;
    }
  }
  return gc;
}

let pending: NodeJS.Timeout | null = null;

/** Schedules one full garbage collection `delayMs` from now (none is added while one is pending). */
export function releaseSoon(delayMs = 500): void {
  if (pending) return;
  pending = setTimeout(() => {
    pending = null;
    collector()?.();
  }, delayMs);
  pending.unref();
}
