/**
 * list_sessions across projects and sources (no project_id, since/until, a cursor) and get_usage_stats per project
 * and per day, through a real MCP client. Three Claude sessions of our own in two projects (November 2024, one
 * response a line, so every adapter reading agrees) join the fixtures of every source; the token sums below are
 * counted by hand from the lines written here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, connect, type Connected } from '../../../test/helpers/mcp';
import { materializeSessions, writeSessionsConfig, type SessionHomes } from '../../../test/helpers/sessions';
import { until } from '../../../test/helpers/until';

let fx: SessionHomes;
let server: Connected;
const files: Record<string, string> = {};

type Usage = [number, number, number, number];
function userLine(sid: string, cwd: string, uuid: string, ts: string, text: string) {
  return { type: 'user', uuid, timestamp: ts, sessionId: sid, cwd, message: { role: 'user', content: [{ type: 'text', text }] } };
}
function assistantLine(sid: string, cwd: string, uuid: string, ts: string, u: Usage, tool?: string) {
  const content = tool ? [{ type: 'tool_use', id: `tu-${uuid}`, name: tool, input: { command: 'ls' } }] : [{ type: 'text', text: 'Done.' }];
  return { type: 'assistant', uuid, timestamp: ts, sessionId: sid, cwd, requestId: `req-${uuid}`, message: { id: `msg-${uuid}`, role: 'assistant', model: 'claude-test', content, usage: { input_tokens: u[0], output_tokens: u[1], cache_read_input_tokens: u[2], cache_creation_input_tokens: u[3] } } };
}

const SID = { a1: 'aaaa0001-0000-4000-8000-000000000001', a2: 'aaaa0002-0000-4000-8000-000000000002', b1: 'bbbb0001-0000-4000-8000-000000000003' };

beforeAll(async () => {
  fx = materializeSessions();
  const write = (name: keyof typeof SID, project: string, lines: object[], mtime: string) => {
    const cwd = path.join(fx.projects, project);
    fs.mkdirSync(cwd, { recursive: true });
    const folder = path.join(fx.homes.claude, 'projects', cwd.replace(/[/.]/g, '-'));
    fs.mkdirSync(folder, { recursive: true });
    const file = path.join(folder, `${SID[name]}.jsonl`);
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    fs.utimesSync(file, new Date(mtime), new Date(mtime));
    files[name] = file;
  };
  const alpha = path.join(fx.projects, 'alpha');
  const beta = path.join(fx.projects, 'beta');
  write('a1', 'alpha', [
    userLine(SID.a1, alpha, 'a1-1', '2024-11-03T09:00:00.000Z', 'Set up the build for alpha'),
    assistantLine(SID.a1, alpha, 'a1-2', '2024-11-03T09:01:00.000Z', [100, 20, 1000, 50]),
    assistantLine(SID.a1, alpha, 'a1-3', '2024-11-03T09:02:00.000Z', [10, 5, 0, 0], 'Bash'),
  ], '2024-11-03T09:02:00.000Z');
  write('a2', 'alpha', [
    userLine(SID.a2, alpha, 'a2-1', '2024-11-04T10:00:00.000Z', 'Add a release script to alpha'),
    assistantLine(SID.a2, alpha, 'a2-2', '2024-11-04T10:01:00.000Z', [200, 40, 0, 0]),
  ], '2024-11-04T12:00:00.000Z');
  write('b1', 'beta', [
    userLine(SID.b1, beta, 'b1-1', '2024-11-04T15:00:00.000Z', 'Why is beta slow to start?'),
    assistantLine(SID.b1, beta, 'b1-2', '2024-11-04T15:01:00.000Z', [300, 60, 500, 0]),
    assistantLine(SID.b1, beta, 'b1-3', '2024-11-05T08:00:00.000Z', [30, 6, 0, 100], 'Read'),
  ], '2024-11-05T08:00:00.000Z');
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

describe('list_sessions across projects and sources', () => {
  test('without project_id or source: every session of every project and source, newest first, with its project', async () => {
    const data = await tool('list_sessions');
    const projects = await tool('list_projects', { include_deleted: true });
    const expectedTotal = projects.projects.reduce((n: number, p: any) => n + p.session_count, 0);
    expect(data.total).toBe(expectedTotal);
    expect(data.sessions).toHaveLength(expectedTotal);
    expect(new Set(data.sessions.map((s: any) => s.source))).toEqual(new Set(['claude', 'codex', 'copilot', 'gemini', 'qwen', 'kimi']));
    const times = data.sessions.map((s: any) => s.modified_at);
    expect([...times].sort().reverse()).toEqual(times);
    const b1 = data.sessions.find((s: any) => s.id === SID.b1);
    expect(b1).toMatchObject({ path: files.b1, source: 'claude', project_name: 'beta', created_at: '2024-11-04T15:00:00.000Z', modified_at: '2024-11-05T08:00:00.000Z', entry_count: 3, first_prompt: 'Why is beta slow to start?' });
    expect(data.complete).toBe(true);
    expect(data.has_more).toBe(false);
  });

  test('since/until keep the sessions active in that time ("what did I do that day")', async () => {
    const day = await tool('list_sessions', { since: '2024-11-04T00:00:00Z', until: '2024-11-05T00:00:00Z' });
    expect(day.sessions.map((s: any) => s.id)).toEqual([SID.b1, SID.a2]);
    const before = await tool('list_sessions', { until: '2024-11-04T00:00:00Z' });
    expect(before.sessions.map((s: any) => s.id)).toEqual([SID.a1]);
    const alpha = await tool('list_sessions', { source: 'claude', project_id: day.sessions[1].project_id, since: '2024-11-01' });
    expect(alpha.sessions.map((s: any) => s.id)).toEqual([SID.a2, SID.a1]);
  });

  test('a cursor pages through every session once, in order', async () => {
    const whole = await tool('list_sessions');
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 50; i++) {
      const page = await tool('list_sessions', { limit: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...page.sessions.map((s: any) => s.path));
      cursor = page.next_cursor;
      if (!cursor) { expect(page.has_more).toBe(false); break; }
    }
    expect(seen).toEqual(whole.sessions.map((s: any) => s.path));
    const other = await call(server.client, 'list_sessions', { source: 'claude', cursor: (await tool('list_sessions', { limit: 1 })).next_cursor });
    expect(other.data.error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('get_usage_stats per project and per day', () => {
  const t = (input: number, output: number, cacheRead: number, cacheWrite: number, responses: number) => ({ input_tokens: input, output_tokens: output, cache_read_tokens: cacheRead, cache_write_tokens: cacheWrite, total_tokens: input + output + cacheRead + cacheWrite, responses });

  test('by_project: each project of a source with its tokens, sessions and tool calls, most tokens first', async () => {
    const data = await tool('get_usage_stats', { since: '2024-11-01', until: '2024-12-01' });
    expect(data.total_sessions).toBe(3);
    expect(data.by_project).toEqual([
      { source: 'claude', project_id: expect.any(String), project_name: 'alpha', project_path: path.join(fx.projects, 'alpha'), ...t(100 + 10 + 200, 20 + 5 + 40, 1000, 50, 3), sessions: 2, tool_calls: 1 },
      { source: 'claude', project_id: expect.any(String), project_name: 'beta', project_path: path.join(fx.projects, 'beta'), ...t(300 + 30, 60 + 6, 500, 100, 2), sessions: 1, tool_calls: 1 },
    ]);
  });

  test('by_day: UTC days, latest first, max_days of total_days', async () => {
    const data = await tool('get_usage_stats', { since: '2024-11-01', until: '2024-12-01' });
    expect(data.total_days).toBe(3);
    expect(data.by_day).toEqual([
      { day: '2024-11-05', ...t(30, 6, 0, 100, 1), tool_calls: 1 },
      { day: '2024-11-04', ...t(200 + 300, 40 + 60, 500, 0, 2), tool_calls: 0 },
      { day: '2024-11-03', ...t(100 + 10, 20 + 5, 1000, 50, 2), tool_calls: 1 },
    ]);
    const two = await tool('get_usage_stats', { since: '2024-11-01', until: '2024-12-01', max_days: 2, top_projects: 1 });
    expect(two.by_day.map((d: any) => d.day)).toEqual(['2024-11-05', '2024-11-04']);
    expect(two.by_project.map((p: any) => p.project_name)).toEqual(['alpha']);
    expect(two.total_days).toBe(3);
  });
});

describe('usage statistics kept between servers', () => {
  test('a new server answers get_usage_stats from the statistics an earlier one kept; a changed session is read again', async () => {
    const first = await tool('get_usage_stats');
    expect(first.complete).toBe(true);
    const env = { ...fx.env, XDG_CACHE_HOME: path.join(fx.dir, 'cache'), MCPGW_LOG: 'debug' };
    const again = await connect(['--config', writeSessionsConfig(fx.dir)], { env });
    try {
      const r = await call(again.client, 'get_usage_stats', {});
      expect(r.data).toEqual(first);
      const counts = (text: string) => [...text.matchAll(/usage: sessions read from their files and taken from the kept statistics.*?"read":(\d+),"kept":(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
      // The server's log reaches stderr on its own pipe, possibly after the answer: wait for the nth line (no bound in
      // ms; a line never logged is the test's timeout).
      const logged = async (n: number) => {
        await until(() => counts(again.stderr()).length >= n, `log line ${n} on stderr`);
        return counts(again.stderr());
      };
      expect(await logged(1)).toEqual([[0, first.total_sessions + first.subagent_sessions]]);
      // One session grows by a response: only it is read again, and its tokens join the totals.
      fs.appendFileSync(files.a2, JSON.stringify(assistantLine(SID.a2, path.join(fx.projects, 'alpha'), 'a2-3', '2024-11-04T11:00:00.000Z', [7, 3, 0, 0])) + '\n');
      fs.utimesSync(files.a2, new Date('2024-11-04T12:00:00Z'), new Date('2024-11-04T12:00:00Z'));
      const grown = await call(again.client, 'get_usage_stats', {});
      expect(grown.data.input_tokens).toBe(first.input_tokens + 7);
      expect(grown.data.output_tokens).toBe(first.output_tokens + 3);
      expect(await logged(2)).toEqual([[0, first.total_sessions + first.subagent_sessions], [1, 0]]);
      // The file beside the search index is private like it.
      expect((fs.statSync(path.join(fx.dir, 'cache', 'mcpgw', 'sessions-stats.sqlite')).mode & 0o777).toString(8)).toBe('600');
    } finally {
      await again.close();
    }
  });
});
