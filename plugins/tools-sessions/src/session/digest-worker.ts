/**
 * The session digest's task on an engine thread (`ctx.scan.thread`; see digest-threads.ts): reads sessions through
 * descriptors the main thread opened and checked (`FileAccess.openRaw`; threads share the process's descriptors) and
 * answers each batch of them with their digests (session/digest.ts), in one message. It never opens, closes or writes
 * anything: the main thread closes a batch's descriptors once its answer is in. It loads only this plugin's modules and
 * node: ones.
 */
import type { MessagePort } from 'node:worker_threads';
import { digestBuffer, digestSession, type DigestJob, type DigestRead } from './digest';

/** A batch of jobs: one session each. */
export interface DigestRequest {
  id: number;
  jobs: DigestJob[];
}

/** One job's answer: the digest, null (only the summary can give it), or the error that stopped the read. */
export type DigestResult = { digest: DigestRead | null } | { error: string };

/** A batch's answer, a result per job in order. */
export interface DigestAnswer {
  id: number;
  results: DigestResult[];
}

let buffer: { buf: Buffer } | undefined;

/** The task's entry (`ThreadTask.name`): answers each batch on `port`, in order, until the caller lets go of the thread. */
export function serve(port: MessagePort): void {
  // One read buffer a thread, kept for the tasks that follow on it (a thread runs one task at a time).
  const scratch = (buffer ??= digestBuffer());
  port.on('message', (m: DigestRequest) => {
    const results: DigestResult[] = m.jobs.map((job) => {
      try {
        return { digest: digestSession(job, scratch) };
      } catch (err) {
        return { error: String(err) };
      }
    });
    const answer: DigestAnswer = { id: m.id, results };
    port.postMessage(answer);
  });
}
