/**
 * The prefilter's task on an engine thread (search/threads.ts, `ctx.scan.thread`): reads session files through
 * descriptors the main thread opened and checked (`FileAccess.openRaw`; threads share the process's descriptors) and
 * tells whether each job's files may hold a match. It never opens, closes or writes anything: the main thread closes a
 * job's descriptors once its answer is in. It loads only this folder's modules and node: ones.
 */
import type { MessagePort } from 'node:worker_threads';
import { literalTest, type ByteTest, type EscapeTraits } from './prefilter';
import { descriptorMayMatch, rawChunkBuffer } from './raw-scan';

/** A byte test to define (`id`), or a job: the files of one session, with their escape traits when known. */
export type ToWorker =
  | { kind: 'test'; id: number; literals: string[]; caseInsensitive: boolean }
  | { kind: 'scan'; test: number; jobs: { job: number; files: { fd: number; size: number; traits?: EscapeTraits }[] }[] };

/** A job's answer: `pass` when a file may hold a match; `learned` the escape traits gathered per file read whole. */
export interface FromWorker {
  job: number;
  pass: boolean;
  learned: (EscapeTraits | null)[];
}

/** Tests kept at most (the searches in progress use the newest). */
const TESTS_KEPT = 8;

/** The task's entry (`ThreadTask.name`): serves the search's tests and jobs on `port` until the search lets go of it. */
export function serve(port: MessagePort): void {
  const tests = new Map<number, ByteTest | null>();
  const buf = rawChunkBuffer();
  port.on('message', (m: ToWorker) => {
    if (m.kind === 'test') {
      tests.set(m.id, literalTest(m.literals, m.caseInsensitive));
      if (tests.size > TESTS_KEPT) tests.delete(tests.keys().next().value!);
      return;
    }
    const t = tests.get(m.test);
    for (const { job, files } of m.jobs) {
      const learned: (EscapeTraits | null)[] = [];
      let pass = !t;
      if (t) {
        for (const f of files) {
          let got: EscapeTraits | null = null;
          const may = descriptorMayMatch(f.fd, f.size, buf, t, f.traits, (x) => { got = x; });
          learned.push(got);
          if (may) { pass = true; break; }
        }
      }
      const answer: FromWorker = { job, pass, learned };
      port.postMessage(answer);
    }
  });
}
