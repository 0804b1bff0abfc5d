/**
 * The session digest (src/session/digest.ts) against the full summary: for every session of
 * every source — the invented corpus in every assistant's current layout (test/fixtures/sessions-corpus/generate.py:
 * subagents, forks, an archived rollout, resumes, aborted runs, partial last lines, streamed Claude responses, Copilot
 * runs with and without a shutdown, Kimi's rotations and wire files), the session fixtures, and sessions of records the
 * kernel's exact parse refuses (bad UTF-8, control characters and bad escapes inside long texts, nesting past maxDepth,
 * a truncated last line) — the digest read from raw bytes, building only what each source's normalize reads for it,
 * equals the one taken from the summary (every record parsed exactly and summarized): usage by response, tool calls,
 * times, entries, skipped records, model, session id, start, title and first prompt. get_usage_stats and list_sessions
 * answer from the digest; this is what keeps their numbers those of the summary.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../format-jsonl/src/index';
import json from '../../format-json/src/index';
import { fileService, formatsOf } from '../../../test/helpers/formats';
import { materializeSessions, SOURCES, type SessionHomes } from '../../../test/helpers/sessions';
import { DEFAULT_LIMITS } from '../../../src/kernel/config/defaults';
import { FakeClock } from '../../../src/kernel/fake-clock';
import { SessionsService } from '../src/service';
import { BUILTIN_SOURCES } from '../src/index';
import { digestOfSummary } from '../src/session/digest';
import type { Format, ToolContext } from 'mcpgw/plugin-api';
import { engineThreads } from '../../../src/engine/scan/engine-threads';
import { taskThread } from '../../../src/engine/scan/task-thread';
import { WORKER_TASK_MODULE } from '../../../src/kernel/plugins/worker-task';

const CORPUS = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'sessions-corpus');

let tmp: string;
let fixtures: SessionHomes;
let formats: Format[];

/** Lines the exact parse refuses, with a long text around each fault (the digest does not build texts). */
function hostileLines(): string[] {
  const long = 'x'.repeat(5000);
  const head = (i: number) => `{"type":"assistant","timestamp":"2026-01-01T00:00:0${i}Z","sessionId":"hostile","requestId":"r${i}","message":{"id":"m${i}","model":"claude-x","usage":{"input_tokens":${i + 1},"output_tokens":2},"content":[{"type":"text","text":"`;
  const tail = '"}]}}';
  return [
    `{"type":"user","timestamp":"2026-01-01T00:00:00Z","sessionId":"hostile","message":{"role":"user","content":"the first prompt ${long}"}}`,
    head(1) + long + tail,
    head(2) + long + '\u0001' + long + tail, // a raw control character inside a text
    head(3) + long + '\\q' + tail, // an escape JSON has not
    head(4) + long + '\\u12G4' + tail,
    head(5) + long + '\\ud800 lone' + tail, // a lone surrogate: read, as U+FFFD
    '[' .repeat(2100) + ']'.repeat(2100), // nesting past maxDepth
    '  \t ', // a blank line: no record
    `{"type":"assistant","timestamp":"2026-01-01T00:00:07Z","sessionId":"hostile","message":{"id":"m7","model":"claude-x","usage":{"input_tokens":7,"output_tokens":1e2},"content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"${long}"}}]}}\r`,
    '{"type":"user","timestamp":"2026-01-01T00:00:08Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"' + long + '"}]}}',
    head(9) + long + '"}]}} trailing', // text after the value
    head(10) + long, // a last line cut off
  ];
}

/**
 * Lines the exact parse reads, written to fool a reader that looks at bytes: member names and a usage inside texts,
 * escaped quotes and backslashes before a closing quote, escaped member names, unicode escapes in ids and models,
 * a repeated usage member, `__proto__` in a usage, 16-digit counts, and ids of one length that share a cache slot.
 */
function trickyLines(): string[] {
  const t = (i: number) => `"timestamp":"2026-02-01T00:00:0${i}Z","sessionId":"tricky"`;
  return [
    `{"type":"user",${t(0)},"message":{"role":"user","content":"the first prompt with \\"type\\":\\"assistant\\",\\"usage\\":{\\"input_tokens\\":999} inside \\\\"}}`,
    `{"type":"assistant",${t(1)},"requestId":"r\\u0031","message":{"id":"axbyc","model":"claude-\\u00e9","usage":{"input_tokens":3,"output_tokens":4,"input_tokens":5},"content":[{"type":"text","text":"\\"message\\":{\\"usage\\":{}}"}]}}`,
    `{"\\u0074ype":"assistant",${t(2)},"requestId":"r2","message":{"id":"azbyc","model":"claude-x","usage":{"__proto__":{"input_tokens":7},"input_tokens":9999999999999999,"output_tokens":1,"cache_read_input_tokens":-0},"content":[{"type":"tool_use","id":"tool\\ud83d\\ude00","name":"Re\\u0061d","input":{"type":"assistant"}}]}}`,
    `{"type":"user",${t(3)},"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tool\\ud83d\\ude00","content":"{\\"usage\\": {\\"input_tokens\\": 5}}"}]}}`,
    `{"type":"assistant",${t(4)},"requestId":"r4","message":{"id":"axbzc","model":"claude-x","usage":{"input_tokens":1.5e1,"output_tokens":2E0},"content":[{"type":"tool_use","id":"axbyc","name":"azbyc","input":{}}]}}`,
    `{"type":"custom-title",${t(5)},"customTitle":"A \\"quoted\\" title \\u00e9"}`,
  ];
}

beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-digest-')));
  const r = spawnSync('python3', [path.join(CORPUS, 'generate.py'), tmp, '4'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new Error(`python3 generate.py failed (python3 is needed for this test): ${r.error?.message ?? r.stderr}`);
  // One Claude session of hostile records, and one with bad UTF-8 and a BOM.
  const project = fs.readdirSync(path.join(tmp, 'homes', 'claude', 'projects'))[0]!;
  const dir = path.join(tmp, 'homes', 'claude', 'projects', project);
  fs.writeFileSync(path.join(dir, '00000000-0000-4000-8000-00000000aaaa.jsonl'), hostileLines().join('\n'));
  const bad = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(hostileLines()[0]! + '\n'), Buffer.from('{"type":"user","timestamp":"2026-01-01T00:00:01Z","message":{"content":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}}\n')]);
  fs.writeFileSync(path.join(dir, '00000000-0000-4000-8000-00000000bbbb.jsonl'), bad);
  fs.writeFileSync(path.join(dir, '00000000-0000-4000-8000-00000000cccc.jsonl'), trickyLines().join('\n') + '\n');
  fixtures = materializeSessions();
  formats = [...(await formatsOf(jsonl)), ...(await formatsOf(json))];
}, 60_000);

afterAll(() => {
  fixtures?.remove();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// The engine's pool of threads (kept: the clock never moves), as ctx.scan hands it to a plugin's task.
const pool = engineThreads({ clock: new FakeClock(), keep: 2, onIdleDown: () => undefined });
afterAll(() => pool.close());

function context(threads = false): ToolContext {
  const clock = new FakeClock(Date.parse('2026-06-01T00:00:00Z'));
  return {
    registry: { extensions: () => ({ list: () => BUILTIN_SOURCES }) },
    files: fileService(path.join(tmp), formats),
    limits: { ...DEFAULT_LIMITS },
    clock,
    signal: new AbortController().signal,
    deadline: clock.now() + 3_600_000,
    progress: () => undefined,
    log: { error() {}, warn() {}, info() {}, debug() {} },
    error: (code: string, message: string) => Object.assign(new Error(message), { code }),
    scan: threads ? { thread: (task: Parameters<NonNullable<ToolContext['scan']['thread']>>[0]) => taskThread(pool, WORKER_TASK_MODULE, task) } : {},
  } as unknown as ToolContext;
}

describe.each([['the corpus', () => path.join(tmp, 'homes')], ['the fixtures', () => path.join(fixtures.dir, 'homes')]])('%s', (_name, homes) => {
  test.each(SOURCES)('%s: every session\'s digest equals its summary\'s', async (source) => {
    const env = { [`MCPGW_${source.toUpperCase()}_HOME`]: path.join(homes(), source) };
    const options = { enabled: true, sources: Object.fromEntries(SOURCES.filter((s) => s !== source).map((s) => [s, { enabled: false }])), cacheDir: path.join(tmp, 'cache') };
    const service = new SessionsService(options as never, env);
    const ctx = context();
    const home = service.homes(ctx).find((h) => h.source.name === source)!;
    const catalog = await service.catalog(ctx);
    let compared = 0;
    for (const p of catalog.projects) {
      for (const session of p.sessions) {
        const located = { session, home, source: home.source };
        const fast = await service.digestNow(ctx, located);
        const summary = await service.summary(ctx, located);
        expect(summary.complete).toBe(true);
        const full = digestOfSummary(summary);
        expect({ path: session.path, digest: fast?.digest }).toEqual({ path: session.path, digest: full.digest });
        expect(JSON.parse(fast!.detail)).toEqual(JSON.parse(full.detail));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(0);
  });
});

test('the tricky session: every line read (none skipped), counted as the summary counts it', async () => {
  const env = { MCPGW_CLAUDE_HOME: path.join(tmp, 'homes', 'claude') };
  const service = new SessionsService({ enabled: true, sources: Object.fromEntries(SOURCES.filter((s) => s !== 'claude').map((s) => [s, { enabled: false }])) } as never, env);
  const ctx = context();
  const home = service.homes(ctx).find((h) => h.source.name === 'claude')!;
  const session = (await service.catalog(ctx)).projects.flatMap((p) => p.sessions).find((s) => s.path.endsWith('cccc.jsonl'))!;
  const read = (await service.digestNow(ctx, { session, home, source: home.source }))!;
  expect(read.digest).toMatchObject({ skipped: 0, entries: 6, responses: 3, calls: 2, sessionId: 'tricky', model: 'claude-x', title: 'A "quoted" title é' });
  expect(read.digest.description?.text).toBe('the first prompt with "type":"assistant","usage":{"input_tokens":999} inside \\');
  const detail = JSON.parse(read.detail) as { responses: { model: string[]; tokens: number[] }; calls: { id: string[]; name: string[] } };
  expect(detail.responses.model).toEqual(['claude-é', 'claude-x', 'claude-x']);
  expect(detail.responses.tokens).toEqual([5, 4, 0, 0, 9999999999999999, 1, 0, 0, 15, 2, 0, 0]);
  expect(detail.calls).toMatchObject({ id: ['tool\u{1F600}', 'axbyc'], name: ['Read', 'azbyc'] });
});

test('the hostile session: the refused records are skipped, the rest counted as the summary counts them', async () => {
  const env = { MCPGW_CLAUDE_HOME: path.join(tmp, 'homes', 'claude') };
  const service = new SessionsService({ enabled: true, sources: Object.fromEntries(SOURCES.filter((s) => s !== 'claude').map((s) => [s, { enabled: false }])) } as never, env);
  const ctx = context();
  const home = service.homes(ctx).find((h) => h.source.name === 'claude')!;
  const session = (await service.catalog(ctx)).projects.flatMap((p) => p.sessions).find((s) => s.path.endsWith('aaaa.jsonl'))!;
  const read = (await service.digestNow(ctx, { session, home, source: home.source }))!;
  // Of its 11 records (a blank line is none) the 3rd, 4th, 5th (a control character, bad escapes), 7th (too deep),
  // 10th (text after the value) and 11th (cut off) are refused; the lone surrogate's is read.
  expect(read.digest).toMatchObject({ entries: 5, skipped: 6, responses: 3, calls: 1, sessionId: 'hostile', model: 'claude-x' });
  expect(read.digest.description?.text).toBe('the first prompt …'); // a cut never splits a long run of token characters
});

test('read ahead on two engine threads, in batches, largest first: each session keeps the digest read here', async () => {
  const homes = path.join(tmp, 'homes');
  const env = Object.fromEntries(SOURCES.map((s) => [`MCPGW_${s.toUpperCase()}_HOME`, path.join(homes, s)]));
  const threaded = new SessionsService({ enabled: true, sources: {}, cacheDir: path.join(tmp, 'cache-threads') } as never, env);
  const here = new SessionsService({ enabled: true, sources: {}, cacheDir: path.join(tmp, 'cache-here') } as never, env);
  const ctx = context(true);
  const located = (service: SessionsService) => service.catalog(ctx).then((c) => c.projects.flatMap((p) => p.sessions).map((session) => {
    const home = service.homes(ctx).find((h) => h.source.name === session.source)!;
    return { session, home, source: home.source };
  }));
  const sessions = await located(threaded);
  expect(sessions.length).toBeGreaterThan(24); // more than one batch: both threads get some
  // Descriptors open on the sessions' files (the threads and the stats store keep descriptors of their own).
  const onSessions = () => fs.readdirSync('/proc/self/fd').filter((fd) => { try { return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(homes); } catch { return false; } }).length;
  let progress = 0;
  await threaded.readAhead(ctx, sessions, ctx.deadline, (n) => { progress = n; });
  expect(progress).toBe(sessions.length);
  expect(onSessions()).toBe(0); // every session's descriptor closed once answered
  const byPath = new Map(sessions.map((s) => [`${s.source.name}\n${s.session.path}`, s]));
  let compared = 0;
  for (const s of await located(here)) {
    const mine = byPath.get(`${s.source.name}\n${s.session.path}`)!;
    const kept = threaded.keptStats(ctx, mine);
    const read = await here.digestNow(ctx, s);
    expect({ path: s.session.path, digest: kept }).toEqual({ path: s.session.path, digest: read?.digest });
    if (!read) continue; // a session only its summary gives (not read ahead)
    expect(await threaded.statsDetail(ctx, mine, ctx.deadline)).toEqual(JSON.parse(read.detail));
    compared++;
  }
  expect(compared).toBeGreaterThan(24);
  threaded.finishStats(ctx);
});
