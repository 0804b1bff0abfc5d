import * as fs from 'node:fs';
import * as path from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { RawFile } from 'mcpgw/plugin-api';
import type { EscapeTraits } from './prefilter';
import type { FromWorker, ToWorker } from './prefilter-worker';

/** A thread that has had no job for this long is ended, ms (the next search starts another, ~30 ms). */
const IDLE_MS = 30_000;

/** A job given to the thread: done once its answer is in (then its files are closed). */
export interface ThreadJob {
  done: boolean;
  pass: boolean;
  learned: (EscapeTraits | null)[];
  /** Settles when the answer is in (or the thread failed: then `pass` is true). */
  readonly settled: Promise<void>;
}

interface Pending { job: ThreadJob; files: RawFile[]; settle: () => void }

/** The compiled worker script: beside this file, or in the plugin's dist/ when running from TypeScript sources (tests). */
function workerScript(): string {
  const here = path.join(__dirname, 'prefilter-worker.js');
  if (fs.existsSync(here)) return here;
  return path.resolve(__dirname, '..', '..', 'dist', 'search', 'prefilter-worker.js');
}

/**
 * One worker thread for search_sessions' byte prefilter, shared by the searches of the process and ended when idle.
 * The main thread opens and checks each file (`FileAccess.openRaw`), the thread reads and tests it, the main thread
 * closes it once the answer is in — never before, since a closed descriptor's number goes to the next file opened.
 * Answers are taken as they come (`poll`, synchronously, between the main thread's own files) or awaited.
 */
export class PrefilterThread {
  private static current: PrefilterThread | null = null;
  private static failed = false;

  private readonly pending = new Map<number, Pending>();
  private nextJob = 1;
  private nextTest = 1;
  private idle: NodeJS.Timeout | null = null;
  private dead = false;
  /** Whether the thread ever answered (one that fails before it did is not started again). */
  private answered = false;

  /** The process's thread (started now if there is none), or null where a thread cannot be started. */
  static shared(): PrefilterThread | null {
    if (PrefilterThread.current && !PrefilterThread.current.dead) return PrefilterThread.current;
    if (PrefilterThread.failed) return null;
    try {
      PrefilterThread.current = new PrefilterThread();
    } catch {
      PrefilterThread.failed = true;
      return null;
    }
    return PrefilterThread.current;
  }

  private readonly worker: Worker;
  private readonly port: MessagePort;

  private constructor() {
    const { port1, port2 } = new MessageChannel();
    this.worker = new Worker(workerScript(), { workerData: { port: port2 }, transferList: [port2], resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    this.port = port1;
    this.port.on('message', (m: FromWorker) => this.answer(m));
    this.worker.on('error', () => this.fail());
    this.worker.on('exit', () => this.fail());
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
      if (this.idle) { clearTimeout(this.idle); this.idle = null; }
      this.worker.ref();
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
    for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) this.answer(m.message as FromWorker);
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

  /** Ends an idle thread: a search that still holds it gets its jobs passed, the next one starts another. */
  private end(): void {
    this.answered = true; // ended, not failed
    this.fail();
    void this.worker.terminate();
  }

  /** The thread failed or exited: every job passes (the open that follows decides), its files are closed. */
  private fail(): void {
    if (this.dead) return;
    this.dead = true;
    // A thread that cannot even start (its script missing or broken) is not started again: one thread does the work.
    if (!this.answered && this.pending.size > 0) PrefilterThread.failed = true;
    if (PrefilterThread.current === this) PrefilterThread.current = null;
    if (this.idle) clearTimeout(this.idle);
    for (const p of this.pending.values()) {
      for (const f of p.files) f.close();
      p.job.done = true;
      p.settle();
    }
    this.pending.clear();
    this.port.close();
  }

  private unrefIfIdle(): void {
    if (this.pending.size > 0) return;
    this.worker.unref();
    this.port.unref();
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.end(), IDLE_MS);
    this.idle.unref();
  }
}
