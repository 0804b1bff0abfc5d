/**
 * The session digest's task on an engine thread (`ctx.scan.thread`; see digest-threads.ts): reads sessions through
 * descriptors the main thread opened and checked (`FileAccess.openRaw`; threads share the process's descriptors) and
 * answers each with its digest (session/digest.ts). It never opens, closes or writes anything: the main thread closes a
 * job's descriptors once its answer is in. It loads only this plugin's modules and node: ones.
 */
import type { MessagePort } from 'node:worker_threads';
import { digestBuffer, digestSession, type DigestJob, type DigestRead } from './digest';

/** A job: one session. */
export interface DigestRequest {
  id: number;
  job: DigestJob;
}

/** A job's answer: the digest, null (only the summary can give it), or the error that stopped the read. */
export interface DigestAnswer {
  id: number;
  digest?: DigestRead | null;
  error?: string;
}

let buffer: { buf: Buffer } | undefined;

/** The task's entry (`ThreadTask.name`): answers each job on `port`, in order, until the caller lets go of the thread. */
export function serve(port: MessagePort): void {
  // One read buffer a thread, kept for the tasks that follow on it (a thread runs one task at a time).
  const scratch = (buffer ??= digestBuffer());
  port.on('message', (m: DigestRequest) => {
    let answer: DigestAnswer;
    try {
      answer = { id: m.id, digest: digestSession(m.job, scratch) };
    } catch (err) {
      answer = { id: m.id, error: String(err) };
    }
    port.postMessage(answer);
  });
}
