import * as os from 'node:os';
import type { FileAccess, RawFile, ToolContext } from 'mcpgw/plugin-api';
import type { CatalogSession } from '../catalog';
import { fileMayMatch, type ByteTest, type EscapeTraits, type TraitsCache } from './prefilter';
import { descriptorMayMatch, rawChunkBuffer } from './raw-scan';
import { PrefilterThread, type ThreadJob } from './threads';

/** Below this many bytes left to search, no thread is used (files this small are read in a few milliseconds). */
const THREAD_MIN_BYTES = 16 * 1024 * 1024;
/** Sessions given to the thread and not answered yet, at most (their files stay open until answered). */
const AHEAD = 16;
/** The main thread's own files between turns of the event loop, ms of work at most. */
const SLICE_MS = 20;

/** A session whose files could not be opened: it passes (the open that follows reports why). */
const PASSED: ThreadJob = { done: true, pass: true, learned: [], settled: Promise.resolve() };

/** The main thread's read buffer, kept between searches. */
let mainBuffer: Buffer | null = null;

/** The literals a byte test was built from, to build the same test on the thread. */
export interface TestSpec {
  literals: readonly string[];
  caseInsensitive: boolean;
}

/**
 * Whether each session of a search may hold a match, by one raw read of its files through the byte test, asked for
 * in order (`get(i)`, i increasing from `first`). Where the kernel opens raw files (`FileAccess.openRaw`) and the
 * machine has a second core, the sessions are handed in order to an engine thread (search/threads.ts), AHEAD at a
 * time, and while the thread's answer for the session asked for is not in, this thread tests the next session not
 * handed out: the threads share the work as fast as each goes. Elsewhere each session is read here when asked for. What a file's escapes could spell is kept by file identity (`traits`): a later search
 * reads an unchanged file only for its literals.
 */
export class Verdicts {
  private readonly thread: PrefilterThread | null;
  private readonly testId: number;
  private readonly jobs = new Map<number, ThreadJob>();
  /** Verdicts of this thread's sessions tested ahead. */
  private readonly ahead = new Map<number, boolean>();
  /** The first session neither handed to the thread nor tested here. */
  private next: number;
  private sliceStart = performance.now();

  constructor(
    private readonly ctx: Pick<ToolContext, 'signal' | 'error' | 'scan'>,
    private readonly access: (s: CatalogSession) => FileAccess,
    private readonly test: ByteTest,
    spec: TestSpec,
    private readonly traits: TraitsCache,
    private readonly sessions: readonly CatalogSession[],
    private readonly first: number,
    /** Bytes left to search below which no thread is used (default THREAD_MIN_BYTES). */
    threadMinBytes = THREAD_MIN_BYTES,
  ) {
    let rest = 0;
    for (let i = first; i < sessions.length; i++) rest += sessions[i]!.size;
    const usable = sessions.length - first > 1 && rest >= threadMinBytes && os.availableParallelism() > 1 && sessions.slice(first).every((s) => typeof access(s).openRaw === 'function');
    this.thread = usable ? PrefilterThread.start(ctx.scan) : null;
    this.testId = this.thread ? this.thread.defineTest(spec.literals, spec.caseInsensitive) : 0;
    this.next = first;
  }

  /** Whether session `i` may hold a match (true also when its files could not be read: the open reports why). */
  async get(i: number): Promise<boolean> {
    if (this.ctx.signal.aborted) throw this.ctx.error('CANCELLED', 'The request was cancelled.');
    if (!this.thread) return this.alone(i);
    this.dispatch();
    const known = this.ahead.get(i);
    if (known !== undefined) { this.ahead.delete(i); return known; }
    if (i >= this.next) {
      // Not handed out yet (the thread's window is full): tested here.
      this.next = i + 1;
      const v = this.own(i);
      await this.breathe();
      return v;
    }
    const job = this.jobs.get(i)!;
    while (!job.done) {
      this.thread.poll();
      if (job.done) break;
      // Meanwhile this thread tests the next session not handed out.
      if (this.next >= this.sessions.length) { await job.settled; break; }
      const j = this.next++;
      this.ahead.set(j, this.own(j));
      this.dispatch();
      await this.breathe();
    }
    this.jobs.delete(i);
    this.learn(this.sessions[i]!, job.learned);
    return job.pass;
  }

  /**
   * The search asks no more: the thread goes back to the engine's pool once it has answered what it was given (the
   * files of those sessions are closed then).
   */
  close(): void {
    this.thread?.close();
  }

  /** Settles once the thread has answered every session handed to it (their files closed). */
  async drained(): Promise<void> {
    await this.thread?.drained();
  }

  /** Hands the thread the next sessions, up to AHEAD unanswered (refilled by halves: one message carries several). */
  private dispatch(): void {
    let unanswered = 0;
    for (const job of this.jobs.values()) if (!job.done) unanswered++;
    if (unanswered > AHEAD / 2) return;
    const batch: { i: number; files: RawFile[]; traits: (EscapeTraits | undefined)[] }[] = [];
    for (; this.next < this.sessions.length && unanswered < AHEAD; this.next++) {
      const i = this.next;
      const s = this.sessions[i]!;
      const files: RawFile[] = [];
      try {
        for (const f of s.files) files.push(this.access(s).openRaw!(f));
      } catch {
        for (const f of files) f.close();
        this.jobs.set(i, PASSED);
        continue;
      }
      batch.push({ i, files, traits: s.files.map((_, j) => this.known(s, j)) });
      unanswered++;
    }
    if (batch.length === 0) return;
    const jobs = this.thread!.scan(this.testId, batch);
    batch.forEach(({ i }, k) => this.jobs.set(i, jobs[k]!));
  }

  /** Session `i` tested on this thread through raw descriptors. */
  private own(i: number): boolean {
    const s = this.sessions[i]!;
    mainBuffer ??= rawChunkBuffer();
    for (let j = 0; j < s.files.length; j++) {
      let file: RawFile;
      try {
        file = this.access(s).openRaw!(s.files[j]!);
      } catch {
        return true;
      }
      try {
        if (descriptorMayMatch(file.fd, file.size, mainBuffer, this.test, this.known(s, j), this.learner(s, j))) return true;
      } finally {
        file.close();
      }
    }
    return false;
  }

  /** Session `i` tested on this thread alone, through the kernel's chunked read. */
  private async alone(i: number): Promise<boolean> {
    const s = this.sessions[i]!;
    const files = this.access(s);
    try {
      for (let j = 0; j < s.files.length; j++) {
        if (await fileMayMatch(files.read(s.files[j]!, { signal: this.ctx.signal }), this.test, this.known(s, j), this.learner(s, j))) return true;
      }
      return false;
    } catch (err) {
      if ((err as { code?: string }).code === 'CANCELLED') throw err;
      return true; // let the open report what is wrong
    }
  }

  /** Lets other work run once this thread has worked SLICE_MS since it last did. */
  private async breathe(): Promise<void> {
    if (performance.now() - this.sliceStart < SLICE_MS) return;
    await new Promise<void>((r) => setImmediate(r));
    this.sliceStart = performance.now();
  }

  private keyOf(s: CatalogSession, j: number): string | null {
    const st = s.fileStats?.[j];
    return st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${s.files[j]}` : null;
  }

  private known(s: CatalogSession, j: number): EscapeTraits | undefined {
    const key = this.keyOf(s, j);
    return key === null ? undefined : this.traits.get(key);
  }

  private learner(s: CatalogSession, j: number): ((t: EscapeTraits) => void) | undefined {
    const key = this.keyOf(s, j);
    return key === null ? undefined : (t) => this.traits.set(key, t);
  }

  private learn(s: CatalogSession, learned: readonly (EscapeTraits | null)[]): void {
    learned.forEach((t, j) => { if (t) this.learner(s, j)?.(t); });
  }
}
