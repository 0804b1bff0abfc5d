/**
 * The session tools against an independent re-parse, through a real MCP client: a corpus of invented sessions in every
 * assistant's current layout (test/fixtures/sessions-corpus/generate.py: subagents, forks and a fork of a fork, an
 * archived rollout, a resumed Claude session, aborted runs and partial last lines, injected context, titles, streamed
 * Claude responses, Copilot runs with and without a shutdown, Kimi's /clear rotation and both subagent layouts) is
 * written to a temp folder, re-parsed by reparse.py (Python, sharing no code with the server), and every count the
 * tools give — tokens by kind, responses, tool calls, sessions and subagents, user messages, first prompts, titles,
 * parents, Kimi's start times — must equal the re-parse's.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, REPO, type Connected } from '../../../test/helpers/mcp';

const CORPUS = path.join(REPO, 'test', 'fixtures', 'sessions-corpus');
const SOURCES = ['claude', 'codex', 'copilot', 'gemini', 'qwen', 'kimi'] as const;

let dir: string;
type Reparse = Record<string, { totals: Record<string, number>; sessions: Record<string, any> }>;
let expected: Reparse;
/** The re-parse from each of these times on (the forks' replays carry times after their parent's). */
const SINCE = ['2026-03-02T12:00:00Z', '2026-03-21T00:00:00Z'];
const since: Record<string, Reparse> = {};
let server: Connected;

function python(script: string, ...args: string[]): string {
  const r = spawnSync('python3', [path.join(CORPUS, script), ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0) throw new Error(`python3 ${script} failed (python3 is needed for this test): ${r.error?.message ?? r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-corpus-')));
  python('generate.py', dir, '4');
  // One re-parse, its totals whole and from each time in SINCE.
  const each = JSON.parse(python('reparse.py', path.join(dir, 'homes'), '', ...SINCE)) as Record<string, Reparse>;
  expected = each['']!;
  for (const t of SINCE) since[t] = each[t]!;
  const env = Object.fromEntries(SOURCES.map((s) => [`MCPGW_${s.toUpperCase()}_HOME`, path.join(dir, 'homes', s)]));
  fs.writeFileSync(path.join(dir, 'mcpgw.json'), JSON.stringify({ profiles: { default: { bundles: ['sessions'] } } }));
  server = await connect(['--config', path.join(dir, 'mcpgw.json')], { env: { ...env, XDG_CACHE_HOME: path.join(dir, 'cache') } });
}, 60_000);

afterAll(async () => {
  await server?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const tool = async (name: string, args: Record<string, unknown> = {}) => {
  const r = await call(server.client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${r.text}`);
  return r.data;
};

test('the corpus covers what it claims (a check of the re-parse\'s input, not of the tools)', () => {
  const s = (src: string) => Object.values(expected[src]!.sessions);
  expect(s('claude').filter((x) => x.parent).length).toBeGreaterThanOrEqual(3);
  expect(s('codex').filter((x) => x.forked_from).length).toBe(2);
  expect(s('codex').filter((x) => x.parent).length).toBe(1);
  expect(s('kimi').filter((x) => x.parent).length).toBe(2);
  expect(s('gemini').filter((x) => x.parent).length).toBe(1);
  expect(fs.readdirSync(path.join(dir, 'homes', 'codex', 'archived_sessions'))).toHaveLength(1);
});

describe.each(SOURCES)('%s', (source) => {
  test('get_usage_stats: tokens by kind, responses, tool calls, sessions and subagents equal the re-parse', async () => {
    const want = expected[source]!.totals;
    const data = await tool('get_usage_stats', { source });
    expect({
      sessions: data.total_sessions, subagent_sessions: data.subagent_sessions, responses: data.responses,
      input_tokens: data.input_tokens, output_tokens: data.output_tokens, cache_read_tokens: data.cache_read_tokens,
      cache_write_tokens: data.cache_write_tokens, tool_calls: data.tool_calls,
    }).toEqual(want);
    expect(data.total_tokens).toBe(want.input_tokens! + want.output_tokens! + want.cache_read_tokens! + want.cache_write_tokens!);
    expect(data.input_output_tokens).toBe(want.input_tokens! + want.output_tokens!);
    expect(data.complete).toBe(true);
  });

  test('list_projects / list_sessions: sessions and subagents per project, first prompts, titles, parents; user messages per session', async () => {
    const want = expected[source]!.sessions;
    const projects = (await tool('list_projects', { source, include_deleted: true, limit: 100 })).projects;
    const got: Record<string, any> = {};
    for (const p of projects) {
      const top = (await tool('list_sessions', { project_id: p.id, source, limit: 100 })).sessions;
      expect(p.session_count).toBe(top.length);
      const rows = [...top];
      let subs = 0;
      for (const s of top) {
        if (s.subagent_count === 0) continue;
        const children = (await tool('list_sessions', { project_id: p.id, source, parent_session_id: s.id, limit: 100 })).sessions;
        expect(children).toHaveLength(s.subagent_count);
        subs += children.length;
        rows.push(...children);
      }
      expect(p.subagent_count).toBe(subs);
      for (const s of rows) {
        const meta = await tool('get_session_metadata', { path: s.path, summary_only: true });
        got[s.id] = {
          project: p.path, parent: s.parent_session_id, forked_from: s.forked_from ?? null, first_prompt: s.first_prompt, title: s.title, archived: s.archived ?? false,
          // Kimi's start time is the first time in its wire.jsonl (an older subagent has none: its file's time, which no re-parse gives)
          user_messages: meta.role_counts.user ?? 0, ...(want[s.id]?.created_at ? { created_at: s.created_at } : {}),
        };
        expect(meta.description).toBe(s.first_prompt);
      }
    }
    expect(got).toEqual(want);
  });
});

describe.each(SINCE)('since %s', (from) => {
  test.each(SOURCES)('%s: responses, tokens and tool calls from then on equal the re-parse (a copy made later does not bring its originals into the range)', async (source) => {
    const want = since[from]![source]!.totals;
    const data = await tool('get_usage_stats', { source, since: from });
    expect({
      responses: data.responses, input_tokens: data.input_tokens, output_tokens: data.output_tokens, cache_read_tokens: data.cache_read_tokens,
      cache_write_tokens: data.cache_write_tokens, tool_calls: data.tool_calls,
    }).toEqual({
      responses: want.responses, input_tokens: want.input_tokens, output_tokens: want.output_tokens, cache_read_tokens: want.cache_read_tokens,
      cache_write_tokens: want.cache_write_tokens, tool_calls: want.tool_calls,
    });
  });
});

test('search_sessions finds a session by its title', async () => {
  const titled = Object.entries(expected.claude!.sessions).find(([, s]) => s.title?.startsWith('renamed'))!;
  const found = await tool('search_sessions', { query: titled[1].title, source: 'claude' });
  expect(found.sessions.map((s: any) => s.session_id)).toContain(titled[0]);
  // a Codex thread named in its rollout (the index's names are titles, not entries: they are not searched)
  const named = Object.entries(expected.codex!.sessions).find(([, s]) => s.title === 'codex thread 3')!;
  const codex = await tool('search_sessions', { query: 'codex thread 3', source: 'codex' });
  expect(codex.sessions.map((s: any) => s.session_id)).toContain(named[0]);
});
