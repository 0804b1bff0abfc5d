/**
 * The sessions bundle's bounds and privacy through a real MCP client: search_sessions pages at the byte cap, only
 * session files are read, what the bundle writes is private, a damaged index is rebuilt, a semantic_search answered
 * before its index is built says so and how to go on.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../../../test/helpers/mcp';

let dir: string;
let home: string;
let projectDir: string;
let cache: string;
let server: Connected;

/** Sessions written here: SESSIONS files of ENTRIES user lines each, every line holding the word "needle" once. */
const SESSIONS = 10;
const ENTRIES = 60;

function claudeLine(session: string, i: number, text: string): string {
  return JSON.stringify({ type: 'user', uuid: `${session}-u${i}`, timestamp: `2025-05-01T10:${String(i).padStart(2, '0')}:00.000Z`, sessionId: session, cwd: projectDir, message: { role: 'user', content: [{ type: 'text', text }] } });
}

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-sessbounds-')));
  projectDir = path.join(dir, 'work', 'proj');
  fs.mkdirSync(projectDir, { recursive: true });
  home = path.join(dir, 'claude');
  const folder = path.join(home, 'projects', projectDir.replace(/[/.]/g, '-'));
  fs.mkdirSync(folder, { recursive: true });
  for (let s = 0; s < SESSIONS; s++) {
    const id = `00000000-0000-4000-8000-${String(s).padStart(12, '0')}`;
    const lines = [];
    for (let i = 0; i < ENTRIES; i++) lines.push(claudeLine(id, i, `needle ${i}`));
    const file = path.join(folder, `${id}.jsonl`);
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const t = new Date(Date.UTC(2025, 4, 1 + s));
    fs.utimesSync(file, t, t);
  }
  cache = path.join(dir, 'cache');
  // A cache folder left open to others, with an index file readable by all: both are made private on first use.
  fs.mkdirSync(path.join(cache, 'mcpgw'), { recursive: true, mode: 0o755 });
  fs.chmodSync(path.join(cache, 'mcpgw'), 0o755);
  fs.writeFileSync(path.join(cache, 'mcpgw', 'sessions-index.sqlite'), '', { mode: 0o644 });
  fs.chmodSync(path.join(cache, 'mcpgw', 'sessions-index.sqlite'), 0o644);
  // Files under the home that are not sessions: a settings file with a key, the prompt history.
  fs.writeFileSync(path.join(home, '.env'), 'API_KEY=sk-live-0123456789abcdef\n');
  fs.writeFileSync(path.join(home, 'history.jsonl'), JSON.stringify({ display: 'my private prompt', project: projectDir }) + '\n');
  const config = path.join(dir, 'mcpgw.json');
  fs.writeFileSync(config, JSON.stringify({ profiles: { default: { bundles: ['sessions'] } } }));
  server = await connect(['--config', config], { env: { MCPGW_CLAUDE_HOME: home, MCPGW_CODEX_HOME: path.join(dir, 'none'), MCPGW_COPILOT_HOME: path.join(dir, 'none'), MCPGW_GEMINI_HOME: path.join(dir, 'none'), MCPGW_QWEN_HOME: path.join(dir, 'none'), MCPGW_KIMI_HOME: path.join(dir, 'none'), XDG_CACHE_HOME: cache } });
});

afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('search_sessions at the byte cap', () => {
  test('a search whose matches pass maxResultBytes answers a cut page with a cursor; the pages hold every match once', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    while (pages < 500) {
      pages++;
      const r = await call(server.client, 'search_sessions', { query: 'needle', limit: 1000, limit_per_session: 0, ...(cursor ? { cursor } : {}) });
      expect(r.isError).toBe(false);
      expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(65536);
      for (const s of r.data.sessions) for (const m of s.matches) seen.push(`${s.session_id}#${m.entry_index}`);
      cursor = r.data.next_cursor;
      if (!cursor) { expect(r.data.complete).toBe(true); break; }
      expect(r.data.complete).toBe(false);
      expect(r.data.cut.limit).toBe('maxResultBytes');
    }
    expect(pages).toBeGreaterThan(1);
    const expected: string[] = [];
    for (let s = SESSIONS - 1; s >= 0; s--) for (let i = 0; i < ENTRIES; i++) expected.push(`00000000-0000-4000-8000-${String(s).padStart(12, '0')}#${i}`);
    expect(seen).toEqual(expected);
  });
});


test('every sessions tool that can answer complete: false tells the model to call again', async () => {
  const { tools } = await server.client.listTools();
  // The tools whose answers carry complete (their output schemas in the plugin).
  const names = ['get_session_entries', 'get_session_metadata', 'get_usage_stats', 'list_sessions', 'search_sessions', 'semantic_search'];
  const partial = tools.filter((t: any) => names.includes(t.name));
  expect(partial).toHaveLength(names.length);
  for (const t of partial) expect({ name: t.name, says: /complete: false[^.]*?[:;—-]\s*call again/i.test(t.description ?? '') }).toEqual({ name: t.name, says: true });
});

describe('only session files', () => {
  test('a file under a home that is not a session (.env, the prompt history) is ACCESS_DENIED in every tool that takes a path, its content never shown', async () => {
    for (const name of ['.env', 'history.jsonl']) {
      for (const t of ['get_session_metadata', 'get_session_entries']) {
        const r = await call(server.client, t, { path: path.join(home, name) });
        expect({ t, name, code: r.data.error?.code }).toEqual({ t, name, code: 'ACCESS_DENIED' });
        expect(r.data.error.message).toBe(`${path.join(home, name)} is not a session file of claude: the session tools read only session files.`);
        expect(r.text).not.toMatch(/sk-live|private prompt/);
      }
    }
    const found = await call(server.client, 'search_sessions', { query: 'sk-live' });
    expect(found.data.total_matches).toBe(0);
  });

  test('a malformed line is reported by position and kind, never quoted', async () => {
    const folder = path.join(home, 'projects', projectDir.replace(/[/.]/g, '-'));
    const f = path.join(folder, '11111111-0000-4000-8000-000000000000.jsonl');
    const first = claudeLine('11111111-0000-4000-8000-000000000000', 0, 'hello');
    fs.writeFileSync(f, `${first}\nAPI_KEY=sk-live-0123456789abcdef\n{"partial": "sk-live-0123`);
    try {
      const r = await call(server.client, 'get_session_metadata', { path: f });
      expect(r.isError).toBe(false);
      expect(r.data.skipped_records).toBe(2);
      const second = Buffer.byteLength(first) + 1;
      const third = second + Buffer.byteLength('API_KEY=sk-live-0123456789abcdef\n');
      const partial = '{"partial": "sk-live-0123';
      expect(r.data.warnings).toEqual([
        { code: 'SYNTAX_ERROR', message: `Record 1 was skipped: not valid JSON (line 2, column 1, byte ${second})` },
        { code: 'SYNTAX_ERROR', message: `Record 2 was skipped: the record ends early: a line still being written or cut off (line 3, column ${partial.length + 1}, byte ${third + partial.length})` },
      ]);
      expect(r.text).not.toContain('sk-live');
      expect(r.text).not.toContain('API_KEY');
    } finally {
      fs.unlinkSync(f);
    }
  });
});

describe('the semantic index', () => {
  test('injected context (a command caveat, a generated title) is not indexed; what the person typed is', async () => {
    const folder = path.join(home, 'projects', projectDir.replace(/[/.]/g, '-'));
    const sid = '22222222-0000-4000-8000-000000000000';
    const f = path.join(folder, `${sid}.jsonl`);
    const lines = [
      { type: 'summary', summary: 'Quokkatitle generated session title', leafUuid: 'x' },
      { type: 'user', isMeta: true, uuid: 'm-1', timestamp: '2025-05-02T10:00:00.000Z', sessionId: sid, cwd: projectDir, message: { role: 'user', content: '<local-command-caveat>Caveat: the wombatcaveat messages below were generated by the user while running local commands.</local-command-caveat>' } },
      { type: 'user', uuid: 'm-2', timestamp: '2025-05-02T10:00:01.000Z', sessionId: sid, cwd: projectDir, message: { role: 'user', content: 'Please look at the platypusprompt handler.' } },
    ];
    fs.writeFileSync(f, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    try {
      const typed = await call(server.client, 'semantic_search', { query: 'platypusprompt' });
      expect(typed.data.results.filter((r: any) => r.session_id === sid).map((r: any) => r.entry_uuid)).toEqual(['m-2']);
      for (const q of ['wombatcaveat', 'quokkatitle']) {
        const r = await call(server.client, 'semantic_search', { query: q });
        expect({ q, found: r.data.results.filter((x: any) => x.session_id === sid && x.preview.toLowerCase().includes(q)).length }).toEqual({ q, found: 0 });
      }
    } finally {
      fs.unlinkSync(f);
    }
  });
});

describe('a first semantic_search with little time', () => {
  test('an answer given before the index is built says so and how to go on; calling again gets a complete one', async () => {
    // 600 ms a call: the call waits for the build 100 ms (its time less the reserve for the query); whether the
    // build of these 10 sessions is done by then depends on the machine, so every answer is checked for what it says.
    const config = path.join(dir, 'mcpgw-short.json');
    fs.writeFileSync(config, JSON.stringify({ profiles: { default: { bundles: ['sessions'], limits: { requestTimeoutMs: 600 } } } }));
    const none = path.join(dir, 'none');
    const short = await connect(['--config', config], { env: { MCPGW_CLAUDE_HOME: home, MCPGW_CODEX_HOME: none, MCPGW_COPILOT_HOME: none, MCPGW_GEMINI_HOME: none, MCPGW_QWEN_HOME: none, MCPGW_KIMI_HOME: none, XDG_CACHE_HOME: path.join(dir, 'cache-short') } });
    try {
      const answers: any[] = [];
      for (let i = 0; i < 300; i++) {
        const r = await call(short.client, 'semantic_search', { query: 'needle', limit: 5 });
        expect(r.isError).toBe(false);
        answers.push(r.data);
        if (r.data.complete) break;
      }
      const last = answers[answers.length - 1];
      expect(last).toMatchObject({ complete: true, sessions_indexed: SESSIONS, sessions_pending: 0 });
      expect(last.hint).toBeUndefined();
      for (const a of answers.slice(0, -1)) {
        expect(a.complete).toBe(false);
        expect(a.sessions_indexed + a.sessions_pending).toBe(SESSIONS);
        expect(a.hint).toMatch(new RegExp(`^The search index is being built \\(\\d+ of ${SESSIONS} sessions looked at.*\\): these results cover the ${a.sessions_indexed} sessions indexed so far\\. The build goes on in the background; call semantic_search again`));
      }
    } finally {
      await short.close();
    }
  });
});

describe('what the bundle writes', () => {
  test('the index folder is made 0700 and its files 0600, also when they existed with wider modes', async () => {
    const r = await call(server.client, 'semantic_search', { query: 'needle' });
    expect(r.isError).toBe(false);
    const folder = path.join(cache, 'mcpgw');
    expect((fs.statSync(folder).mode & 0o777).toString(8)).toBe('700');
    // The bundle's files (the kernel's own index cache is the folder index/, not the bundle's).
    const files = fs.readdirSync(folder).filter((f) => f.startsWith('sessions-index'));
    expect(files).toContain('sessions-index.sqlite');
    expect(files.length).toBeGreaterThan(1); // SQLite's write-ahead log and shared memory, created by SQLite itself
    for (const f of files) expect({ f, mode: (fs.statSync(path.join(folder, f)).mode & 0o777).toString(8) }).toEqual({ f, mode: '600' });
  });

  test('a damaged index is thrown away and built again: the next search answers, complete', async () => {
    const file = path.join(cache, 'mcpgw', 'sessions-index.sqlite');
    const before = await call(server.client, 'semantic_search', { query: 'needle', limit: 3 });
    expect(before.data.results.length).toBe(3);
    // Every page overwritten in place (the server keeps the file open).
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.alloc(Math.max(4096, fs.fstatSync(fd).size), 0x5a), 0, undefined, 0);
    fs.closeSync(fd);
    if (fs.existsSync(`${file}-wal`)) fs.truncateSync(`${file}-wal`, 0);
    const after = await call(server.client, 'semantic_search', { query: 'needle', limit: 3 });
    expect(after.isError).toBe(false);
    expect(after.data.complete).toBe(true);
    expect(after.data.sessions_indexed).toBe(SESSIONS);
    expect(after.data.results.length).toBe(3);
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
  });
});
