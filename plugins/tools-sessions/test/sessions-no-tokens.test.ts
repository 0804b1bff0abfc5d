/**
 * A session whose files record a conversation but no token usage (a Copilot CLI run that ended without
 * `session.shutdown`, which alone carries a run's totals on disk) is counted, its tokens said to be unknown — never
 * silently taken as zero. The fixture's one Copilot session with a shutdown gives the totals (hand-counted from its
 * modelMetrics); a copy of it without the shutdown line adds a session and no tokens.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, connect, type Connected } from '../../../test/helpers/mcp';
import { materializeSessions, writeSessionsConfig, type SessionHomes } from '../../../test/helpers/sessions';

const COPILOT = 'copilot/session-state/8d3f1e0a-5c4b-4f7e-9a55-2b6c7d8e9f01/events.jsonl';
const CRASHED = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

let fx: SessionHomes;
let server: Connected;

beforeAll(async () => {
  fx = materializeSessions();
  const original = fs.readFileSync(fx.file(COPILOT), 'utf8').split('\n').filter((l) => l && !l.includes('"session.shutdown"'));
  const dir = path.join(fx.homes.copilot, 'session-state', CRASHED);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'events.jsonl'), original.map((l) => l.split('8d3f1e0a-5c4b-4f7e-9a55-2b6c7d8e9f01').join(CRASHED)).join('\n') + '\n');
  const old = new Date('2025-01-01T00:00:00Z');
  fs.utimesSync(path.join(dir, 'events.jsonl'), old, old);
  server = await connect(['--config', writeSessionsConfig(fx.dir)], { env: { ...fx.env, XDG_CACHE_HOME: path.join(fx.dir, 'cache') } });
});
afterAll(async () => {
  await server?.close();
  fx?.remove();
});

test('get_usage_stats counts the session without token records and says its tokens are not in the totals', async () => {
  const r = await call(server.client, 'get_usage_stats', { source: 'copilot' });
  expect(r.isError).toBeFalsy();
  // The shutdown's modelMetrics: inputTokens 1470 (cache reads 450 and writes 20 included), outputTokens 80.
  expect(r.data).toMatchObject({ total_sessions: 2, input_tokens: 1000, output_tokens: 80, cache_read_tokens: 450, cache_write_tokens: 20, sessions_without_tokens: 1 });
  expect(r.data.warnings).toEqual([{ code: 'NO_TOKEN_USAGE', message: expect.stringMatching(/^1 copilot session records a conversation but no token usage: not in the token totals\. Copilot CLI writes a run's token totals only when the run ends \(session\.shutdown\)/) }]);
});

test('a history whose sessions all record usage has no such count', async () => {
  const r = await call(server.client, 'get_usage_stats', { source: 'claude' });
  expect(r.isError).toBeFalsy();
  expect(r.data.sessions_without_tokens).toBeUndefined();
  expect(r.data.warnings).toBeUndefined();
});
