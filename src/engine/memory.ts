import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Giving memory back after big releases. A closed file drops its offset index (8 bytes a record: 10 MB for a
 * million records) and read buffers, but V8 frees an ArrayBuffer only when a collection finds it unreachable, and
 * with no allocation pressure afterwards none runs: 16 closed handles on a 500 MB file kept ~300 MB resident.
 * `releaseSoon()` asks for one full collection shortly after (a burst of closes costs one), with the collector
 * obtained once at run time (the function `--expose-gc` would expose, without the command-line flag); after a
 * memory-reducing one, the C allocator's free pages are given back too ({@link trimAllocator}).
 */
type Collector = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
let gc: Collector | null | undefined;

function collector(): Collector | null {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as Collector;
    } catch {
      gc = null;
    }
  }
  return gc;
}

let pending: NodeJS.Timeout | null = null;
let reducing = false;

/**
 * Schedules one full garbage collection `delayMs` from now (none is added while one is pending). `reduce`: V8's
 * memory-reducing collection (`flavor: 'last-resort'`: compacts and gives emptied pages back), for a server gone quiet
 * after a load; an ordinary full collection frees the objects but keeps their pages resident (a heap of 130 MB went to
 * 130 MB with one, to 52 MB with the other).
 */
export function releaseSoon(delayMs = 500, reduce = false): void {
  reducing ||= reduce;
  if (pending) return;
  pending = setTimeout(() => {
    pending = null;
    const full = reducing;
    reducing = false;
    const collect = collector();
    if (full) {
      collect?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      trimAllocator();
    } else collect?.();
  }, delayMs);
  pending.unref();
}

type Trim = () => boolean;
let trim: Trim | null | undefined;

/**
 * Gives the C allocator's free pages back to the system: glibc keeps the pages freed under a block still in use near
 * the top of its heap, and only `malloc_trim(0)` returns them (after a 64-client load: 17 of the main arena's 25 MiB
 * were free and resident). Calls native/malloc-trim.c, built into dist/native by scripts/build-native.mjs when a C
 * compiler is present. Returns true when memory was released; false without the addon (not built, not Linux/glibc)
 * or when nothing was free. Costs about a millisecond.
 */
export function trimAllocator(): boolean {
  if (trim === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      // dist/native of the package root, from src/engine (tests) and dist/engine alike
      trim = (require(join(__dirname, '..', '..', 'dist', 'native', 'malloc-trim.node')) as { trim: Trim }).trim;
    } catch {
      trim = null;
    }
  }
  return trim?.() ?? false;
}

/**
 * Sources smaller than this (file bytes) leave too little behind when closed to be worth a full collection: their
 * index and buffers go with ordinary collections. A full collection costs tens of ms, and a search over many small
 * files (search_sessions opens and closes the sessions that may match, every call) scheduled one per call.
 */
export const RELEASE_MIN_BYTES = 16 * 1024 * 1024;

/** After closing a source over `fileBytes` bytes: {@link releaseSoon} when it was big enough to matter. */
export function releaseAfterClose(fileBytes: number, delayMs?: number): void {
  if (fileBytes >= RELEASE_MIN_BYTES) releaseSoon(delayMs);
}
