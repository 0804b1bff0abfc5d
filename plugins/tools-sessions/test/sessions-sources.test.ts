/** Session sources: homes (environment > config > default), and normalizers that never throw on any record. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { BUILTIN_SOURCES } from '../src/index';
import { envName, optionsSchema, sourceHomes } from '../src/homes';
import { geminiSuperseded, normalizeGemini } from '../src/sources/gemini';
import { normalizeKimi } from '../src/sources/kimi';
import { sessionStart } from '../src/session/summary';

describe('sourceHomes', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-homes-')));
    for (const d of ['user/.claude', 'user/.codex', 'configured-codex', 'env-codex']) fs.mkdirSync(path.join(tmp, d), { recursive: true });
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test('environment beats config beats the default folder under the user\'s home; disabled sources are left out', () => {
    const options = optionsSchema.parse({ sources: { codex: { home: path.join(tmp, 'configured-codex') }, qwen: { enabled: false } } });
    const user = path.join(tmp, 'user');
    const none = sourceHomes(BUILTIN_SOURCES, options, {}, user);
    expect(none.map((h) => [h.source.name, h.basis, h.available])).toEqual([
      ['claude', 'default', true], ['codex', 'config', true], ['copilot', 'default', false], ['gemini', 'default', false], ['kimi', 'default', false],
    ]);
    expect(none[0]!.home).toBe(path.join(user, '.claude'));
    expect(none[0]!.basePath).toBe(path.join(user, '.claude', 'projects'));
    const env = sourceHomes(BUILTIN_SOURCES, options, { MCPGW_CODEX_HOME: path.join(tmp, 'env-codex') }, user);
    expect(env.find((h) => h.source.name === 'codex')).toMatchObject({ basis: 'environment', home: path.join(tmp, 'env-codex'), realHome: path.join(tmp, 'env-codex') });
  });

  test('envName: MCPGW_<NAME>_HOME, "-" as "_"', () => {
    expect(envName('claude')).toBe('MCPGW_CLAUDE_HOME');
    expect(envName('my-tool')).toBe('MCPGW_MY_TOOL_HOME');
  });
});

describe('normalizers never throw (format drift is never fatal)', () => {
  test.each(BUILTIN_SOURCES.map((s) => [s.name, s] as const))('%s', (_name, source) => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => {
      const n = source.normalize(v);
      if (n?.entry) {
        expect(typeof n.entry.text).toBe('string');
        expect(['user', 'assistant', 'tool', 'system', 'summary', 'checkpoint']).toContain(n.entry.role);
        for (const t of n.entry.tool_uses) expect(typeof t.input === 'object' && t.input !== null && !Array.isArray(t.input)).toBe(true);
      }
    }), { numRuns: 300 });
    // Records shaped like each source's, with wrong member types.
    for (const v of [{ type: 'assistant', message: { content: 'x', usage: 'y' } }, { type: 'response_item', payload: { type: 'function_call', arguments: '{bad' } },
      { type: 'assistant.message', data: { toolRequests: [null, 3] } }, { type: 'gemini', toolCalls: [1], tokens: [] }, { type: 'assistant', message: { parts: 'x' } },
      { role: 'assistant', tool_calls: [{ function: 3 }] }]) {
      expect(() => source.normalize(v)).not.toThrow();
    }
  });
});

test('an unknown record type is kept as a system entry naming it', () => {
  const claude = BUILTIN_SOURCES.find((s) => s.name === 'claude')!;
  expect(claude.normalize({ type: 'queue-operation', operation: 'enqueue' })?.entry).toMatchObject({ role: 'system', text: '[queue-operation]' });
});

describe('Gemini JSON Lines replay', () => {
  const rec = (pos: number, value: unknown) => ({ pos, value });
  test('the last version of a message counts; a rewind takes back the message named and every later one', () => {
    const got = geminiSuperseded([
      rec(0, { sessionId: 's', projectHash: 'h' }), rec(1, { id: 'a' }), rec(2, { id: 'b' }), rec(3, { id: 'a' }),
      rec(4, { $set: { lastUpdated: 'x' } }), rec(5, { id: 'c' }), rec(6, { $rewindTo: 'b' }), rec(7, { id: 'b' }),
    ]);
    // a: 1 replaced by 3; b (2) and c (5) rewound; the later b (7) counts; a's position stays first-written, before b
    expect([...got].sort((x, y) => x - y)).toEqual([1, 2, 5]);
  });

  test('a rewind to an unknown message takes back everything before it', () => {
    expect([...geminiSuperseded([rec(0, { id: 'a' }), rec(1, { id: 'b' }), rec(2, { $rewindTo: 'zz' }), rec(3, { id: 'c' })])].sort()).toEqual([0, 1]);
  });

  test('bookkeeping records: metadata gives hints, $set a summary entry or nothing, $rewindTo a checkpoint', () => {
    expect(normalizeGemini({ sessionId: 's1', projectHash: 'h', startTime: '2026-01-01T00:00:00Z' })).toEqual({ hints: { session_id: 's1', timestamp: '2026-01-01T00:00:00Z' } });
    expect(normalizeGemini({ $set: { lastUpdated: '2026-01-01T00:00:00Z' } })).toBeNull();
    expect(normalizeGemini({ $set: { summary: 'Fix it' } })?.entry).toMatchObject({ role: 'summary', text: 'Fix it' });
    expect(normalizeGemini({ $rewindTo: 'm9' })?.entry).toMatchObject({ role: 'checkpoint' });
  });
});

test('Kimi wire records: a StatusUpdate is one response\'s usage by message id (also inside a SubagentEvent); other events give only their time', () => {
  expect(normalizeKimi({ timestamp: 1767225600, message: { type: 'StatusUpdate', payload: { token_usage: { input_other: 5, output: 6, input_cache_read: 7, input_cache_creation: 8 }, message_id: 'm1' } } })).toEqual({
    usage: { key: 'm1', tokens: { input_tokens: 5, output_tokens: 6, cache_read_tokens: 7, cache_write_tokens: 8 }, timestamp: '2026-01-01T00:00:00.000Z' },
    hints: { timestamp: '2026-01-01T00:00:00.000Z' },
  });
  expect(normalizeKimi({ timestamp: 1767225600, message: { type: 'ContentPart', payload: { type: 'text', text: 'hi' } } })).toEqual({ hints: { timestamp: '2026-01-01T00:00:00.000Z' } });
  expect(normalizeKimi({ timestamp: 1767225601, message: { type: 'SubagentEvent', payload: { task_tool_call_id: 't1', event: { type: 'StatusUpdate', payload: { token_usage: { input_other: 1, output: 2, input_cache_read: 3, input_cache_creation: 4 }, message_id: 'm2' } } } } })?.usage)
    .toEqual({ key: 'm2', tokens: { input_tokens: 1, output_tokens: 2, cache_read_tokens: 3, cache_write_tokens: 4 }, timestamp: '2026-01-01T00:00:01.000Z' });
  expect(normalizeKimi({ type: 'metadata', protocol_version: '1.3' })).toBeNull();
});

describe('an entry\'s uuid is its own line\'s', () => {
  const claude = BUILTIN_SOURCES.find((s) => s.name === 'claude')!;
  const base = { parentUuid: null, isSidechain: false, userType: 'external', cwd: '/home/ana/webapp', sessionId: '5f0c1a2e-9999-4a4a-9b9b-000000000009', version: '2.0.14', gitBranch: 'main' };
  // Claude Code's lines as written: a summary names the last message it covers (leafUuid), a file-history snapshot
  // the user message it was taken for (messageId); neither line has a uuid of its own.
  const user = { ...base, type: 'user', uuid: '8a1d6c0e-1f2b-4c3d-9e8f-7a6b5c4d3e2f', timestamp: '2025-10-08T09:15:02.114Z', message: { role: 'user', content: 'Why does the build fail?' } };
  const summary = { type: 'summary', summary: 'Build failure in the CI pipeline', leafUuid: user.uuid };
  const snapshot = { type: 'file-history-snapshot', messageId: user.uuid, snapshot: { messageId: user.uuid, trackedFileBackups: {}, timestamp: '2025-10-08T09:15:02.120Z' }, isSnapshotUpdate: false };

  test('Claude: a summary line and a file-history snapshot have no uuid (not the uuid of the message they name)', () => {
    expect(claude.normalize(user)?.entry).toMatchObject({ role: 'user', uuid: user.uuid });
    expect(claude.normalize(summary)?.entry).toMatchObject({ role: 'summary', uuid: null, timestamp: null, text: 'Build failure in the CI pipeline' });
    expect(claude.normalize(snapshot)?.entry).toMatchObject({ role: 'checkpoint', uuid: null, timestamp: '2025-10-08T09:15:02.120Z' });
  });

  test('every source: the uuids of a session\'s entries never repeat', () => {
    const root = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'sessions');
    const files: string[] = [];
    const walk = (d: string): void => { for (const e of fs.readdirSync(d, { withFileTypes: true })) e.isDirectory() ? walk(path.join(d, e.name)) : e.name.endsWith('.jsonl') && files.push(path.join(d, e.name)); };
    walk(root);
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const name = path.relative(root, file).split(path.sep)[0]!;
      const source = BUILTIN_SOURCES.find((s) => s.name === name)!;
      const uuids: string[] = [];
      for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
        let v: unknown;
        try { v = JSON.parse(line); } catch { continue; }
        const u = source.normalize(v)?.entry?.uuid;
        if (u) uuids.push(u);
      }
      // Gemini writes a message again under its id when it changes (the replay keeps its last version): its own repeat.
      if (name === 'gemini') continue;
      expect({ file: path.relative(root, file), repeated: uuids.filter((u, i) => uuids.indexOf(u) !== i) }).toEqual({ file: path.relative(root, file), repeated: [] });
    }
  });
});

describe('a session\'s start time', () => {
  const codex = BUILTIN_SOURCES.find((s) => s.name === 'codex')!;
  test('Codex: session_meta\'s payload timestamp (the session\'s creation), else the line\'s', () => {
    // A rollout line as Codex CLI writes it: the line's time, and the session's own in the payload.
    const meta = { timestamp: '2025-09-30T08:12:44.951Z', type: 'session_meta', payload: { id: '0199a213-81c0-7800-8aa1-bbab2a035a53', timestamp: '2025-09-30T08:12:44.930Z', cwd: '/home/ana/cli-tool', originator: 'codex_cli_rs', cli_version: '0.46.0', instructions: null, git: { commit_hash: 'abc123', branch: 'main', repository_url: 'git@example.com:ana/cli-tool.git' } } };
    expect(codex.normalize(meta)?.hints).toEqual({ session_id: meta.payload.id, cwd: '/home/ana/cli-tool', git_branch: 'main', timestamp: '2025-09-30T08:12:44.930Z' });
    const { timestamp: _t, ...older } = meta.payload;
    expect(codex.normalize({ ...meta, payload: older })?.hints?.timestamp).toBe('2025-09-30T08:12:44.951Z');
  });

  test('sessionStart: the earlier of the source\'s start and the first entry\'s time, compared as times', () => {
    // the session record first (Codex, Gemini), a record timed before the first timed line (Claude's snapshot)
    expect(sessionStart({ hints: { timestamp: '2025-09-30T08:12:44.930Z' }, firstTimestamp: '2025-09-30T08:20:01.000Z' })).toBe('2025-09-30T08:12:44.930Z');
    expect(sessionStart({ hints: { timestamp: '2025-03-10T09:00:01.000Z' }, firstTimestamp: '2025-03-10T09:00:00.500Z' })).toBe('2025-03-10T09:00:00.500Z');
    // other spellings of RFC 3339 compare by time, not as strings
    expect(sessionStart({ hints: { timestamp: '2025-03-10T10:00:00+02:00' }, firstTimestamp: '2025-03-10T09:00:00Z' })).toBe('2025-03-10T08:00:00.000Z');
    expect(sessionStart({ hints: {}, firstTimestamp: 'garbage' })).toBeNull();
    expect(sessionStart({ hints: { timestamp: 'garbage' }, firstTimestamp: '2025-03-10T09:00:00Z' })).toBe('2025-03-10T09:00:00.000Z');
  });
});
