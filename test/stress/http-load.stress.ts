import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { REPO } from '../helpers/mcp';
import { callTool, connectHttp, connectV1Http, startHttp, type HttpServer } from '../helpers/http';

/**
 * A bounded load on one `serve --http` over loopback: 64 concurrent clients (2.x in the 2025 era, 2.x in
 * the 2026-07-28 era, 1.32) × 50 mixed calls (open, search, get_record, get_value_at_path, json_read pages,
 * closes). No call may fail; every answer must equal the answer the same call got when one client ran the
 * same script alone; after the clients are gone no data file is open in the server and every session is
 * closed; its RSS comes back to within 20% of the level before the load (taken after a first burst has sized
 * the fresh process). Speed is not asserted here (bench/: `npm run bench -- --only http`).
 * A stress case (`npm run test:stress`): it runs alone, so its load does not slow timing-sensitive tests beside it.
 */
jest.setTimeout(300_000);

const CLIENTS = 64;
const CALLS = 50;
const EVENTS = 'events.jsonl';
/** The first records of examples/events.jsonl: enough for pages and matches, small enough to keep the run short. */
const RECORDS = 500;

type Kind = 'v2-legacy' | 'v2-modern' | 'v1';
/** 24 + 16 + 24: both eras and both SDK majors at once. */
const kindOf = (i: number): Kind => (i % 8 < 3 ? 'v2-legacy' : i % 8 < 5 ? 'v2-modern' : 'v1');

interface Step {
  tool: string;
  args: (s: State) => Record<string, unknown>;
  /** What to keep from the answer for later steps. */
  keep?: (s: State, data: any) => void;
}
interface State { handle?: string; fileId?: string; cursor?: string }

/**
 * The 50 calls of one client. Clients that `keepOpen` end without closing their files: ending their
 * session must close them.
 */
function script(keepOpen: boolean, calls = CALLS): Step[] {
  const steps: Step[] = [
    { tool: 'open_file', args: () => ({ path: EVENTS }), keep: (s, d) => (s.handle = d.handle) },
    { tool: 'json_open', args: () => ({ path: EVENTS }), keep: (s, d) => (s.fileId = d.file_id) },
  ];
  for (let k = 0; steps.length < calls - 2; k++) {
    switch (k % 6) {
      case 0: steps.push({ tool: 'search', args: (s) => ({ handle: s.handle, query: '$.status = "failed"', match_case: true, max_results: 5 }) }); break;
      case 1: steps.push({ tool: 'get_record', args: (s) => ({ handle: s.handle, index: (k * 37) % RECORDS }) }); break;
      case 2: steps.push({ tool: 'json_read', args: (s) => ({ file_id: s.fileId, language: 'jsonpath', query: '$[?@.service=="auth"].latency_ms', max_items: 20 }), keep: (s, d) => (s.cursor = d.next_cursor) }); break;
      case 3: steps.push({ tool: 'json_read', args: (s) => ({ cursor: s.cursor }) }); break;
      case 4: steps.push({ tool: 'search', args: (s) => ({ handle: s.handle, query: 'Zürich', max_results: 3 }) }); break;
      default: steps.push({ tool: 'get_value_at_path', args: (s) => ({ handle: s.handle, index: (k * 11) % RECORDS, path: 'user.address.city' }) });
    }
  }
  if (keepOpen) {
    steps.push({ tool: 'get_record_count', args: (s) => ({ handle: s.handle }) }, { tool: 'get_file_info', args: (s) => ({ handle: s.handle }) });
  } else {
    steps.push({ tool: 'close_file', args: (s) => ({ handle: s.handle }) }, { tool: 'json_close', args: (s) => ({ file_id: s.fileId }) });
  }
  return steps;
}

/** The answer with this client's own ids (handles, file ids, cursors) replaced by their role. */
function normalize(data: unknown, s: State): unknown {
  return JSON.parse(JSON.stringify(data), (_k, v) => {
    if (typeof v !== 'string') return v;
    if (v === s.handle) return '<handle>';
    if (v === s.fileId) return '<file_id>';
    if (/^(jc|sc)_[0-9a-f]{16}$/.test(v)) return '<cursor>';
    return v;
  });
}

interface Run { answers: unknown[]; failures: string[] }

async function runClient(url: URL, kind: Kind, keepOpen: boolean, calls = CALLS): Promise<Run> {
  const client = kind === 'v1' ? await connectV1Http(url) : await connectHttp(url, { era: kind === 'v2-modern' ? 'modern' : 'legacy' });
  const state: State = {};
  const answers: unknown[] = [];
  const failures: string[] = [];
  try {
    for (const step of script(keepOpen, calls)) {
      try {
        const r = await callTool(client, step.tool, step.args(state));
        if (r.isError) failures.push(`${step.tool}: ${r.text}`);
        step.keep?.(state, r.data);
        answers.push(normalize(r.data, state));
      } catch (err) {
        failures.push(`${step.tool}: ${(err as Error).message}`);
        answers.push(null);
      }
    }
  } finally {
    if (kind !== 'v2-modern') await (client.transport as StreamableHTTPClientTransport).terminateSession();
    await client.close();
  }
  return { answers, failures };
}

async function until(what: string, pred: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let server: HttpServer;
let dir: string;
beforeAll(async () => {
  // 16 clients of the 2026 era share one principal (no token: "anonymous"), so its store gets room for
  // their files and their unfinished cursors.
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-load-'));
  fs.mkdirSync(path.join(dir, 'data'));
  const lines = fs.readFileSync(path.join(REPO, 'examples', EVENTS), 'utf8').split('\n').slice(0, RECORDS);
  fs.writeFileSync(path.join(dir, 'data', EVENTS), lines.join('\n') + '\n');
  fs.writeFileSync(path.join(dir, '.mcpgwrc.json'), JSON.stringify({ root: 'data', limits: { maxOpenFiles: 64, maxCursors: 1024 } }));
  server = await startHttp(['--config', path.join(dir, '.mcpgwrc.json'), '--log-level', 'debug']);
});
afterAll(async () => {
  expect(await server.stop()).toBe(0);
  expect(server.stdout()).toBe('');
  fs.rmSync(dir, { recursive: true, force: true });
});

/** One burst: CLIENTS clients at once, half of the 2025-era ones leaving their files for the session's end to close. */
async function burst(url: URL) {
  return Promise.all(
    Array.from({ length: CLIENTS }, (_, i) => {
      const kind = kindOf(i);
      const keepOpen = kind !== 'v2-modern' && i % 2 === 1;
      return runClient(url, kind, keepOpen).then((run) => ({ i, kind, keepOpen, run }));
    }),
  );
}

test(`${CLIENTS} concurrent clients × ${CALLS} mixed calls: no failure, sequential answers, no leaked files, RSS back within 20%`, async () => {
  // The reference: each script run by one client alone.
  const reference = { open: await runClient(server.url, 'v2-legacy', true), closed: await runClient(server.url, 'v2-legacy', false) };
  expect(reference.open.failures).toEqual([]);
  expect(reference.closed.failures).toEqual([]);
  expect(reference.closed.answers).toHaveLength(CALLS);

  // Three bursts. The first two size a fresh process for this concurrency (V8's young generation grows to its
  // 32 MB maximum and malloc's arenas grow, once); the pre-load level is taken after them, so the third shows
  // whether memory keeps growing.
  let before = 0;
  for (const round of [1, 2, 3]) {
    if (round === 3) before = server.rss();
    const runs = await burst(server.url);
    const failures = runs.flatMap(({ i, kind, run }) => run.failures.map((f) => `round ${round}, client ${i} (${kind}): ${f}`));
    expect(failures).toEqual([]);
    for (const { i, keepOpen, run } of runs) {
      expect({ round, client: i, answers: run.answers }).toEqual({ round, client: i, answers: (keepOpen ? reference.open : reference.closed).answers });
    }
    // Every file closed: by close_file / json_close, or by the end of the 2025 sessions.
    expect(server.openFiles(EVENTS)).toBe(0);
  }

  const log = server.stderr();
  const opened = log.match(/http: session opened/g)?.length ?? 0;
  const closed = log.match(/http: session closed/g)?.length ?? 0;
  expect(opened).toBe(2 + 3 * Array.from({ length: CLIENTS }, (_, i) => kindOf(i)).filter((k) => k !== 'v2-modern').length);
  expect(closed).toBe(opened);

  // Memory: back within 20% of the pre-load level (polled: V8 may still be collecting).
  let after = server.rss();
  await until(`RSS to return within 20% of ${before} bytes (last ${after})`, () => (after = server.rss()) <= before * 1.2, 20_000).catch(() => undefined);
  expect(Math.round((after / before) * 100) / 100).toBeLessThanOrEqual(1.2);
});
