/**
 * Field cases C33 and C34 (test/fixtures/cases, inputs of our own written by each case's gen_sessions.py), served with
 * each case's own config through a real MCP client: every expected value of case.json is asserted.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, connect, REPO, type Connected } from '../../../test/helpers/mcp';

const CASES = path.join(REPO, 'test', 'fixtures', 'cases');
const caseJson = (id: string) => JSON.parse(fs.readFileSync(path.join(CASES, id, 'case.json'), 'utf8'));

async function serve(id: string): Promise<Connected> {
  return connect(['--config', path.join(CASES, id, '.mcpgwrc.json')], { cwd: path.join(CASES, id) });
}

async function tool(c: Connected, name: string, args: Record<string, unknown>) {
  const r = await call(c.client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${r.text}`);
  return r.data;
}

test('C33: a streamed Claude response is one response with its final counts; a line without requestId is not another', async () => {
  const { expected } = caseJson('C33');
  const c = await serve('C33');
  try {
    const data = await tool(c, 'get_usage_stats', { source: 'claude' });
    expect({
      responses: data.responses,
      input_tokens: data.input_tokens,
      output_tokens: data.output_tokens,
      cache_read_tokens: data.cache_read_tokens,
      cache_write_tokens: data.cache_write_tokens,
      total_tokens: data.total_tokens,
      tool_calls: data.tool_calls,
    }).toEqual(expected);
    // total_tokens holds the cache; input_output_tokens does not
    expect(data.input_output_tokens).toBe(expected.input_tokens + expected.output_tokens);
    expect(data.by_model['claude-sonnet-4-5-20250929']).toMatchObject({ responses: 2, output_tokens: 220 });
  } finally {
    await c.close();
  }
});

test('C34: the first prompt is what the person typed, not the caveat, a command wrapper or the compaction preamble', async () => {
  const { expected } = caseJson('C34');
  const c = await serve('C34');
  try {
    const a = '7d3c2a10-0000-4000-8000-00000000034a';
    const b = '7d3c2a10-0000-4000-8000-00000000034b';
    const listed = await tool(c, 'list_sessions', { project_id: '-home-dev-my-app', source: 'claude' });
    const byId = Object.fromEntries(listed.sessions.map((s: any) => [s.id, s]));
    expect(byId[a].first_prompt).toBe(expected['...034a first_prompt / description']);
    expect(byId[b].first_prompt).toBe(expected['...034b first_prompt / description']);
    for (const id of [a, b]) {
      const meta = await tool(c, 'get_session_metadata', { path: byId[id].path });
      expect(meta.description).toBe(expected[`...${id.slice(-4)} first_prompt / description`]);
    }
    // 034b entry 0 is the compaction summary: role summary, marked injected
    const entries = await tool(c, 'get_session_entries', { path: byId[b].path, limit: 5 });
    expect(entries.entries[0]).toMatchObject({ index: 0, role: 'summary', injected: true });
    expect(entries.entries[1]).toMatchObject({ role: 'user', text: expected['...034b first_prompt / description'] });
    expect(entries.entries[1].injected).toBeUndefined();
    // 034a: the caveat and the two command wrappers are injected system entries, never user messages
    const metaA = await tool(c, 'get_session_metadata', { path: byId[a].path });
    expect(metaA.role_counts).toEqual({ checkpoint: 1, system: 3, user: 1, assistant: 1 });
    const users = await tool(c, 'get_session_entries', { path: byId[a].path, roles: ['user'] });
    expect(users.entries.map((e: any) => e.text)).toEqual([expected['...034a first_prompt / description']]);
    expect(metaA.entry_summary.filter((e: any) => e.injected).map((e: any) => e.index)).toEqual([1, 2, 3]);
  } finally {
    await c.close();
  }
});
