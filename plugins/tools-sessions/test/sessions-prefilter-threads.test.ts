/**
 * search_sessions' prefilter on two threads (search/verdicts.ts, search/threads.ts): every other session's files are
 * opened and checked here (FileAccess.openRaw), read and tested on an engine thread (`ctx.scan.thread`, the pool of
 * src/engine/scan/engine-threads.ts), and closed here once answered.
 * The verdicts are those of the one-thread read, whatever mix of literal spellings the files hold; what a file's escapes
 * spell is learned on either thread; no descriptor stays open, also when a search stops asking early.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FileAccess, ToolContext } from '../../../src/kernel/contracts';
import { McpgwError } from '../../../src/kernel/errors';
import type { CatalogSession } from '../src/catalog';
import { literalTest, TraitsCache } from '../src/search/prefilter';
import { Verdicts } from '../src/search/verdicts';
import { engineThreads } from '../../../src/engine/scan/engine-threads';
import { taskThread } from '../../../src/engine/scan/task-thread';
import { WORKER_TASK_MODULE } from '../../../src/kernel/plugins/worker-task';
import { FakeClock } from '../../../src/kernel/fake-clock';
import { fileService } from '../../../test/helpers/formats';

let tmp: string;
let access: FileAccess;
let sessions: CatalogSession[];
/** Whether each session holds the literal (as written, in another case, or through a \u escape): computed here. */
let holds: boolean[];
// The engine's pool of threads (kept: the clock never moves), as ctx.scan hands it to a plugin's task.
const threads = engineThreads({ clock: new FakeClock(), keep: 2, onIdleDown: () => undefined });
const ctx = {
  signal: new AbortController().signal, error: (code: string, message: string) => new McpgwError(code as never, message),
  scan: { thread: (task: Parameters<NonNullable<ToolContext['scan']['thread']>>[0]) => taskThread(threads, WORKER_TASK_MODULE, task) },
} as unknown as Pick<ToolContext, 'signal' | 'error' | 'scan'>;

const openDescriptors = () => fs.readdirSync('/proc/self/fd').length;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-sthreads-')));
  const filler = JSON.stringify({ timestamp: '2026-01-01T00:00:00.000Z', text: 'nothing to see in this line, only words' }) + '\n';
  const spellings = [
    (n: number) => filler.repeat(n), // none
    (n: number) => filler.repeat(n) + '{"text":"the Zanzibar cache"}\n', // in another case
    (n: number) => filler.repeat(n) + '{"text":"the zanz\\u0069bar cache"}\n', // through an escape
    (n: number) => filler.repeat(n) + '{"text":"\\u001b[0m and zanzi-bar"}\n', // an escape that spells nothing of it
  ];
  sessions = [];
  holds = [];
  for (let i = 0; i < 40; i++) {
    const kind = (i * 7) % 4;
    const files = [path.join(tmp, `s${i}.jsonl`)];
    fs.writeFileSync(files[0]!, spellings[kind]!(50 + i * 13));
    if (i % 5 === 0) { // a session continued in a second file
      files.push(path.join(tmp, `s${i}-2.jsonl`));
      fs.writeFileSync(files[1]!, i % 10 === 0 ? '{"text":"ZANZIBAR"}\n' : filler);
    }
    const stats = files.map((f) => fs.statSync(f));
    sessions.push({
      source: 'claude', projectId: 'p', projectName: 'p', projectPath: null, id: `s${i}`, path: files[0]!, files,
      size: stats.reduce((a, st) => a + st.size, 0), mtimeMs: stats[0]!.mtimeMs, birthMs: stats[0]!.mtimeMs,
      fileStats: stats.map((st) => ({ dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs })),
    });
    holds.push(kind === 1 || kind === 2 || i % 10 === 0);
  }
  access = fileService(tmp, []).within([tmp]);
});
afterAll(() => {
  threads.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const spec = { literals: ['zanzibar'], caseInsensitive: true };
const verdicts = (first: number, threadMinBytes: number, traits = new TraitsCache()) =>
  new Verdicts(ctx, () => access, literalTest(spec.literals, true)!, spec, traits, sessions, first, threadMinBytes);

/** Every verdict of a search from `first` on; the search then ends (its thread back in the pool once it answered). */
async function all(v: Verdicts, first = 0): Promise<boolean[]> {
  const out: boolean[] = [];
  for (let i = first; i < sessions.length; i++) out.push(await v.get(i));
  v.close();
  await v.drained();
  return out;
}

test('two threads give the verdicts one thread gives, and those are right', async () => {
  await all(verdicts(0, 0)); // the thread started (its own descriptors: the channel, its stdio)
  const before = openDescriptors();
  const alone = await all(verdicts(0, Infinity));
  const traits = new TraitsCache();
  const threaded = await all(verdicts(0, 0, traits));
  expect(threads.spawned).toBe(1); // one engine thread served both searches, back in the pool after each
  expect(threads.size).toBe(1);
  expect(threaded).toEqual(alone);
  expect(alone).toEqual(holds);
  // Escape traits were learned on both threads, for every file read whole: each file up to the first that has the
  // literal as written (any case), or whose escapes could spell it.
  let readWhole = 0;
  for (const s of sessions) {
    for (const f of s.files) {
      const text = fs.readFileSync(f, 'latin1');
      if (text.toLowerCase().includes('zanzibar')) break;
      readWhole++;
      if (text.includes('\\u0069')) break;
    }
  }
  expect(traits.size).toBe(readWhole);
  // With them known, a second search gives the same verdicts.
  expect(await all(verdicts(0, 0, traits))).toEqual(holds);
  expect(openDescriptors()).toBe(before);
});

test('from a cursor\'s session on: the same verdicts', async () => {
  expect(await all(verdicts(7, 0), 7)).toEqual(holds.slice(7));
});

test('a search that stops asking early leaves no descriptor open once the thread has answered', async () => {
  const before = openDescriptors();
  const v = verdicts(0, 0);
  expect([await v.get(0), await v.get(1), await v.get(2)]).toEqual(holds.slice(0, 3));
  v.close();
  await v.drained();
  expect(openDescriptors()).toBe(before);
});

test('a file that cannot be opened makes its session pass (the open that follows reports why)', async () => {
  const gone = { ...sessions[1]!, files: [path.join(tmp, 'missing.jsonl')] };
  const v = new Verdicts(ctx, () => access, literalTest(spec.literals, true)!, spec, new TraitsCache(), [sessions[0]!, gone, sessions[2]!, gone], 0, 0);
  expect([await v.get(0), await v.get(1), await v.get(2), await v.get(3)]).toEqual([holds[0], true, holds[2], true]);
});
