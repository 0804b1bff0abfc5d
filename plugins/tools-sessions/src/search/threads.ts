import * as fs from 'node:fs';
import * as path from 'node:path';
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { RawFile, ScanEngine, TaskThread } from 'mcpgw/plugin-api';
import type { EscapeTraits } from './prefilter';
import type { FromWorker, ToWorker } from './prefilter-worker';

/** A job given to the thread: done once its answer is in (then its files are closed). */
export interface ThreadJob {
  done: boolean;
  pass: boolean;
  learned: (EscapeTraits | null)[];
  /** Settles when the answer is in (or the thread failed: then `pass` is true). */
  readonly settled: Promise<void>;
}

interface Pending { job: ThreadJob; files: RawFile[]; settle: () => void }

/** The compiled task module: beside this file, or in the plugin's dist/ when running from TypeScript sources (tests). */
function taskModule(): string {
  const here = path.join(__dirname, 'prefilter-worker.js');
  if (fs.existsSync(here)) return here;
  return path.resolve(__dirname, '..', '..', 'dist', 'search', 'prefilter-worker.js');
}

/**
 * One search's worker thread for search_sessions' byte prefilter: a thread of the engine's pool (`ctx.scan.thread`,
 * shared with scans and aggregates), running prefilter-worker.ts, held while the search runs and given back once the
 * search is over and every job is answered (`close`). The main thread opens and checks each file
 * (`FileAccess.openRaw`), the thread reads and tests it, the main thread closes it once the answer is in — never
 * before, since a closed descriptor's number goes to the next file opened. Answers are taken as they come (`poll`,
 * synchronously, between the main thread's own files) or awaited.
 */
export class PrefilterThread {
  /** A thread failed before it ever answered (its module missing or broken): none is asked for again. */
  private static failed = false;

  private readonly pending = new Map<number, Pending>();
  private nextJob = 1;
  private nextTest = 1;
  private dead = false;
  private closing = false;
  /** Whether the thread ever answered (one that fails before it did is not asked for again). */
  private answered = false;
  private readonly port: MessagePort;

  /** A thread of the engine's pool for one search, or null where the engine has none or none can be started. */
  static start(scan: Pick<ScanEngine, 'thread'>): PrefilterThread | null {
    if (PrefilterThread.failed || !scan.thread) return null;
    try {
      return new PrefilterThread(scan.thread({ module: taskModule(), name: 'serve' }));
    } catch {
      return null;
    }
  }

  private constructor(private readonly thread: TaskThread) {
    this.port = thread.port;
    this.port.on('message', (m: FromWorker | { type: 'fatal' }) => this.take(m));
    thread.onFail(() => this.fail(false));
    this.unrefIfIdle();
  }

  /** Defines a byte test on the thread; its id for `scan`. */
  defineTest(literals: readonly string[], caseInsensitive: boolean): number {
    const id = this.nextTest++;
    this.post({ kind: 'test', id, literals: [...literals], caseInsensitive });
    return id;
  }

  /**
   * Gives the thread sessions' opened files, in one message (ownership passes: each job's files are closed when its
   * answer is in); `traits[i]` the files' escape traits when known.
   */
  scan(test: number, sessions: { files: RawFile[]; traits: (EscapeTraits | undefined)[] }[]): ThreadJob[] {
    const jobs: ThreadJob[] = [];
    const message: Extract<ToWorker, { kind: 'scan' }> = { kind: 'scan', test, jobs: [] };
    for (const { files, traits } of sessions) {
      let settle!: () => void;
      const job: ThreadJob = { done: false, pass: true, learned: [], settled: new Promise<void>((r) => { settle = r; }) };
      jobs.push(job);
      if (this.dead) {
        for (const f of files) f.close();
        job.done = true;
        settle();
        continue;
      }
      const id = this.nextJob++;
      this.pending.set(id, { job, files, settle });
      message.jobs.push({ job: id, files: files.map((f, i) => ({ fd: f.fd, size: f.size, ...(traits[i] ? { traits: traits[i] } : {}) })) });
    }
    if (message.jobs.length) {
      this.port.ref();
      this.post(message);
    }
    return jobs;
  }

  /** Settles once every job given so far is answered (each job's files closed). */
  async drained(): Promise<void> {
    while (this.pending.size > 0) await [...this.pending.values()][0]!.job.settled;
  }

  /** Takes the answers already sent, without waiting. */
  poll(): void {
    for (let m = this.dead ? undefined : receiveMessageOnPort(this.port); m; m = this.dead ? undefined : receiveMessageOnPort(this.port)) this.take(m.message as FromWorker | { type: 'fatal' });
  }

  private take(m: FromWorker | { type: 'fatal' }): void {
    if ('type' in m) this.fail(true);
    else this.answer(m);
  }

  private post(m: ToWorker): void {
    this.port.postMessage(m);
  }

  private answer(m: FromWorker): void {
    const p = this.pending.get(m.job);
    if (!p) return;
    this.pending.delete(m.job);
    this.answered = true;
    for (const f of p.files) f.close();
    p.job.pass = m.pass;
    p.job.learned = m.learned;
    p.job.done = true;
    p.settle();
    this.unrefIfIdle();
  }

  /** The search is over: the thread goes back to the pool once every job given is answered (their files closed). */
  close(): void {
    this.closing = true;
    this.releaseIfDone();
  }

  /**
   * The thread failed, exited or could not run the task: every job passes (the open that follows decides), its files
   * are closed; a thread still held (`terminate`: a task that could not run) is ended.
   */
  private fail(terminate: boolean): void {
    if (this.dead) return;
    this.dead = true;
    // A thread that cannot even run the task (its module missing or broken) is not asked for again.
    if (!this.answered && (terminate || this.pending.size > 0)) PrefilterThread.failed = true;
    for (const p of this.pending.values()) {
      for (const f of p.files) f.close();
      p.job.done = true;
      p.settle();
    }
    this.pending.clear();
    if (terminate) this.thread.terminate();
  }

  private releaseIfDone(): void {
    if (!this.closing || this.dead || this.pending.size > 0) return;
    this.dead = true;
    this.thread.release();
  }

  private unrefIfIdle(): void {
    if (this.pending.size > 0) return;
    if (!this.dead) this.port.unref();
    this.releaseIfDone();
  }
}
