/**
 * Secret redaction in the sessions tools' answers, through a real MCP client: fake keys of several kinds planted in a
 * Claude session (a prompt, an assistant text, a tool input, a tool result) come back masked, same length, counted
 * in redacted_secrets; a profile with redactSecrets: false shows them as written. The keys are built from parts so
 * that no scanner takes this file for a leak; none is real.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../../../test/helpers/mcp';

const KEYS = {
  github: 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
  slack: 'xoxb-' + '123456789012-1234567890123-' + 'AbCdEfGhIjKlMnOpQrStUvWx',
  anthropic: 'sk-ant-api03-' + 'Xy7'.repeat(31) + 'AA',
  npm: 'npm_' + 'Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8',
  stripe: 'sk_' + 'live_' + '4eC39HqLyjWDarjtT1zdp7dc',
  postgres: 'postgres://app:' + 'S3cretPass' + '@db.internal:5432/app',
};

/** The mask the docs promise: as many characters as the secret, `[REDACTED` + `*`… + `]`. */
const mask = (s: string) => `[REDACTED${'*'.repeat(s.length - 10)}]`;

const PROMPT = `Deploy fails with my token ${KEYS.github} — why?`;
const ANSWER = `Your Slack bot token ${KEYS.slack} is in the log; rotate it. The Anthropic key ${KEYS.anthropic} too.`;
const COMMAND = `npm config set //registry.npmjs.org/:_authToken ${KEYS.npm}`;
const OUTPUT = `STRIPE_KEY=${KEYS.stripe}\nDATABASE_URL=${KEYS.postgres}\nPORT=8080`;

let dir: string;
let home: string;
let file: string;
let on: Connected;
let off: Connected;

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-redact-')));
  const project = path.join(dir, 'work', 'deploy');
  fs.mkdirSync(project, { recursive: true });
  home = path.join(dir, 'claude');
  const folder = path.join(home, 'projects', project.replace(/[/.]/g, '-'));
  fs.mkdirSync(folder, { recursive: true });
  const sid = '7a7a7a7a-0000-4000-8000-000000000001';
  const base = { sessionId: sid, cwd: project };
  const lines = [
    { ...base, type: 'user', uuid: 'r-1', timestamp: '2025-06-01T10:00:00.000Z', message: { role: 'user', content: [{ type: 'text', text: PROMPT }] } },
    { ...base, type: 'assistant', uuid: 'r-2', timestamp: '2025-06-01T10:00:05.000Z', requestId: 'req-1', message: { id: 'm-1', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: ANSWER }] } },
    { ...base, type: 'assistant', uuid: 'r-3', timestamp: '2025-06-01T10:00:06.000Z', requestId: 'req-2', message: { id: 'm-2', role: 'assistant', model: 'claude-x', content: [{ type: 'tool_use', id: 'tu-1', name: 'Bash', input: { command: COMMAND } }] } },
    { ...base, type: 'user', uuid: 'r-4', timestamp: '2025-06-01T10:00:07.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu-1', content: OUTPUT }] } },
  ];
  file = path.join(folder, `${sid}.jsonl`);
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const none = path.join(dir, 'none');
  const env = { MCPGW_CLAUDE_HOME: home, MCPGW_CODEX_HOME: none, MCPGW_COPILOT_HOME: none, MCPGW_GEMINI_HOME: none, MCPGW_QWEN_HOME: none, MCPGW_KIMI_HOME: none };
  const config = path.join(dir, 'mcpgw.json');
  fs.writeFileSync(config, JSON.stringify({ profiles: { default: { bundles: ['sessions'] }, raw: { bundles: ['sessions'], redactSecrets: false } } }));
  on = await connect(['--config', config], { env });
  off = await connect(['--config', config, '--profile', 'raw'], { env });
});

afterAll(async () => {
  await on?.close();
  await off?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const everyKey = Object.values(KEYS);

test('get_session_entries: every planted key masked in text, tool input and tool result; the count says 6', async () => {
  const r = await call(on.client, 'get_session_entries', { path: file, max_content_length: 0 });
  expect(r.isError).toBe(false);
  const [prompt, answer, use, result] = r.data.entries;
  expect(prompt.text).toBe(PROMPT.replace(KEYS.github, mask(KEYS.github)));
  expect(answer.text).toBe(ANSWER.replace(KEYS.slack, mask(KEYS.slack)).replace(KEYS.anthropic, mask(KEYS.anthropic)));
  // The token is widened to the whole token it lies in (here the npm config key it is written after is another token).
  expect(use.tool_uses[0].input.command).toBe(COMMAND.replace(KEYS.npm, mask(KEYS.npm)));
  // A mask covers the whole token a key lies in: "STRIPE_KEY=" and "DATABASE_URL=" are glued to theirs.
  expect(result.tool_results[0].result).toBe(`${mask(`STRIPE_KEY=${KEYS.stripe}`)}\n${mask(`DATABASE_URL=${KEYS.postgres}`)}\nPORT=8080`);
  expect(r.data.redacted_secrets).toBe(6);
  for (const k of everyKey) expect(r.text).not.toContain(k);
  // Lengths hold: the masked texts have the planted texts' lengths.
  expect([prompt.text.length, answer.text.length, use.tool_uses[0].input.command.length, result.tool_results[0].result.length]).toEqual([PROMPT.length, ANSWER.length, COMMAND.length, OUTPUT.length]);
});

test('metadata, search and semantic search answers are masked too', async () => {
  const meta = await call(on.client, 'get_session_metadata', { path: file });
  expect(meta.data.description).toBe(PROMPT.replace(KEYS.github, mask(KEYS.github)));
  expect(meta.data.redacted_secrets).toBeGreaterThanOrEqual(1);
  const found = await call(on.client, 'search_sessions', { query: 'token', limit_per_session: 0 });
  expect(found.data.total_matches).toBe(3);
  expect(found.data.redacted_secrets).toBeGreaterThanOrEqual(2);
  // A match inside a key: the whole key is shown between the markers, and masked; the 80 characters before it would
  // start inside the Slack token, so they start after it.
  const inside = await call(on.client, 'search_sessions', { query: 'api03' });
  expect(inside.data.sessions[0].matches[0].preview).toBe(`… is in the log; rotate it. The Anthropic key «${mask(KEYS.anthropic)}» too.`);
  const sem = await call(on.client, 'semantic_search', { query: 'rotate the slack token' });
  expect(sem.isError).toBe(false);
  // A preview (160 characters) whose cut falls inside a key is cut before the key: no prefix of it is shown.
  const r2 = sem.data.results.find((x: any) => x.entry_uuid === 'r-2');
  expect(r2.preview).toBe(`Your Slack bot token ${mask(KEYS.slack)} is in the log; rotate it. The Anthropic key …`);
  for (const r of [meta, found, sem]) for (const k of everyKey) expect(r.text).not.toContain(k.slice(0, 16));
});

test('a profile with redactSecrets: false answers the text as written, without a count', async () => {
  const r = await call(off.client, 'get_session_entries', { path: file, max_content_length: 0 });
  expect(r.data.entries[0].text).toBe(PROMPT);
  expect(r.data.entries[3].tool_results[0].result).toBe(OUTPUT);
  expect(r.data.redacted_secrets).toBeUndefined();
});
