/**
 * The session-history bundle end to end through a real MCP client against the built CLI, over fixtures of our own
 * for every source (copied to a temp folder with the homes given by MCPGW_<NAME>_HOME).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, connect, NODE, type Connected } from '../../../test/helpers/mcp';
import { materializeSessions, writeSessionsConfig, type SessionHomes } from '../../../test/helpers/sessions';
import { until } from '../../../test/helpers/until';
import { startCliHost, type CliHost } from '../../../test/helpers/cli-host';

const S1 = 'claude/projects/-ROOT-webapp/5f0c1a2e-1111-4a4a-9b9b-000000000001.jsonl';
const S2 = 'claude/projects/-ROOT-webapp/5f0c1a2e-2222-4a4a-9b9b-000000000002.jsonl';
const S3 = 'claude/projects/-ROOT-old-api/5f0c1a2e-3333-4a4a-9b9b-000000000003.jsonl';
const CODEX = 'codex/sessions/2025/04/02/rollout-2025-04-02T10-00-00-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl';
const COPILOT = 'copilot/session-state/8d3f1e0a-5c4b-4f7e-9a55-2b6c7d8e9f01/events.jsonl';
const GEMINI = 'gemini/tmp/9f2c4e1d7a8b6c3e5f0a1b2c3d4e5f60718293a4b5c6d7e8f901a2b3c4d5e6f7/chats/session-2025-06-01T11-00-a6b2c7d1.json';
const QWEN = 'qwen/projects/-ROOT-dates/chats/3c1d2e4f-6a7b-4c8d-9e0f-112233445566.jsonl';
const KIMI = 'kimi/sessions/@MD5(configsvc)@/f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9/context.jsonl';

/** The bundle's tools, in the order it registers them. */
const TOOLS = ['list_sources', 'list_projects', 'list_sessions', 'get_session_metadata', 'get_session_entries', 'list_active_sessions', 'search_sessions', 'semantic_search', 'get_usage_stats'];

let fx: SessionHomes;
let server: Connected;

beforeAll(async () => {
  fx = materializeSessions();
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

describe('listing', () => {
  test('list_sources: the six sources, each available with its sessions folder', async () => {
    const data = await tool('list_sources');
    expect(data.sources.map((s: any) => [s.name, s.available, s.base_path, s.home_from])).toEqual([
      ['claude', true, path.join(fx.homes.claude, 'projects'), 'environment'],
      ['codex', true, path.join(fx.homes.codex, 'sessions'), 'environment'],
      ['copilot', true, path.join(fx.homes.copilot, 'session-state'), 'environment'],
      ['gemini', true, path.join(fx.homes.gemini, 'tmp'), 'environment'],
      ['qwen', true, path.join(fx.homes.qwen, 'projects'), 'environment'],
      ['kimi', true, path.join(fx.homes.kimi, 'sessions'), 'environment'],
    ]);
    expect(data.total).toBe(6);
  });

  test('list_projects: every source\'s projects with their real folders; a deleted folder is hidden unless include_deleted, and counted', async () => {
    const data = await tool('list_projects');
    const rows = data.projects.map((p: any) => [p.source, p.name, p.path, p.session_count, p.path_exists]).sort();
    expect(rows).toEqual([
      ['claude', 'webapp', path.join(fx.projects, 'webapp'), 2, true],
      ['codex', 'cli-tool', path.join(fx.projects, 'cli-tool'), 1, true],
      ['copilot', 'payments', path.join(fx.projects, 'payments'), 1, true],
      ['gemini', 'imgsvc', path.join(fx.projects, 'imgsvc'), 1, true],
      ['kimi', 'configsvc', path.join(fx.projects, 'configsvc'), 1, true],
      ['qwen', 'dates', path.join(fx.projects, 'dates'), 1, true],
    ]);
    expect(data.deleted_hidden).toBe(1); // old-api: said, not silently left out
    const all = await tool('list_projects', { include_deleted: true, source: 'claude' });
    expect(all.projects.map((p: any) => [p.name, p.path_exists]).sort()).toEqual([['old-api', false], ['webapp', true]]);
    expect(all.deleted_hidden).toBeUndefined();
  });

  test('list_projects pages with limit/offset', async () => {
    const first = await tool('list_projects', { limit: 4 });
    expect(first.projects).toHaveLength(4);
    expect(first.has_more).toBe(true);
    expect(first.next_offset).toBe(4);
    const rest = await tool('list_projects', { limit: 4, offset: 4 });
    expect(rest.projects).toHaveLength(2);
    expect(rest.has_more).toBe(false);
    expect(new Set([...first.projects, ...rest.projects].map((p: any) => p.id)).size).toBe(6);
  });

  test('list_sessions: newest first, entry counts; the subagent log is listed under its parent, not among the sessions', async () => {
    const projects = await tool('list_projects', { source: 'claude' });
    const data = await tool('list_sessions', { project_id: projects.projects[0].id, source: 'claude' });
    fs.utimesSync(fx.file(S2), new Date('2025-01-02T00:00:00Z'), new Date('2025-01-02T00:00:00Z'));
    const again = await tool('list_sessions', { project_id: projects.projects[0].id, source: 'claude' });
    expect(data.sessions.map((s: any) => s.path).sort()).toEqual([fx.file(S1), fx.file(S2)].sort());
    expect(again.sessions.map((s: any) => [s.id, s.entry_count, s.created_at, s.file_size])).toEqual([
      ['5f0c1a2e-2222-4a4a-9b9b-000000000002', 3, '2025-03-12T14:00:00.000Z', fs.statSync(fx.file(S2)).size],
      ['5f0c1a2e-1111-4a4a-9b9b-000000000001', 14, '2025-03-10T09:00:00.500Z', fs.statSync(fx.file(S1)).size],
    ]);
    expect(again.sessions.map((s: any) => [s.subagent_count, s.parent_session_id])).toEqual([[0, null], [1, null]]);
    const subs = await tool('list_sessions', { project_id: projects.projects[0].id, source: 'claude', parent_session_id: '5f0c1a2e-1111-4a4a-9b9b-000000000001' });
    expect(subs.sessions.map((s: any) => [s.id, s.parent_session_id, s.entry_count, s.first_prompt])).toEqual([['agent-a1', '5f0c1a2e-1111-4a4a-9b9b-000000000001', 1, 'subagent task']]);
    expect(subs.total).toBe(1);
    const subMeta = await tool('get_session_metadata', { path: subs.sessions[0].path });
    expect(subMeta.meta).toMatchObject({ id: 'agent-a1', parent_session_id: '5f0c1a2e-1111-4a4a-9b9b-000000000001', subagent_count: 0 });
    expect(projects.projects[0]).toMatchObject({ session_count: 2, subagent_count: 1 });
    expect(again.sessions[0].modified_at).toBe('2025-01-02T00:00:00.000Z');
    expect(again.sessions[1].first_prompt).toBe('The websocket connection drops after 60 seconds without traffic. Can you find where the timeout is set?');
    expect(again.complete).toBe(true);
  });

  test('list_sessions: an unknown project or source is NOT_FOUND with a hint', async () => {
    const r = await call(server.client, 'list_sessions', { project_id: 'nope', source: 'claude' });
    expect(r.isError).toBe(true);
    expect(r.data.error.code).toBe('NOT_FOUND');
    const s = await call(server.client, 'list_sessions', { project_id: 'x', source: 'nosuch' });
    expect(s.data.error.code).toBe('NOT_FOUND');
    expect(s.data.error.hint).toContain('claude');
  });
});

describe('metadata', () => {
  test('a Claude session: meta, description, role counts, previews', async () => {
    const data = await tool('get_session_metadata', { path: fx.file(S1) });
    expect(data.meta).toEqual({
      id: '5f0c1a2e-1111-4a4a-9b9b-000000000001',
      path: fx.file(S1),
      created_at: '2025-03-10T09:00:00.500Z',
      modified_at: '2025-01-01T00:00:00.000Z',
      model: 'claude-sonnet-4-5-20250929',
      git_branch: 'fix/ws-timeout',
      source: 'claude',
      project_path: path.join(fx.projects, 'webapp'),
      file_size: fs.statSync(fx.file(S1)).size,
      title: 'Fixing the websocket idle timeout',
      parent_session_id: null,
      forked_from: null,
      subagent_count: 1,
    });
    expect(data.description).toBe('The websocket connection drops after 60 seconds without traffic. Can you find where the timeout is set?');
    expect(data.role_counts).toEqual({ summary: 1, checkpoint: 1, user: 2, assistant: 7, tool: 2, system: 1 });
    expect(data.total_entries).toBe(14);
    expect(data.entry_summary.map((e: any) => e.role)).toEqual(['summary', 'checkpoint', 'user', 'assistant', 'assistant', 'assistant', 'assistant', 'tool', 'assistant', 'assistant', 'tool', 'user', 'assistant', 'system']);
    expect(data.entry_summary[3]).toMatchObject({ index: 3, has_thinking: true, has_tool_use: false, content_length: 0 });
    expect(data.entry_summary[5]).toMatchObject({ index: 5, has_tool_use: true, preview: '[Grep] {"pattern":"idleTimeout","path":"src"}' });
    expect(data.skipped_records).toBe(0);
    expect(data.complete).toBe(true);
  });

  test('summary_only: user-message previews, 5 by default; limit/offset page them', async () => {
    const data = await tool('get_session_metadata', { path: fx.file(S1), summary_only: true });
    expect(data.entry_summary.map((e: any) => [e.index, e.role])).toEqual([[2, 'user'], [11, 'user']]);
    const paged = await tool('get_session_metadata', { path: fx.file(S1), limit: 4, offset: 10 });
    expect(paged.entry_summary.map((e: any) => e.index)).toEqual([10, 11, 12, 13]);
    expect(paged.has_more).toBe(false);
  });

  test('a session being written: the partial last line is skipped and counted', async () => {
    const data = await tool('get_session_metadata', { path: fx.file(S2) });
    expect(data.total_entries).toBe(3);
    expect(data.skipped_records).toBe(1);
    expect(data.warnings[0].code).toBe('SYNTAX_ERROR');
  });

  test('a malformed line in the middle is skipped, the lines after it are read', async () => {
    const data = await tool('get_session_metadata', { path: fx.file(S3) });
    expect(data.role_counts).toEqual({ user: 1, assistant: 2, tool: 1 });
    expect(data.skipped_records).toBe(1);
  });

  test.each([
    // the <environment_context> block Codex writes as a user message is an injected system entry
    [CODEX, 'codex', { user: 1, assistant: 3, tool: 1, system: 2 }, 'gpt-5-codex', 'main'],
    [COPILOT, 'copilot', { user: 1, assistant: 3, tool: 1, system: 1 }, 'gpt-5', 'main'],
    [GEMINI, 'gemini', { user: 1, assistant: 1, system: 1 }, 'gemini-2.5-pro', null],
    [QWEN, 'qwen', { user: 1, assistant: 2, tool: 1 }, 'qwen3-coder-plus', 'main'],
    [KIMI, 'kimi', { checkpoint: 1, user: 2, assistant: 2, tool: 2 }, null, null],
  ])('%s: role counts, model and branch', async (rel, source, roles, model, branch) => {
    const data = await tool('get_session_metadata', { path: fx.file(rel) });
    expect(data.meta.source).toBe(source);
    expect(data.role_counts).toEqual(roles);
    expect(data.meta.model).toBe(model);
    expect(data.meta.git_branch).toBe(branch);
    expect(data.skipped_records).toBe(0);
  });
});

describe('entries', () => {
  test('defaults: 5 entries from the start, total and paging', async () => {
    const data = await tool('get_session_entries', { path: fx.file(S1) });
    expect(data.entries.map((e: any) => e.index)).toEqual([0, 1, 2, 3, 4]);
    expect(data).toMatchObject({ total: 14, returned: 5, has_more: true, next_offset: 5 });
    expect(data.entries[0]).toEqual({
      // a summary line has no uuid of its own (its leafUuid, c1-0012, is the last message's)
      index: 0, uuid: null, role: 'summary', timestamp: null, text: 'Fixing the websocket idle timeout', text_truncated: false,
      tool_uses: [], tool_results: [], model: null, usage: null, injected: true,
    });
  });

  test('tool uses carry their input as an object; usage repeats on each line of a response', async () => {
    const data = await tool('get_session_entries', { path: fx.file(S1), entry_indices: [5, 7] });
    expect(data.entries[0].tool_uses).toEqual([{ id: 'toolu_01', name: 'Grep', input: { pattern: 'idleTimeout', path: 'src' } }]);
    expect(data.entries[0].usage).toEqual({ input_tokens: 12, output_tokens: 340, cache_read_tokens: 1500, cache_write_tokens: 800 });
    expect(data.entries[1]).toMatchObject({ role: 'tool', tool_results: [
      { tool_use_id: 'toolu_01', result: 'src/server.ts:42:  idleTimeout: 60,', is_error: false },
      { tool_use_id: 'toolu_02', result: 'export const server = createServer({ idleTimeout: 60 });', is_error: false },
    ] });
  });

  test('roles filter, thinking only when asked, images summarized', async () => {
    const users = await tool('get_session_entries', { path: fx.file(S1), roles: ['user'], limit: 10 });
    expect(users.total).toBe(2);
    expect(users.entries[1].text).toBe('Here is the network tab after the change — café ☕ works now.\n\n[image: image/png, 96 bytes of base64]');
    const plain = await tool('get_session_entries', { path: fx.file(S1), entry_indices: [3] });
    expect(plain.entries[0]).not.toHaveProperty('thinking');
    const thinking = await tool('get_session_entries', { path: fx.file(S1), entry_indices: [3], include_thinking: true });
    expect(thinking.entries[0].thinking).toBe('The drop after exactly 60 s suggests an idle timeout on the server.');
  });

  test('max_content_length cuts text at a character boundary; 0 means no limit', async () => {
    const cut = await tool('get_session_entries', { path: fx.file(S1), entry_indices: [11], max_content_length: 49 });
    expect(cut.entries[0].text).toBe('Here is the network tab after the change — café ☕');
    expect(cut.entries[0].text_truncated).toBe(true);
    const whole = await tool('get_session_entries', { path: fx.file(S1), entry_indices: [11], max_content_length: 0 });
    expect(whole.entries[0].text_truncated).toBe(false);
  });

  test('codex: a function call\'s JSON arguments become an object; echoed event messages are not entries', async () => {
    const data = await tool('get_session_entries', { path: fx.file(CODEX), limit: 20 });
    expect(data.total).toBe(7);
    const call = data.entries.find((e: any) => e.tool_uses.length);
    expect(call.tool_uses[0]).toEqual({ id: 'call_A1', name: 'shell', input: { command: ['rg', '-n', '--', '--verbose'], workdir: path.join(fx.projects, 'cli-tool') } });
    const out = data.entries.find((e: any) => e.role === 'tool');
    expect(out.tool_results[0]).toEqual({ tool_use_id: 'call_A1', result: 'src/cli.rs:12:    #[arg(long)] verbose: bool,\n', is_error: false });
  });

  test('kimi: the history before /clear (context_1.jsonl) is read before context.jsonl, as one sequence', async () => {
    const data = await tool('get_session_entries', { path: fx.file(KIMI), limit: 20 });
    expect(data.entries.map((e: any) => e.role)).toEqual(['checkpoint', 'user', 'assistant', 'tool', 'assistant', 'tool', 'user']);
    expect(data.entries[6].text).toBe('Thanks!');
    expect(data.entries[2].tool_uses[0]).toEqual({ id: 'ReadFile:0', name: 'ReadFile', input: { path: 'config.py' } });
  });

  test('gemini: one JSON document, its messages are the entries', async () => {
    const data = await tool('get_session_entries', { path: fx.file(GEMINI), entry_indices: [1], include_thinking: true });
    expect(data.entries[0]).toMatchObject({
      role: 'assistant', model: 'gemini-2.5-pro', thinking: 'Reading the cache: I should open the LRU class.',
      tool_uses: [{ id: 'read_file-1', name: 'read_file', input: { absolute_path: path.join(fx.projects, 'imgsvc', 'src', 'lru.ts') } }],
      tool_results: [{ tool_use_id: 'read_file-1', result: 'export class LruCache { max = 512; }', is_error: false }],
      usage: { input_tokens: 500, output_tokens: 180, cache_read_tokens: 200, cache_write_tokens: 0 },
    });
  });
});

describe('search_sessions', () => {
  test('text: case-insensitive by default, grouped by session, the documented 2-per-session default applied', async () => {
    const data = await tool('search_sessions', { query: 'WEBSOCKET' });
    expect(data.sessions.map((s: any) => [s.source, s.path, s.session_id, s.project_name])).toEqual([
      ['claude', fx.file(S1), '5f0c1a2e-1111-4a4a-9b9b-000000000001', 'webapp'],
    ]);
    expect(data.sessions[0].matches).toEqual([
      { line_num: 1, preview: 'Fixing the «websocket» idle timeout', role: 'summary', entry_index: 0, uuid: null, timestamp: null, field: 'text' },
      { line_num: 3, preview: 'The «websocket» connection drops after 60 seconds without traffic. Can you find where the timeo…', role: 'user', entry_index: 2, uuid: 'c1-0001', timestamp: '2025-03-10T09:00:01.000Z', field: 'text' },
    ]);
    expect(data).toMatchObject({ total_matches: 2, complete: true, skipped_records: expect.any(Number) });
    expect(data).not.toHaveProperty('next_cursor');
  });

  test('case_sensitive, and metadata (cwd, branch, ids) is never matched', async () => {
    expect((await tool('search_sessions', { query: 'WebSocket', case_sensitive: true })).total_matches).toBe(0);
    expect((await tool('search_sessions', { query: 'fix/ws-timeout' })).total_matches).toBe(0);
    expect((await tool('search_sessions', { query: '5f0c1a2e-1111' })).total_matches).toBe(0);
  });

  test('tool inputs and tool results are searched; limit_per_session 0 means no limit', async () => {
    const data = await tool('search_sessions', { query: 'idleTimeout', limit_per_session: 0 });
    expect(data.sessions[0].matches.map((m: any) => [m.entry_index, m.role, m.field, m.line_num])).toEqual([
      [5, 'assistant', 'tool_input', 6], [7, 'tool', 'tool_result', 8], [8, 'assistant', 'text', 9], [9, 'assistant', 'tool_input', 10],
    ]);
  });

  test('regex: RE2 syntax with \\d, \\s, \\b; a bad pattern is QUERY_SYNTAX_ERROR with its position', async () => {
    const data = await tool('search_sessions', { query: 'idleTimeout:\\s*\\d+,\\s*sendPings', regex: true });
    expect(data.sessions[0].matches.map((m: any) => m.entry_index)).toEqual([9]);
    const words = await tool('search_sessions', { query: '\\bflag\\b', regex: true, source: 'codex' });
    expect(words.sessions.map((s: any) => s.source)).toEqual(['codex']);
    expect(words.sessions[0].matches[0].preview).toContain('«flag»');
    // \b is RE2's ASCII word boundary: the answer says so (docs/queries.md "Regular expressions"); \d and \s alone do not
    expect(words.warnings[0].code).toBe('ASCII_WORD_BOUNDARY');
    expect(data.warnings).toBeUndefined();
    // a pattern no text can match: answered without reading a session
    const never = await tool('search_sessions', { query: 'x\\Ay', regex: true });
    expect([never.total_matches, never.sessions_searched, never.complete, never.warnings.map((w: any) => w.code)]).toEqual([0, 0, true, ['NEVER_MATCHES']]);
    const bad = await call(server.client, 'search_sessions', { query: 'a(b', regex: true });
    expect(bad.data.error.code).toBe('QUERY_SYNTAX_ERROR');
    expect(bad.data.error.location.position).toEqual(expect.any(Number));
  });

  test('source and project narrow the search; sessions come newest first', async () => {
    fs.utimesSync(fx.file(QWEN), new Date('2025-01-05T00:00:00Z'), new Date('2025-01-05T00:00:00Z'));
    try {
      const data = await tool('search_sessions', { query: 'test' });
      expect(data.sessions[0].source).toBe('qwen');
      const mods = data.sessions.map((s: any) => s.modified_at);
      expect([...mods].sort().reverse()).toEqual(mods);
      expect((await tool('search_sessions', { query: 'test', source: 'copilot' })).sessions.map((s: any) => s.source)).toEqual(['copilot']);
      expect((await tool('search_sessions', { query: 'test', project: 'payments' })).sessions.map((s: any) => s.project_name)).toEqual(['payments']);
    } finally {
      fs.utimesSync(fx.file(QWEN), new Date('2025-01-01T00:00:00Z'), new Date('2025-01-01T00:00:00Z'));
    }
  });

  test('a gemini document and a kimi session in two files are searched; matches say where', async () => {
    const gem = await tool('search_sessions', { query: 'least-recently-used' });
    expect(gem.sessions[0]).toMatchObject({ source: 'gemini', matches: [{ role: 'assistant', entry_index: 1, line_num: 13 }] });
    const kimi = await tool('search_sessions', { query: 'tomllib' });
    const m = kimi.sessions[0].matches;
    expect(m.map((x: any) => [x.entry_index, x.field, x.line_num, path.basename(x.file)])).toEqual([[2, 'thinking', 3, 'context_1.jsonl'], [4, 'text', 1, 'context.jsonl']]);
  });

  test('a session with more matches than limit_per_session says so (more_matches, a LIMIT_PER_SESSION warning)', async () => {
    const whole = await tool('search_sessions', { query: 'the', limit_per_session: 0, limit: 1000 });
    expect(whole.warnings).toBeUndefined();
    const counts = new Map<string, number>(whole.sessions.map((x: any) => [x.path, x.matches.length]));
    const over = [...counts].filter(([, n]) => n > 2).map(([p]) => p);
    expect(over.length).toBeGreaterThan(1);
    const capped = await tool('search_sessions', { query: 'the', limit: 1000 });
    expect(capped.total_matches).toBe([...counts.values()].reduce((t, n) => t + Math.min(n, 2), 0));
    expect(capped.sessions.filter((x: any) => x.more_matches).map((x: any) => x.path)).toEqual(over);
    expect(capped.sessions.every((x: any) => x.more_matches === undefined || x.more_matches === true)).toBe(true);
    expect(capped.warnings).toEqual([{ code: 'LIMIT_PER_SESSION', message: expect.stringContaining(`${over.length} sessions held more matches than limit_per_session (2)`) }]);
    expect(capped.complete).toBe(true);
  });

  test('an unknown source or project is NOT_FOUND in every tool that narrows by them, with the names to use', async () => {
    for (const [name, args] of [
      ['search_sessions', { query: 'test', source: 'cluade' }],
      ['get_usage_stats', { source: 'cluade' }],
      ['list_projects', { source: 'nosuch' }],
      ['semantic_search', { query: 'test', source: 'cluade' }],
    ] as const) {
      const r = await call(server.client, name, args);
      expect([name, r.isError, r.data.error.code]).toEqual([name, true, 'NOT_FOUND']);
      expect(r.data.error.message).toContain(JSON.stringify(args.source));
      expect(r.data.error.hint).toBe('Available sources: claude, codex, copilot, gemini, qwen, kimi.');
    }
    for (const [name, args] of [
      ['search_sessions', { query: 'test', project: 'webap' }],
      ['get_usage_stats', { project: 'webap' }],
      ['semantic_search', { query: 'test', project: 'webap' }],
    ] as const) {
      const r = await call(server.client, name, args);
      expect([name, r.data.error?.code]).toEqual([name, 'NOT_FOUND']);
      expect(r.data.error.message).toContain('"webap"');
      expect(r.data.error.hint).toMatch(/^Nearest project names: webapp, /);
    }
    const wrongSource = await call(server.client, 'search_sessions', { query: 'test', project: 'webapp', source: 'codex' });
    expect(wrongSource.data.error.hint).toMatch(/^Nearest project names: cli-tool\. /);
  });

  test('paging with next_cursor returns every match once', async () => {
    const whole = await tool('search_sessions', { query: 'the', limit_per_session: 0, limit: 1000 });
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 200; page++) {
      const data: any = await tool('search_sessions', { query: 'the', limit_per_session: 0, limit: 3, ...(cursor ? { cursor } : {}) });
      for (const s of data.sessions) for (const m of s.matches) seen.push(`${s.path}#${m.entry_index}`);
      cursor = data.next_cursor;
      if (!cursor) break;
    }
    const expected = whole.sessions.flatMap((s: any) => s.matches.map((m: any) => `${s.path}#${m.entry_index}`));
    expect(expected.length).toBeGreaterThan(10);
    expect(seen).toEqual(expected);
    const other = await call(server.client, 'search_sessions', { query: 'other', cursor: whole.next_cursor ?? Buffer.from(JSON.stringify({ k: 'x', s: '/', m: 0, p: 0 })).toString('base64url') });
    expect(other.data.error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('get_usage_stats', () => {
  // Hand-computed from the fixtures (each response once; Claude's split responses repeat their usage on every line).
  const claude = { input_tokens: 12 + 20 + 5 + 8 + 30 + 40, output_tokens: 340 + 150 + 60 + 90 + 210 + 25, cache_read_tokens: 1500 + 2300 + 2600, cache_write_tokens: 800 + 100 + 1200, responses: 6 };
  const codex = { input_tokens: (900 - 600) + (1000 - 900), output_tokens: 120 + 80, cache_read_tokens: 600 + 900, cache_write_tokens: 0, responses: 2 };
  // Copilot's session.shutdown: inputTokens 1470 includes the 450 cache reads and 20 writes; requests.count 2
  const copilot = { input_tokens: 1470 - 450 - 20, output_tokens: 80, cache_read_tokens: 450, cache_write_tokens: 20, responses: 2 };
  const gemini = { input_tokens: 700 - 200, output_tokens: 150 + 30, cache_read_tokens: 200, cache_write_tokens: 0, responses: 1 };
  const qwen = { input_tokens: (1200 - 1000) + (1600 - 1500), output_tokens: 300 + 40 + 20, cache_read_tokens: 1000 + 1500, cache_write_tokens: 0, responses: 2 };
  const withTotal = (t: typeof claude) => ({ ...t, total_tokens: t.input_tokens + t.output_tokens + t.cache_read_tokens + t.cache_write_tokens });
  const sum = (k: keyof typeof claude) => [claude, codex, copilot, gemini, qwen].reduce((n, t) => n + t[k], 0);

  test('tokens counted once per response, kept apart, per model and per source; every tool call counted once', async () => {
    const data = await tool('get_usage_stats');
    expect(data).toMatchObject({
      // the subagent's transcript (1 entry) counts in the entries and in subagent_sessions, not in total_sessions
      total_projects: 7, total_sessions: 8, subagent_sessions: 1, total_entries: 21 + 1 + 7 + 6 + 3 + 4 + 7,
      input_tokens: sum('input_tokens'), output_tokens: sum('output_tokens'), cache_read_tokens: sum('cache_read_tokens'), cache_write_tokens: sum('cache_write_tokens'),
      total_tokens: sum('input_tokens') + sum('output_tokens') + sum('cache_read_tokens') + sum('cache_write_tokens'),
      responses: 13, complete: true, sessions_pending: 0,
    });
    expect(data.tool_usage).toEqual({ Bash: 1, Edit: 1, Glob: 1, Grep: 1, Read: 1, ReadFile: 1, WriteFile: 1, bash: 1, read_file: 1, shell: 1, write_file: 1 });
    expect(Object.keys(data.tool_usage)).toEqual(['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'ReadFile', 'WriteFile', 'bash', 'read_file', 'shell', 'write_file']);
    expect(data.tool_calls).toBe(11);
    expect(data.by_source.claude).toEqual({ ...withTotal(claude), sessions: 3, entries: 21 + 1, tool_calls: 5 });
    expect(data.by_source.codex).toEqual({ ...withTotal(codex), sessions: 1, entries: 7, tool_calls: 1 });
    expect(data.by_source.copilot).toEqual({ ...withTotal(copilot), sessions: 1, entries: 6, tool_calls: 1 });
    expect(data.by_source.kimi).toEqual({ input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, total_tokens: 0, responses: 0, sessions: 1, entries: 7, tool_calls: 2 });
    expect(data.by_model['claude-sonnet-4-5-20250929']).toEqual(withTotal({ input_tokens: 12 + 20 + 5 + 8, output_tokens: 340 + 150 + 60 + 90, cache_read_tokens: 1500 + 2300 + 2600, cache_write_tokens: 800 + 100 + 1200, responses: 4 }));
    expect(data.by_model['claude-opus-4-1-20250805']).toEqual(withTotal({ input_tokens: 70, output_tokens: 235, cache_read_tokens: 0, cache_write_tokens: 0, responses: 2 }));
    expect(data.by_model['gpt-5-codex']).toEqual(withTotal(codex));
    expect(data.by_model['gemini-2.5-pro']).toEqual(withTotal(gemini));
    expect(data.by_model['qwen3-coder-plus']).toEqual(withTotal(qwen));
  });

  test('since/until bound usage and tool calls by their time; source narrows', async () => {
    const march = await tool('get_usage_stats', { since: '2025-03-01', until: '2025-04-01' });
    expect(march).toMatchObject({ total_sessions: 2, input_tokens: 12 + 20 + 5 + 8, responses: 4, tool_calls: 4 });
    expect(march.tool_usage).toEqual({ Edit: 1, Glob: 1, Grep: 1, Read: 1 });
    const copilotOnly = await tool('get_usage_stats', { source: 'copilot' });
    expect(copilotOnly).toMatchObject({ total_sessions: 1, input_tokens: 1000, output_tokens: 80, cache_read_tokens: 450, cache_write_tokens: 20, tool_usage: { bash: 1 } });
  });

  test('a response and a tool call repeated in a resumed session file are counted once', async () => {
    const copy = path.join(path.dirname(fx.file(S1)), 'resumed-copy.jsonl');
    fs.copyFileSync(fx.file(S1), copy);
    try {
      const data = await tool('get_usage_stats', { source: 'claude' });
      expect(data).toMatchObject({ total_sessions: 4, input_tokens: claude.input_tokens, responses: 6, tool_calls: 5 });
    } finally {
      fs.unlinkSync(copy);
    }
  });

  test('two Codex sessions with equal running totals and the same call ids are both counted (dedup only within a session)', async () => {
    // Each rollout: 3 responses, every token_count written twice, running totals input/cached/output
    // 1000/400/100, 2000/800/200, 3000/1200/300 (so each response is 600 input + 400 cache read + 100 output).
    const rollout = (id: string, cwd: string, day: string) => {
      const lines: unknown[] = [{ timestamp: `2026-01-${day}T10:00:00.000Z`, type: 'session_meta', payload: { id, timestamp: `2026-01-${day}T10:00:00.000Z`, cwd } }];
      for (let i = 0; i < 3; i++) {
        const t = `2026-01-${day}T10:0${i + 1}:00.000Z`;
        lines.push({ timestamp: t, type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: `call_${i}` } });
        const info = {
          total_token_usage: { input_tokens: 1000 * (i + 1), cached_input_tokens: 400 * (i + 1), output_tokens: 100 * (i + 1), total_tokens: 1100 * (i + 1) },
          last_token_usage: { input_tokens: 1000, cached_input_tokens: 400, output_tokens: 100, total_tokens: 1100 },
        };
        lines.push({ timestamp: t, type: 'event_msg', payload: { type: 'token_count', info } }, { timestamp: t, type: 'event_msg', payload: { type: 'token_count', info } });
      }
      const dir = path.join(fx.homes.codex, 'sessions', '2026', '01', day);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `rollout-2026-01-${day}T10-00-00-${id}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      return dir;
    };
    const dirs = [rollout('0199b000-0000-7000-8000-00000000000a', path.join(fx.dir, 'alpha'), '10'), rollout('0199b000-0000-7000-8000-00000000000b', path.join(fx.dir, 'beta'), '11')];
    try {
      const data = await tool('get_usage_stats', { since: '2026-01-01' });
      expect(data).toMatchObject({ total_sessions: 2, responses: 6, input_tokens: 3600, cache_read_tokens: 2400, output_tokens: 600, cache_write_tokens: 0, total_tokens: 6600, tool_calls: 6 });
      expect(data.tool_usage).toEqual({ shell: 6 });
      const one = await tool('get_usage_stats', { project: 'alpha' });
      expect(one).toMatchObject({ total_sessions: 1, responses: 3, input_tokens: 1800, cache_read_tokens: 1200, output_tokens: 300, tool_calls: 3 });
    } finally {
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('semantic_search', () => {
  test('finds entries by meaning, with the documented result keys, and builds its index in the cache folder', async () => {
    const data = await tool('semantic_search', { query: 'socket closed because the link was idle' });
    expect(data.complete).toBe(true);
    expect(data.embedder).toBe('glove-sif-100d');
    expect(data.sessions_indexed).toBe(9); // the subagent's transcript is a session of its own
    const top = data.results[0];
    expect(top).toMatchObject({ session_id: '5f0c1a2e-1111-4a4a-9b9b-000000000001', source: 'claude', project_name: 'webapp', session_path: fx.file(S1),
      first_prompt: 'The websocket connection drops after 60 seconds without traffic. Can you find where the timeout is set?' });
    expect(top.distance).toBeGreaterThanOrEqual(0);
    expect(top.distance).toBeLessThanOrEqual(2);
    const entry = await tool('get_session_entries', { path: top.session_path, entry_indices: [top.entry_index] });
    expect(entry.entries[0].uuid).toBe(top.entry_uuid);
    expect(fs.existsSync(path.join(fx.dir, 'cache', 'mcpgw', 'sessions-index.sqlite'))).toBe(true);
    expect(data.results.length).toBeLessThanOrEqual(20);
  });

  test('source and project narrow; diversity gives one result per session first; max_distance bounds distance', async () => {
    const only = await tool('semantic_search', { query: 'tests failing', source: 'copilot' });
    expect(new Set(only.results.map((r: any) => r.source))).toEqual(new Set(['copilot']));
    const proj = await tool('semantic_search', { query: 'tests failing', project: 'dates' });
    expect(new Set(proj.results.map((r: any) => r.project_name))).toEqual(new Set(['dates']));
    // Plain ranking repeats sessions (20 results from fewer sessions); diversity gives five sessions in five results.
    const plain = await tool('semantic_search', { query: 'fix the bug', limit: 20 });
    const diverse = await tool('semantic_search', { query: 'fix the bug', diversity: true, limit: 5 });
    const sessionsOf = (d: any) => d.results.map((r: any) => r.session_path);
    expect(new Set(sessionsOf(plain)).size).toBeLessThan(plain.results.length);
    expect(new Set(sessionsOf(diverse)).size).toBe(5); // 8 sessions have hits: five results, five sessions
    const near = await tool('semantic_search', { query: 'fix the bug', max_distance: 0.6, limit: 50 });
    for (const r of near.results) expect(r.distance).toBeLessThanOrEqual(0.6);
  });

  test('a session that grew is read from where the index stopped; the new entry is found', async () => {
    const file = fx.file(QWEN);
    const before = fs.readFileSync(file, 'utf8');
    const line = { uuid: 'q-5', parentUuid: 'q-4', sessionId: '3c1d2e4f-6a7b-4c8d-9e0f-112233445566', timestamp: '2025-07-07T07:01:00.000Z', type: 'user', cwd: path.join(fx.projects, 'dates'), message: { role: 'user', parts: [{ text: 'Also handle the Julian calendar switchover of October 1582.' }] } };
    fs.appendFileSync(file, JSON.stringify(line) + '\n');
    try {
      const data = await tool('semantic_search', { query: 'julian calendar switchover', limit: 3 });
      expect(data.results[0]).toMatchObject({ source: 'qwen', entry_uuid: 'q-5', entry_index: 4 });
    } finally {
      fs.writeFileSync(file, before);
      fs.utimesSync(file, new Date('2025-01-01T00:00:00Z'), new Date('2025-01-01T00:00:00Z'));
    }
    const after = await tool('semantic_search', { query: 'julian calendar switchover', limit: 3 });
    expect(after.results.map((r: any) => r.entry_uuid)).not.toContain('q-5');
  });
});

describe('the sandbox', () => {
  test('a path outside the homes is ACCESS_DENIED, whether or not it exists', async () => {
    for (const p of [path.join(fx.projects, 'webapp'), '/etc/passwd', '/no/such/file.jsonl', path.join(fx.homes.claude, '..', 'elsewhere.jsonl')]) {
      const r = await call(server.client, 'get_session_entries', { path: p });
      expect({ p, code: r.data.error.code }).toEqual({ p, code: 'ACCESS_DENIED' });
    }
  });

  test('a link inside a home that leads out of it is ACCESS_DENIED', async () => {
    const outside = path.join(fx.dir, 'secret.jsonl');
    fs.writeFileSync(outside, '{"type":"user","message":{"role":"user","content":"secret"}}\n');
    const link = path.join(fx.homes.claude, 'projects', 'link.jsonl');
    fs.symlinkSync(outside, link);
    try {
      const r = await call(server.client, 'get_session_metadata', { path: link });
      expect(r.data.error.code).toBe('ACCESS_DENIED');
      expect(r.text).not.toContain('secret"');
    } finally {
      fs.unlinkSync(link);
    }
  });

  test('system errors inside a home get their own codes and name only the path as given', async () => {
    const projects = path.join(fx.homes.claude, 'projects');
    fs.symlinkSync('loop-b.jsonl', path.join(projects, 'loop-a.jsonl'));
    fs.symlinkSync('loop-a.jsonl', path.join(projects, 'loop-b.jsonl'));
    try {
      const long = path.join(projects, `${'n'.repeat(300)}.jsonl`);
      const cases: [string, string, string][] = [
        [path.join(projects, 'loop-a.jsonl'), 'INVALID_ARGUMENT', `Too many levels of symbolic links: ${path.join(projects, 'loop-a.jsonl')}`],
        [long, 'INVALID_ARGUMENT', `The path is longer than the system allows: ${long.slice(0, 200)}… (${long.length} characters)`],
        [path.join(projects, 'none.jsonl'), 'NOT_FOUND', `No such session file: ${path.join(projects, 'none.jsonl')}`],
      ];
      for (const [p, code, message] of cases) {
        const r = await call(server.client, 'get_session_metadata', { path: p });
        expect({ code: r.data.error.code, message: r.data.error.message }).toEqual({ code, message });
      }
    } finally {
      fs.unlinkSync(path.join(projects, 'loop-a.jsonl'));
      fs.unlinkSync(path.join(projects, 'loop-b.jsonl'));
    }
  });

  test('a long path quoted in a message is cut on a character boundary (emoji at the cut), its length stated', async () => {
    const E = '\u{1F600}';
    // Names of 50 emoji (200 bytes each, under NAME_MAX); the 200th character of the path falls on an emoji.
    const p = path.join(fx.homes.claude, 'projects', `x${E.repeat(50)}`, E.repeat(50), E.repeat(50), E.repeat(50), 'none.jsonl');
    const chars = [...p];
    const r = await call(server.client, 'get_session_metadata', { path: p });
    expect(r.data.error).toEqual({
      code: 'NOT_FOUND',
      message: `No such session file: ${chars.slice(0, 200).join('')}… (${chars.length} characters)`,
      hint: 'list_sessions gives the session paths.',
    });
    expect(r.text).not.toContain('\uFFFD');
  });

  test('a relative path is INVALID_ARGUMENT', async () => {
    const r = await call(server.client, 'get_session_metadata', { path: 'projects/x.jsonl' });
    expect(r.data.error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('big lines and the result cap', () => {
  test('a 5 MB line (a pasted image) is read, its payload summarized, the answer small', async () => {
    const file = path.join(fx.homes.claude, 'projects', path.basename(path.dirname(fx.file(S1))), 'big-image-session.jsonl');
    const data = 'A'.repeat(5 * 1024 * 1024);
    const lines = [
      { type: 'user', uuid: 'b-1', timestamp: '2025-03-20T10:00:00.000Z', sessionId: 'big', cwd: path.join(fx.projects, 'webapp'), message: { role: 'user', content: [{ type: 'text', text: 'What is wrong in this screenshot?' }, { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data } }] } },
      { type: 'assistant', uuid: 'b-2', timestamp: '2025-03-20T10:00:05.000Z', sessionId: 'big', message: { id: 'm', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'The button overlaps the footer.' }] } },
    ];
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    try {
      const r = await call(server.client, 'get_session_entries', { path: file, max_content_length: 0 });
      expect(r.isError).toBe(false);
      expect(r.data.entries.map((e: any) => e.text)).toEqual(['What is wrong in this screenshot?\n\n[image: image/jpeg, 5,242,880 bytes of base64]', 'The button overlaps the footer.']);
      expect(Buffer.byteLength(r.text)).toBeLessThan(4096);
    } finally {
      fs.unlinkSync(file);
    }
  });

  test('codex: created_at is session_meta\'s time, not the first message\'s', async () => {
    const file = path.join(path.dirname(fx.file(CODEX)), 'rollout-2025-04-02T11-00-00-0199a213-81c0-7800-8aa1-cccccccccccc.jsonl');
    const cwd = path.join(fx.projects, 'cli-tool');
    // As Codex CLI writes a rollout: the session's own time in session_meta's payload, the user's first words
    // minutes later.
    const lines = [
      { timestamp: '2025-04-02T11:00:00.020Z', type: 'session_meta', payload: { id: '0199a213-81c0-7800-8aa1-cccccccccccc', timestamp: '2025-04-02T11:00:00.000Z', cwd, originator: 'codex_cli_rs', cli_version: '0.46.0', git: { commit_hash: 'abc123', branch: 'main' } } },
      { timestamp: '2025-04-02T11:00:00.100Z', type: 'turn_context', payload: { cwd, approval_policy: 'on-request', model: 'gpt-5-codex' } },
      { timestamp: '2025-04-02T11:07:31.250Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Add a --dry-run flag.' }] } },
      { timestamp: '2025-04-02T11:07:31.260Z', type: 'event_msg', payload: { type: 'user_message', message: 'Add a --dry-run flag.', images: [] } },
    ];
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    try {
      const meta = await tool('get_session_metadata', { path: file });
      expect(meta.meta.created_at).toBe('2025-04-02T11:00:00.000Z');
      expect(meta.entry_summary.map((e: any) => e.timestamp)).toEqual(['2025-04-02T11:07:31.250Z']);
      const listed = await tool('list_sessions', { project_id: cwd, source: 'codex' });
      expect(listed.sessions.filter((x: any) => x.path === file).map((x: any) => x.created_at)).toEqual(['2025-04-02T11:00:00.000Z']);
    } finally {
      fs.unlinkSync(file);
    }
  });

  test('a message longer than one answer is read in parts: content_offset follows text_next_offset to the last character', async () => {
    const file = path.join(fx.homes.claude, 'projects', path.basename(path.dirname(fx.file(S1))), 'long-message-session.jsonl');
    // ~150,000 characters: prose, newlines and quotes (escaped in JSON), é as e + combining acute, emoji, a family
    // (a ZWJ sequence of 5 code points) — clusters a cut must keep whole — and a tool result of 90,000 characters.
    const unit = 'Line "quoted" with cafe\u0301 and \u{1F600} and \u{1F468}\u200D\u{1F469}\u200D\u{1F467} — ünïcode.\n';
    const text = Array.from({ length: 2000 }, (_, i) => `${i}: ${unit}`).join('');
    const result = 'r'.repeat(89_990) + '\u{1F600}end';
    const base = { sessionId: 'long', cwd: path.join(fx.projects, 'webapp') };
    const lines = [
      { ...base, type: 'user', uuid: 'l-1', timestamp: '2025-03-22T10:00:00.000Z', message: { role: 'user', content: text } },
      { ...base, type: 'assistant', uuid: 'l-2', timestamp: '2025-03-22T10:00:01.000Z', message: { id: 'ml2', role: 'assistant', model: 'claude-x', content: [{ type: 'tool_use', id: 'toolu_l2', name: 'Bash', input: { command: 'cat big.log' } }] } },
      { ...base, type: 'user', uuid: 'l-3', timestamp: '2025-03-22T10:00:02.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_l2', content: result }] } },
    ];
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const chars = [...text].length;
    try {
      // No limit asked: the entry alone passes the answer's size, so it is cut to fit, saying where the rest starts.
      const first = await call(server.client, 'get_session_entries', { path: file, entry_indices: [0], max_content_length: 0 });
      expect(first.isError).toBe(false);
      const e = first.data.entries[0];
      expect(e.text_truncated).toBe(true);
      expect(e.text_length).toBe(chars);
      expect(e.text_offset).toBe(0);
      expect([...e.text].length).toBe(e.text_next_offset);
      expect(e.text_next_offset).toBeGreaterThan(20_000); // far more than the 4,096 characters it used to stop at
      expect(text.startsWith(e.text)).toBe(true);
      expect(first.data.cut.rest).toContain(`entry_indices [0] and content_offset ${e.text_next_offset}`);
      // Follow text_next_offset: the parts rebuild the text exactly, each answer under the result cap, every cut
      // between grapheme clusters.
      const seg = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
      const bounds = new Set<number>([0]);
      let at = 0;
      for (const g of seg.segment(text)) bounds.add(at += [...g.segment].length);
      let parts = '', offset = 0, calls = 0;
      for (;;) {
        const r = await call(server.client, 'get_session_entries', { path: file, entry_indices: [0], max_content_length: 0, content_offset: offset });
        expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(64 * 1024);
        const part = r.data.entries[0];
        expect(part.text_offset).toBe(offset);
        parts += part.text;
        calls++;
        if (part.text_next_offset === undefined) { expect(part.text_truncated).toBe(false); break; }
        expect(bounds.has(part.text_next_offset)).toBe(true);
        offset = part.text_next_offset;
      }
      expect(parts).toBe(text);
      expect(calls).toBeLessThan(10);
      // max_content_length parts: 1,000 characters at a time from any offset
      const mid = await tool('get_session_entries', { path: file, entry_indices: [0], max_content_length: 1000, content_offset: 70_000 });
      expect(mid.entries[0].text).toBe([...text].slice(70_000, mid.entries[0].text_next_offset).join(''));
      expect(mid.entries[0].text_next_offset - 70_000).toBeGreaterThan(990);
      expect(mid.entries[0].text_next_offset - 70_000).toBeLessThanOrEqual(1000);
      // an offset past the end: an empty part at the end
      const past = await tool('get_session_entries', { path: file, entry_indices: [0], content_offset: chars + 5 });
      expect(past.entries[0]).toMatchObject({ text: '', text_truncated: false, text_offset: chars, text_length: chars });
      expect(past.entries[0]).not.toHaveProperty('text_next_offset');
      // a tool result pages the same way, with result_next_offset
      let res = '', roff = 0;
      for (;;) {
        const r = await tool('get_session_entries', { path: file, entry_indices: [2], max_content_length: 40_000, content_offset: roff });
        const tr = r.entries[0].tool_results[0];
        res += tr.result;
        if (tr.result_next_offset === undefined) { expect(tr).not.toHaveProperty('result_truncated'); break; }
        expect(tr.result_truncated).toBe(true);
        roff = tr.result_next_offset;
      }
      expect(res).toBe(result);
    } finally {
      fs.unlinkSync(file);
    }
  });

  test('search_sessions: a text holding « » … itself gets preview_markers saying where the markers are', async () => {
    const file = path.join(fx.homes.claude, 'projects', path.basename(path.dirname(fx.file(S1))), 'guillemets-session.jsonl');
    const base = { sessionId: 'guillemets', cwd: path.join(fx.projects, 'webapp') };
    const said = 'Le client a écrit « zorblax » puis … rien.';
    const lines = [
      { ...base, type: 'user', uuid: 'g-1', timestamp: '2025-03-23T10:00:00.000Z', message: { role: 'user', content: said } },
      { ...base, type: 'user', uuid: 'g-2', timestamp: '2025-03-23T10:00:01.000Z', message: { role: 'user', content: 'zorblax again, plainly' } },
    ];
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    try {
      const found = await tool('search_sessions', { query: 'zorblax', limit_per_session: 0 });
      const matches = found.sessions.find((x: any) => x.path === file).matches;
      expect(matches.map((m: any) => [m.uuid, m.preview, m.preview_markers])).toEqual([
        ['g-1', 'Le client a écrit « «zorblax» » puis … rien.', [20, 28]],
        ['g-2', '«zorblax» again, plainly', undefined],
      ]);
    } finally {
      fs.unlinkSync(file);
    }
  });

  test('texts shortened with …: a … of the data\'s own gets <field>_markers (description, first_prompt, previews)', async () => {
    const dirName = path.basename(path.dirname(fx.file(S1)));
    const file = path.join(fx.homes.claude, 'projects', dirName, 'ellipsis-session.jsonl');
    const base = { sessionId: 'ellipsis', cwd: path.join(fx.projects, 'webapp') };
    const long = 'Wait… hippopotamus ' + 'word '.repeat(130); // flattened: 668 characters, a … of its own at 4
    const flat = long.trim();
    const lines = [
      { ...base, type: 'user', uuid: 'e-1', timestamp: '2025-03-24T10:00:00.000Z', message: { role: 'user', content: long } },
      { ...base, type: 'assistant', uuid: 'e-2', timestamp: '2025-03-24T10:00:01.000Z', message: { role: 'assistant', content: 'Hippopotamus… noted «here»…' } },
      { ...base, type: 'user', uuid: 'e-3', timestamp: '2025-03-24T10:00:02.000Z', message: { role: 'user', content: 'a plain «hippopotamus» line' } },
    ];
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    try {
      const meta = await tool('get_session_metadata', { path: file });
      // shortened at 500 characters: its … marker at 500, the data's own at 4
      expect(meta.description).toBe(`${flat.slice(0, 500)}…`);
      expect(meta.description_markers).toEqual([500]);
      expect(meta.entry_summary.map((e: any) => [e.preview, e.preview_markers])).toEqual([
        [`${flat.slice(0, 120)}…`, [120]],
        ['Hippopotamus… noted «here»…', []], // not shortened: every … is the text's own
        ['a plain «hippopotamus» line', undefined], // no … at all: « » are never markers here
      ]);
      const projects = await tool('list_projects', { source: 'claude' });
      const id = projects.projects.find((p: any) => p.name === 'webapp').id;
      const listed = (await tool('list_sessions', { project_id: id, source: 'claude' })).sessions.find((x: any) => x.path === file);
      // list_sessions shows the first 200 characters (its rows stay small), get_session_metadata 500.
      expect([listed.first_prompt, listed.first_prompt_markers]).toEqual([`${flat.slice(0, 200)}…`, [200]]);
      const found = await tool('semantic_search', { query: 'hippopotamus', limit: 50 });
      const mine = found.results.filter((r: any) => r.session_path === file).sort((a: any, b: any) => a.entry_index - b.entry_index);
      expect(mine.map((r: any) => [r.entry_index, r.first_prompt, r.first_prompt_markers, r.preview, r.preview_markers])).toEqual([
        [0, `${flat.slice(0, 300)}…`, [300], `${flat.slice(0, 160)}…`, [160]],
        [1, `${flat.slice(0, 300)}…`, [300], 'Hippopotamus… noted «here»…', []],
        [2, `${flat.slice(0, 300)}…`, [300], 'a plain «hippopotamus» line', undefined],
      ]);
      // a session without … in its texts: no markers fields at all
      const plain = await tool('get_session_metadata', { path: fx.file(S1) });
      expect(plain).not.toHaveProperty('description_markers');
      expect(plain.entry_summary.filter((e: any) => 'preview_markers' in e)).toEqual([]);
    } finally {
      fs.unlinkSync(file);
    }
  });

  test('hex digests are text (shown whole, searchable); real base64 in a tool result is summarized and flagged', async () => {
    const file = path.join(fx.homes.claude, 'projects', path.basename(path.dirname(fx.file(S1))), 'hashes-session.jsonl');
    const hashes = Array.from({ length: 120 }, (_, i) => createHash('sha1').update(`commit ${i}`).digest('hex')).join('\n') + '\n';
    const b64 = Buffer.from(Array.from({ length: 6000 }, (_, i) => (i * 167 + (i >> 3) * 29) & 255)).toString('base64');
    const base = { sessionId: 'hashes', cwd: path.join(fx.projects, 'webapp') };
    const lines = [
      { ...base, type: 'assistant', uuid: 'h-1', timestamp: '2025-03-21T10:00:00.000Z', message: { id: 'mh1', role: 'assistant', model: 'claude-x', content: [{ type: 'tool_use', id: 'toolu_h1', name: 'Bash', input: { command: 'git rev-list --all' } }] } },
      { ...base, type: 'user', uuid: 'h-2', timestamp: '2025-03-21T10:00:01.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_h1', content: hashes }] } },
      { ...base, type: 'assistant', uuid: 'h-3', timestamp: '2025-03-21T10:00:02.000Z', message: { id: 'mh3', role: 'assistant', model: 'claude-x', content: [{ type: 'tool_use', id: 'toolu_h3', name: 'Bash', input: { command: 'base64 logo.bin' } }] } },
      { ...base, type: 'user', uuid: 'h-4', timestamp: '2025-03-21T10:00:03.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_h3', content: b64 }] } },
    ];
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    try {
      const r = (await call(server.client, 'get_session_entries', { path: file, max_content_length: 0, entry_indices: [1, 3] })).data;
      expect(r.entries[0].tool_results).toEqual([{ tool_use_id: 'toolu_h1', result: hashes, is_error: false }]);
      expect(r.entries[1].tool_results).toEqual([{ tool_use_id: 'toolu_h3', result: '[base64 data: 8,000 bytes]', is_error: false, result_truncated: true }]);
      const needle = hashes.split('\n')[77]!;
      const found = await tool('search_sessions', { query: needle });
      expect(found.sessions.map((x: any) => [x.path, x.matches.map((m: any) => [m.entry_index, m.field])])).toEqual([[file, [[1, 'tool_result']]]]);
    } finally {
      fs.unlinkSync(file);
    }
  });
});

describe('list_active_sessions', () => {
  test('a session modified in the last 5 minutes is active (file_modified); older ones are not', async () => {
    const now = new Date();
    fs.utimesSync(fx.file(CODEX), now, now);
    try {
      const data = await tool('list_active_sessions');
      const files = data.sessions.filter((s: any) => s.method.includes('file_modified')).map((s: any) => [s.source, s.session_path, s.session_id]);
      expect(files).toEqual([['codex', fx.file(CODEX), '0199a213-81c0-7800-8aa1-bbab2a035a53']]);
      expect(data.processes_checked).toBe(process.platform === 'linux');
    } finally {
      fs.utimesSync(fx.file(CODEX), new Date('2025-01-01T00:00:00Z'), new Date('2025-01-01T00:00:00Z'));
    }
  });

  (process.platform === 'linux' ? test : test.skip)('one row per running process: the session its per-process file names, else its project\'s newest unclaimed one', async () => {
    // Three processes named claude working in the webapp project (a script named `claude` run by node, as npm installs it)
    const bin = path.join(fx.dir, 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'claude'), 'setInterval(() => {}, 1 << 30);\n');
    const kids = [0, 1, 2].map(() => spawn(NODE, [path.join(bin, 'claude')], { cwd: path.join(fx.projects, 'webapp'), stdio: 'ignore' }));
    const sessionsDir = path.join(fx.homes.claude, 'sessions');
    try {
      const [a, b, c] = kids.map((k) => k.pid!);
      // each child runs its script once exec is done: wait until its command line says so (no bound in ms: a loaded
      // machine takes seconds to start node)
      for (const pid of [a, b, c]) await until(() => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(path.join(bin, 'claude')));
      const startOf = (pid: number) => { const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); return st.slice(st.lastIndexOf(')') + 2).split(' ')[19]; };
      fs.mkdirSync(sessionsDir, { recursive: true });
      const S2ID = '5f0c1a2e-2222-4a4a-9b9b-000000000002';
      // a names S2, whichever session is newest: only the file can say so
      fs.writeFileSync(path.join(sessionsDir, `${a}.json`), JSON.stringify({ pid: a, sessionId: S2ID, cwd: path.join(fx.projects, 'webapp'), startedAt: 1, procStart: startOf(a) }));
      // b's file has another start time: the pid was reused, the file is stale
      fs.writeFileSync(path.join(sessionsDir, `${b}.json`), JSON.stringify({ pid: b, sessionId: S2ID, cwd: path.join(fx.projects, 'webapp'), procStart: '1' }));
      // a file for a process that is gone
      fs.writeFileSync(path.join(sessionsDir, '4194303.json'), JSON.stringify({ pid: 4194303, sessionId: S2ID, procStart: '5' }));
      const data = await tool('list_active_sessions');
      const ours = data.sessions.filter((r: any) => [a, b, c].includes(r.pid)).map((r: any) => [r.pid, r.method, r.session_id]).sort((x: any, y: any) => x[0] - y[0]);
      // S2 is a's, so b gets the project's newest unclaimed session (S1), and c none: one row each, never merged
      expect(ours).toEqual([
        [a, 'process_file', S2ID],
        [b, 'process', '5f0c1a2e-1111-4a4a-9b9b-000000000001'],
        [c, 'process', null],
      ].sort((x: any, y: any) => x[0] - y[0]));
      expect(data.sessions.filter((r: any) => r.session_id === S2ID)).toHaveLength(1);
    } finally {
      for (const k of kids) k.kill();
      fs.rmSync(sessionsDir, { recursive: true, force: true });
    }
  });

  (process.platform === 'linux' ? test : test.skip)('a Codex process is matched to the rollout it holds open; another one in the same project gets no session of its own', async () => {
    const bin = path.join(fx.dir, 'bin-codex');
    fs.mkdirSync(bin, { recursive: true });
    // the first process keeps the rollout open, as Codex does while it runs; the second opens nothing
    fs.writeFileSync(path.join(bin, 'codex'), 'if (process.argv[2]) require("fs").openSync(process.argv[2], "a");\nsetInterval(() => {}, 1 << 30);\n');
    const cwd = path.join(fx.projects, 'cli-tool');
    const kids = [spawn(NODE, [path.join(bin, 'codex'), fx.file(CODEX)], { cwd, stdio: 'ignore' }), spawn(NODE, [path.join(bin, 'codex')], { cwd, stdio: 'ignore' })];
    try {
      const [a, b] = kids.map((k) => k.pid!);
      const opened = () => fs.readdirSync(`/proc/${a}/fd`).some((fd) => { try { return fs.readlinkSync(`/proc/${a}/fd/${fd}`) === fx.file(CODEX); } catch { return false; } });
      await until(() => opened() && fs.readFileSync(`/proc/${b}/cmdline`, 'utf8').includes('codex'));
      const data = await tool('list_active_sessions');
      const ours = data.sessions.filter((r: any) => [a, b].includes(r.pid)).map((r: any) => [r.pid, r.method, r.session_id]).sort((x: any, y: any) => x[0] - y[0]);
      // a holds the rollout (matched before any working-folder guess), so b finds the project's only session claimed
      expect(ours).toEqual([[a, 'process_file', '0199a213-81c0-7800-8aa1-bbab2a035a53'], [b, 'process', null]].sort((x: any, y: any) => x[0] - y[0]));
    } finally {
      for (const k of kids) k.kill();
    }
  });
});

describe('configuration', () => {
  // The CLI's commands (list-tools, check, sessions index) run in one long-lived process (test/helpers/cli-host.ts):
  // each in fx.dir with exactly the environment given, its exit code, stdout and stderr as a process of its own gives.
  let cli: CliHost;
  beforeAll(() => { cli = startCliHost(); });
  afterAll(() => cli?.close());
  const BASE_ENV = () => ({ PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '' });
  const mcpgw = (args: string[], env: Record<string, string> = BASE_ENV()) => cli.run(args, fx.dir, env);

  const listTools = async (config: Record<string, unknown> | null, extraArgs: string[] = []) => {
    const args = ['list-tools', '--json', ...extraArgs];
    if (config) {
      const file = path.join(fx.dir, `cfg-${Math.random().toString(36).slice(2)}.json`);
      fs.writeFileSync(file, JSON.stringify(config));
      args.push('--config', file);
    }
    const r = await mcpgw(args);
    return { status: r.status, stderr: r.stderr, tools: r.status === 0 ? (JSON.parse(r.stdout) as { name: string }[]).map((t) => t.name) : [] };
  };

  test('the bundle is not offered by default; sessions.enabled adds it; a profile names it', async () => {
    expect((await listTools(null)).tools).not.toContain('list_sessions');
    expect((await listTools({ sessions: { enabled: true } })).tools).toEqual(expect.arrayContaining(['open_file', 'json_read', 'list_sessions', 'get_session_entries']));
    expect((await listTools({ profiles: { default: { bundles: ['sessions'] } } })).tools).toEqual(TOOLS);
  });

  test('a sessions-only profile serves without a root; a profile with the explorer still needs one', async () => {
    const cfg = path.join(fx.dir, 'only-sessions.json');
    fs.writeFileSync(cfg, JSON.stringify({ profiles: { default: { bundles: ['sessions'] } } }));
    const ok = await mcpgw(['check', '--config', cfg]);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('root: (none');
    fs.writeFileSync(cfg, JSON.stringify({ profiles: { default: { bundles: ['sessions', 'explore'] } } }));
    const bad = await mcpgw(['check', '--config', cfg]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/No root folder/);
  });

  test('mcpgw sessions index builds the index the server then uses; an unknown plugin command is exit 2', async () => {
    const cache = path.join(fx.dir, 'cli-cache');
    const env = { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '', ...fx.env, XDG_CACHE_HOME: cache };
    const r = await mcpgw(['sessions', 'index', '--no-progress'], env);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^indexed 9 sessions \\(9 read now, 0 unreadable\\) in [0-9.]+ s: ${path.join(cache, 'mcpgw', 'sessions-index.sqlite').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n$`));
    expect(r.stderr).toBe('');
    const again = await mcpgw(['sessions', 'index', '--source', 'kimi'], env);
    expect(again.stdout).toMatch(/^indexed 1 sessions \(0 read now, 0 unreadable\)/);
    const other = await connect(['--config', writeSessionsConfig(fx.dir)], { env: { ...fx.env, XDG_CACHE_HOME: cache } });
    try {
      const data = (await call(other.client, 'semantic_search', { query: 'julian dates leap year test' })).data;
      expect(data).toMatchObject({ complete: true, sessions_indexed: 9 });
    } finally {
      await other.close();
    }
    const unknown = await mcpgw(['sessions', 'rebuild'], env);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('Plugin commands: sessions index');
  });

  test('a home that is a symbolic link (~/.claude linked elsewhere) is read through the link: entries, search, index', async () => {
    const link = path.join(fx.dir, 'linked-claude');
    fs.symlinkSync(fx.homes.claude, link);
    const cache = path.join(fx.dir, 'link-cache');
    const env = { ...fx.env, MCPGW_CLAUDE_HOME: link, XDG_CACHE_HOME: cache };
    const indexed = await mcpgw(['sessions', 'index', '--no-progress', '--source', 'claude'], { ...BASE_ENV(), ...env });
    expect(indexed.stderr).toBe('');
    expect(indexed.stdout).toMatch(/^indexed 4 sessions \(4 read now, 0 unreadable\)/);
    const other = await connect(['--config', writeSessionsConfig(fx.dir)], { env });
    try {
      const projects = (await call(other.client, 'list_projects', { source: 'claude' })).data.projects;
      const webapp = projects.find((p: any) => p.name === 'webapp');
      const listed = (await call(other.client, 'list_sessions', { project_id: webapp.id, source: 'claude' })).data;
      expect(listed.sessions).toHaveLength(2);
      const viaLink = listed.sessions.map((s: any) => s.path);
      expect(viaLink.every((p: string) => p.startsWith(link + path.sep))).toBe(true);
      const entries = (await call(other.client, 'get_session_entries', { path: viaLink[0], limit: 1 })).data;
      expect(entries.entries).toHaveLength(1);
      const direct = (await call(other.client, 'get_session_entries', { path: fx.file(S1), limit: 1 })).data;
      expect(direct.entries).toHaveLength(1);
      const found = (await call(other.client, 'semantic_search', { query: 'websocket reconnect', source: 'claude' })).data;
      expect(found).toMatchObject({ complete: true, sessions_indexed: 9, sessions_pending: 0 });
      expect(found.results.length).toBeGreaterThan(0);
      expect(found.results.every((r: any) => r.source === 'claude' && r.session_path.startsWith(link + path.sep))).toBe(true);
      expect(found.warnings).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  test('a misspelt sessions key is a config error naming it', async () => {
    const r = await listTools({ sessions: { sources: { claude: { hom: '/x' } } } });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('sessions.sources.claude');
  });

  test('a misspelt source name is a config error naming the known sources (list-tools and check exit 2)', async () => {
    const r = await listTools({ sessions: { enabled: true, sources: { cluade: { enabled: false } } } });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('sessions.sources.cluade');
    expect(r.stderr).toContain('Sources: claude, codex, copilot, gemini, kimi, qwen.');
    const cfg = path.join(fx.dir, 'misspelt-source.json');
    fs.writeFileSync(cfg, JSON.stringify({ profiles: { default: { bundles: ['sessions'] } }, sessions: { sources: { cluade: { enabled: false } } } }));
    const checked = await mcpgw(['check', '--config', cfg]);
    expect(checked.status).toBe(2);
    expect(checked.stderr).toContain('"cluade"');
    expect((await listTools({ sessions: { enabled: true, sources: { claude: { enabled: false } } } })).status).toBe(0);
  });

  test('a source disabled in the config is invisible; one whose home is absent is listed as unavailable and ignored', async () => {
    const cfg = writeSessionsConfig(fx.dir, { sessions: { sources: { qwen: { enabled: false } } } });
    const other = await connect(['--config', cfg], { env: { ...fx.env, MCPGW_KIMI_HOME: path.join(fx.dir, 'no-such-kimi') } });
    try {
      const sources = (await call(other.client, 'list_sources', {})).data.sources;
      expect(sources.map((s: any) => [s.name, s.available])).toEqual([['claude', true], ['codex', true], ['copilot', true], ['gemini', true], ['kimi', false]]);
      const projects = (await call(other.client, 'list_projects', {})).data.projects;
      expect(projects.map((p: any) => p.source).sort()).toEqual(['claude', 'codex', 'copilot', 'gemini']);
      const denied = await call(other.client, 'get_session_metadata', { path: fx.file(QWEN) });
      expect(denied.data.error.code).toBe('ACCESS_DENIED');
    } finally {
      await other.close();
    }
  });
});
