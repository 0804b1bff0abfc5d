import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RawFile, ScanEngine, TaskThread } from 'mcpgw/plugin-api';
import type { DigestJob, DigestRead } from './digest';
import type { DigestAnswer, DigestRequest } from './digest-worker';

/** The compiled task module: beside this file, or in the plugin's dist/ when running from TypeScript sources (tests). */
function taskModule(): string {
  const here = path.join(__dirname, 'digest-worker.js');
  if (fs.existsSync(here)) return here;
  return path.resolve(__dirname, '..', '..', 'dist', 'session', 'digest-worker.js');
}

interface Pending { files: RawFile[]; jobs: number; settle: (d: (DigestRead | null | undefined)[]) => void }

interface Held {
  thread: TaskThread;
  pending: Map<number, Pending>;
  dead: boolean;
  answered: boolean;
}

/**
 * Threads of the engine's pool (`ctx.scan.thread`, shared with scans and aggregates) that read session digests
 * (digest-worker.ts) for one call: `digest` gives a batch of jobs (sessions) to the thread with the fewest batches in
 * hand, in one message, answered in one; the main thread opens and checks each file (`FileAccess.openRaw`), the thread
 * reads it, the main thread closes it once the answer is in — never before, since a closed descriptor's number goes to
 * the next file opened. `close` gives the threads back once every batch is answered.
 */
export class DigestThreads {
  /** A thread failed before it ever answered (its module missing or broken): none is asked for again. */
  private static failed = false;
  private nextId = 1;
  private closing = false;

  private constructor(private readonly held: Held[]) {
    for (const h of held) {
      h.thread.port.on('message', (m: DigestAnswer | { type: 'fatal' }) => {
        if ('type' in m) this.fail(h, true);
        else this.answer(h, m);
      });
      h.thread.onFail(() => this.fail(h, false));
      h.thread.port.unref();
    }
  }

  /** Up to `n` threads of the engine's pool, or null where the engine has none or none can be started. */
  static start(scan: Pick<ScanEngine, 'thread'>, n: number): DigestThreads | null {
    if (DigestThreads.failed || !scan.thread || n < 1) return null;
    const held: Held[] = [];
    for (let k = 0; k < n; k++) {
      try {
        held.push({ thread: scan.thread({ module: taskModule(), name: 'serve' }), pending: new Map(), dead: false, answered: false });
      } catch {
        break;
      }
    }
    return held.length ? new DigestThreads(held) : null;
  }

  /** Threads held and alive. */
  get size(): number {
    return this.held.filter((h) => !h.dead).length;
  }

  /**
   * The digests of a batch of sessions read on one thread (`files` are the jobs' descriptors, closed once the answer is
   * in): per job, in order, the digest, null (only the summary can give it), or undefined (the read failed, or the
   * thread did).
   */
  digest(jobs: DigestJob[], files: RawFile[]): Promise<(DigestRead | null | undefined)[]> {
    const alive = this.held.filter((h) => !h.dead);
    if (!alive.length) {
      for (const f of files) f.close();
      return Promise.resolve(jobs.map(() => undefined));
    }
    const h = alive.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    const id = this.nextId++;
    return new Promise((settle) => {
      h.pending.set(id, { files, jobs: jobs.length, settle });
      h.thread.port.ref();
      const request: DigestRequest = { id, jobs };
      h.thread.port.postMessage(request);
    });
  }

  /** The call is over: each thread goes back to the pool once its jobs are answered. */
  close(): void {
    this.closing = true;
    for (const h of this.held) this.releaseIfDone(h);
  }

  private answer(h: Held, m: DigestAnswer): void {
    const p = h.pending.get(m.id);
    if (!p) return;
    h.pending.delete(m.id);
    h.answered = true;
    for (const f of p.files) f.close();
    p.settle(m.results.map((r) => ('error' in r ? undefined : r.digest)));
    if (h.pending.size === 0 && !h.dead) h.thread.port.unref();
    this.releaseIfDone(h);
  }

  /** A thread failed or exited: its jobs are answered undefined (their files closed); one still held is ended. */
  private fail(h: Held, terminate: boolean): void {
    if (h.dead) return;
    h.dead = true;
    if (!h.answered && (terminate || h.pending.size > 0)) DigestThreads.failed = true;
    for (const p of h.pending.values()) {
      for (const f of p.files) f.close();
      p.settle(new Array<undefined>(p.jobs).fill(undefined));
    }
    h.pending.clear();
    if (terminate) h.thread.terminate();
  }

  private releaseIfDone(h: Held): void {
    if (!this.closing || h.dead || h.pending.size > 0) return;
    h.dead = true;
    h.thread.release();
  }
}
