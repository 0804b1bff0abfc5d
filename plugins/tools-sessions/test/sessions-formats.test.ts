/**
 * Session formats beyond the first fixtures, end to end through a real MCP client against the built CLI: Gemini CLI's
 * JSON Lines sessions (a metadata first line, messages written again under their id as they change, `$set` updates,
 * `$rewindTo`, a legacy document migrated into a `.jsonl` of the same name, a subagent's log) and Kimi's token usage in
 * the session's `wire.jsonl`. Fixtures of our own (test/fixtures/sessions-formats), expected values computed by hand.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, connect, type Connected } from '../../../test/helpers/mcp';
import { materializeSessions, writeSessionsConfig, type SessionHomes } from '../../../test/helpers/sessions';

const FIXTURES = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'sessions-formats');
const CHATS = 'gemini/tmp/4b7d0e2a9c1f3e5d7b9a0c2e4f6a8b0d1c3e5f7a9b1d3f5e7c9a1b3d5f7e9c0a/chats';
const LINES = `${CHATS}/session-2026-05-02T10-00-c3d4e5f6.jsonl`;
const MIGRATED = `${CHATS}/session-2026-04-01T09-00-d1e2f3a4.jsonl`;
const KIMI = 'kimi/sessions/@MD5(configsvc)@/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d/context.jsonl';

let fx: SessionHomes;
let server: Connected;

beforeAll(async () => {
  fx = materializeSessions(FIXTURES);
  server = await connect(['--config', writeSessionsConfig(fx.dir)], { env: { ...fx.env, XDG_CACHE_HOME: path.join(fx.dir, 'cache') } });
});

afterAll(async () => {
  await server?.close();
  fx?.remove();
});

const tool = async (name: string, args: Record<string, unknown> = {}) => {
  const r = await call(server.client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${r.text}`);
  return r.data;
};

describe('Gemini CLI JSON Lines sessions', () => {
  test('listed: the .jsonl sessions; a legacy .json copied into a .jsonl is listed once; a subagent log is listed under its parent', async () => {
    const projects = (await tool('list_projects', { source: 'gemini' })).projects;
    expect(projects.map((p: any) => [p.name, p.path, p.session_count, p.subagent_count])).toEqual([['imgsvc', path.join(fx.projects, 'imgsvc'), 2, 1]]);
    const subs = (await tool('list_sessions', { project_id: projects[0].id, source: 'gemini', parent_session_id: 'c3d4e5f6-1a2b-4c3d-8e9f-0a1b2c3d4e5f' })).sessions;
    expect(subs.map((s: any) => [s.id, s.parent_session_id, s.first_prompt])).toEqual([['e7f8a9b0-0000-4000-8000-000000000001', 'c3d4e5f6-1a2b-4c3d-8e9f-0a1b2c3d4e5f', 'subagent task']]);
    const sessions = (await tool('list_sessions', { project_id: projects[0].id, source: 'gemini' })).sessions;
    expect(sessions.map((s: any) => [s.id, s.path]).sort()).toEqual([
      ['c3d4e5f6-1a2b-4c3d-8e9f-0a1b2c3d4e5f', fx.file(LINES)],
      ['d1e2f3a4-5b6c-4d7e-8f90-a1b2c3d4e5f6', fx.file(MIGRATED)],
    ]);
  });

  test('entries: each message once in its last version, rewound messages gone, the rewind and the summary kept', async () => {
    const data = await tool('get_session_entries', { path: fx.file(LINES), limit: 20, max_content_length: 0 });
    expect(data.total).toBe(6);
    expect(data.entries.map((e: any) => [e.role, e.uuid, e.text])).toEqual([
      ['user', 'u1', 'Why does the thumbnail worker crash on PNG files with an alpha channel?'],
      ['assistant', 'g1', 'Let me look at the PNG decoder first.'],
      ['checkpoint', null, '[rewound: message u2 and the later ones were taken back]'],
      ['user', 'u3', 'Instead, flatten RGBA onto white before resizing.'],
      ['assistant', 'g3', 'Flattening onto a white background before the resize fixes the crash.'],
      ['summary', null, 'Thumbnail crash on transparent PNGs'],
    ]);
    const g1 = data.entries[1];
    expect(g1.tool_uses).toEqual([{ id: 'read_file-7', name: 'read_file', input: { absolute_path: path.join(fx.projects, 'imgsvc', 'src', 'decode.ts') } }]);
    expect(g1.tool_results).toEqual([{ tool_use_id: 'read_file-7', result: 'export function decode(buf) { return sharp(buf).resize(128); }', is_error: false }]);
    expect(g1.usage).toEqual({ input_tokens: 600, output_tokens: 160, cache_read_tokens: 300, cache_write_tokens: 0 });
    const meta = await tool('get_session_metadata', { path: fx.file(LINES) });
    expect(meta.role_counts).toEqual({ user: 2, assistant: 2, checkpoint: 1, summary: 1 });
    expect(meta.description).toBe('Why does the thumbnail worker crash on PNG files with an alpha channel?');
    // created_at is the session's startTime (its first record), not its first message's time (10:00:01)
    expect(meta.meta).toMatchObject({ id: 'c3d4e5f6-1a2b-4c3d-8e9f-0a1b2c3d4e5f', created_at: '2026-05-02T10:00:00.000Z', model: 'gemini-2.5-flash' });
  });

  test('the migrated legacy session reads as lines: its copied messages, then the new ones', async () => {
    const data = await tool('get_session_entries', { path: fx.file(MIGRATED), limit: 20 });
    expect(data.entries.map((e: any) => [e.role, e.uuid])).toEqual([['user', 'm1'], ['assistant', 'm2'], ['user', 'm3'], ['assistant', 'm4']]);
  });

  test('search: a message written three times matches once; rewound text does not match', async () => {
    const once = await tool('search_sessions', { query: 'PNG decoder', source: 'gemini', limit_per_session: 0 });
    expect(once.sessions.map((s: any) => [s.session_id, s.matches.map((m: any) => [m.role, m.entry_index])])).toEqual([
      ['c3d4e5f6-1a2b-4c3d-8e9f-0a1b2c3d4e5f', [['assistant', 1]]],
    ]);
    const gone = await tool('search_sessions', { query: 'dropping the alpha', source: 'gemini' });
    expect(gone.total_matches).toBe(0);
  });

  test('usage: every response once (its last version), a rewound response still counted, per model', async () => {
    const data = await tool('get_usage_stats', { source: 'gemini' });
    // g1 600/160/300, g2 (rewound) 1000/80/0, m2 300/20/0, m4 300/20/100 on gemini-2.5-pro; g3 600/60/500 on flash
    const pro = { input_tokens: 600 + 1000 + 300 + 300, output_tokens: 160 + 80 + 20 + 20, cache_read_tokens: 300 + 100, cache_write_tokens: 0, responses: 4 };
    const flash = { input_tokens: 600, output_tokens: 60, cache_read_tokens: 500, cache_write_tokens: 0, responses: 1 };
    const total = (t: typeof pro) => t.input_tokens + t.output_tokens + t.cache_read_tokens + t.cache_write_tokens;
    expect(data.by_model).toEqual({ 'gemini-2.5-pro': { ...pro, total_tokens: total(pro) }, 'gemini-2.5-flash': { ...flash, total_tokens: total(flash) } });
    // the subagent's log (1 entry) is a session of its own under its parent: in the entries and subagent_sessions
    expect(data).toMatchObject({ total_sessions: 2, subagent_sessions: 1, total_entries: 6 + 4 + 1, responses: 5, tool_calls: 1, tool_usage: { read_file: 1 } });
  });

  test('semantic_search indexes each message once and never the rewound ones', async () => {
    const data = await tool('semantic_search', { query: 'transparent image converted before resizing', source: 'gemini', limit: 50 });
    expect(data).toMatchObject({ complete: true, sessions_pending: 0 });
    const uuids = data.results.map((r: any) => r.entry_uuid);
    expect(uuids).toContain('g3');
    expect(uuids.filter((u: string) => u === 'g1').length).toBeLessThanOrEqual(1);
    expect(uuids).not.toContain('g2');
    expect(uuids).not.toContain('u2');
  });
});

describe('Kimi token usage from wire.jsonl', () => {
  test('each StatusUpdate response once by message id: tokens apart, the session\'s time span from the wire', async () => {
    const data = await tool('get_usage_stats', { source: 'kimi' });
    // chatcmpl-aaa111 (written twice) 1200/85/2800/0; chatcmpl-bbb222 300/40/4000/250
    const kimi = { input_tokens: 1500, output_tokens: 125, cache_read_tokens: 6800, cache_write_tokens: 250, responses: 2 };
    const total = kimi.input_tokens + kimi.output_tokens + kimi.cache_read_tokens + kimi.cache_write_tokens;
    expect(data.by_source.kimi).toEqual({ ...kimi, total_tokens: total, sessions: 1, entries: 5, tool_calls: 1 });
    expect(data.by_model).toEqual({ unknown: { ...kimi, total_tokens: total } });
    const later = await tool('get_usage_stats', { source: 'kimi', since: '2026-05-02T10:00:05Z' });
    expect(later).toMatchObject({ total_sessions: 1, input_tokens: 300, output_tokens: 40, cache_read_tokens: 4000, cache_write_tokens: 250, responses: 1 });
    const before = await tool('get_usage_stats', { source: 'kimi', until: '2026-05-01T00:00:00Z' });
    expect(before).toMatchObject({ total_sessions: 0, responses: 0 });
  });

  test('tool calls without a time of their own (the context file has none) are placed by the session\'s span', async () => {
    // The session spans 10:00:00.5–10:00:09.5 (the wire): a range holding all of it counts its one call (WriteFile:0).
    const whole = await tool('get_usage_stats', { source: 'kimi', since: '2026-05-02T00:00:00Z', until: '2026-05-03T00:00:00Z' });
    expect(whole).toMatchObject({ tool_calls: 1, tool_usage: { WriteFile: 1 }, responses: 2 });
    expect(whole.warnings).toBeUndefined();
    // A range across the session's span: the call's side is unknown, left out and said.
    const later = await tool('get_usage_stats', { source: 'kimi', since: '2026-05-02T10:00:05Z' });
    expect(later).toMatchObject({ tool_calls: 0, responses: 1 });
    expect(later.warnings).toEqual([{ code: 'UNTIMED_LEFT_OUT', message: expect.stringMatching(/^1 tool call and 0 responses have no time of their own/) }]);
  });

  test('the wire log is not read as entries, and a session without one reports no usage', async () => {
    const entries = await tool('get_session_entries', { path: fx.file(KIMI), limit: 20 });
    expect(entries.entries.map((e: any) => e.role)).toEqual(['checkpoint', 'user', 'assistant', 'tool', 'assistant']);
    fs.renameSync(path.join(path.dirname(fx.file(KIMI)), 'wire.jsonl'), path.join(fx.dir, 'wire.jsonl.away'));
    try {
      const data = await tool('get_usage_stats', { source: 'kimi' });
      expect(data).toMatchObject({ total_sessions: 1, responses: 0, input_tokens: 0 });
    } finally {
      fs.renameSync(path.join(fx.dir, 'wire.jsonl.away'), path.join(path.dirname(fx.file(KIMI)), 'wire.jsonl'));
    }
  });
});
