/**
 * The explorer's text search and the sessions search are matchers the engine's record loop runs (`ScanEngine.match`),
 * not loops of their own: through a real MCP client, with a ScanEngine registered in the kernel's container that passes
 * every call to the default engine and notes the record loops it runs, `search` of a text and `search_sessions` answer
 * as the files say (counted by hand) and their records went through `match`; an engine whose record loop finds nothing
 * makes the same searches find nothing.
 */
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { inProcessClient } from '../../../test/helpers/mcp';
import jsonl from '../../format-jsonl/src/index';
import explore from '../src/index';
import sessions from '../../tools-sessions/src/index';
import jsonpath from '../../query-jsonpath/src/index';
import { resolveConfig } from '../../../src/kernel/config';
import { DEFAULT_LIMITS } from '../../../src/kernel/config/defaults';
import { Tokens, type MatchScanOptions, type ScanEngine } from '../../../src/kernel/contracts';
import { createKernel } from '../../../src/compose/engine';

let tmp: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-text-matcher-')));
  // "bob" (any case) in records 1 and 3: a name and a nested value
  fs.writeFileSync(path.join(tmp, 'people.jsonl'), '{"n":"Ann"}\n{"n":"Bob"}\n{"n":"Cy"}\n{"friend":{"n":"BOB"}}\n');
  // A Claude Code history of one session: "zebra" in two of its three user entries
  const project = path.join(tmp, 'work', 'proj');
  const folder = path.join(tmp, 'claude', 'projects', project.replace(/[/.]/g, '-'));
  fs.mkdirSync(folder, { recursive: true });
  const id = '00000000-0000-4000-8000-000000000001';
  const line = (i: number, text: string) => JSON.stringify({ type: 'user', uuid: `u${i}`, timestamp: `2025-05-01T10:0${i}:00.000Z`, sessionId: id, cwd: project, message: { role: 'user', content: [{ type: 'text', text }] } });
  fs.writeFileSync(path.join(folder, `${id}.jsonl`), [line(0, 'a zebra crossing'), line(1, 'nothing here'), line(2, 'Zebra again')].join('\n') + '\n');
  for (const f of ['jsonl.cjs', 'jsonpath.cjs', 'explore.cjs', 'sessions.cjs']) fs.writeFileSync(path.join(tmp, f), '// stands in for a plugin module\n');
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const silent = { error() {}, warn() {}, info() {}, debug() {} };

type Wrap = (real: ScanEngine, loops: MatchScanOptions<unknown>[]) => ScanEngine;

/** An MCP client of a kernel with the explorer and the sessions bundle (Claude Code only, its home in tmp), `wrap` around the default engine. */
async function connectWith(wrap: Wrap) {
  const loaded = new Map<string, unknown>([[path.join(tmp, 'jsonl.cjs'), jsonl], [path.join(tmp, 'jsonpath.cjs'), jsonpath], [path.join(tmp, 'explore.cjs'), explore], [path.join(tmp, 'sessions.cjs'), sessions]]);
  const kernel = createKernel({ version: '0.1.0', ownDir: tmp, log: silent, importModule: async (e) => loaded.get(e) });
  const only = { claude: { home: path.join(tmp, 'claude') }, codex: { enabled: false }, copilot: { enabled: false }, gemini: { enabled: false }, qwen: { enabled: false }, kimi: { enabled: false } };
  await kernel.load([...['./jsonl.cjs', './jsonpath.cjs', './explore.cjs'].map((id) => ({ id, options: {} })), { id: './sessions.cjs', options: { enabled: true, sources: only } }]
    .map((p) => ({ ...p, fromDir: tmp, origin: 'config' as const })));
  const real = kernel.scope({ root: tmp, limits: DEFAULT_LIMITS }).resolve<ScanEngine>(Tokens.ScanEngine);
  const loops: MatchScanOptions<unknown>[] = [];
  kernel.container.register(Tokens.ScanEngine, { useValue: wrap(real, loops) });
  // (no secret redaction: its library is an ES module this test runner does not load)
  const config = { root: tmp, profiles: { default: { bundles: ['explore', 'sessions'], redactSecrets: false } } };
  return { client: await inProcessClient(kernel.serverFactory(resolveConfig({ config, dir: tmp }, {}, {}, tmp))()), loops };
}

/** The explorer's search for "bob", and the record loops the engine ran. */
async function searchBob(wrap: Wrap) {
  const { client, loops } = await connectWith(wrap);
  try {
    const opened = await client.callTool({ name: 'open_file', arguments: { path: 'people.jsonl' } });
    const handle = (opened.structuredContent as { handle: string }).handle;
    const r = await client.callTool({ name: 'search', arguments: { handle, query: 'bob' } });
    expect(r.isError).toBeFalsy();
    const page = r.structuredContent as { total_matches: number; matches: { record_index: number; match_path: string }[] };
    return { page, loops };
  } finally {
    await client.close();
  }
}

const delegating = (real: ScanEngine, loops: MatchScanOptions<unknown>[]): ScanEngine => ({
  run: (o) => real.run(o), aggregate: (o) => real.aggregate(o), slot: (d, s) => real.slot(d, s),
  missingMembers: (src, names, s) => real.missingMembers(src, names, s),
  match: (o) => (loops.push(o as MatchScanOptions<unknown>), real.match(o)),
});

test('text search runs as a matcher on the engine\'s record loop, and answers as the file says', async () => {
  const { page, loops } = await searchBob(delegating);
  expect(page.total_matches).toBe(2);
  expect(page.matches.map((m) => [m.record_index, m.match_path])).toEqual([[1, '/n'], [3, '/friend/n']]);
  expect(loops).toHaveLength(1);
  expect(loops[0]!.from ?? 0).toBe(0);
  expect(loops[0]!.source.count).toBe(4);
});

test('an engine whose record loop finds nothing: the same search finds nothing (the explorer has no loop of its own)', async () => {
  const { page, loops } = await searchBob((real, seen) => ({ ...delegating(real, seen), match: async (o) => (seen.push(o as MatchScanOptions<unknown>), { stoppedAt: null, unparsed: o.source.count }) }));
  expect(loops).toHaveLength(1);
  expect(page.total_matches).toBe(0);
  expect(page.matches).toEqual([]);
});

/** search_sessions for "zebra", and the record loops the engine ran. */
async function searchZebra(wrap: Wrap) {
  const { client, loops } = await connectWith(wrap);
  try {
    const r = await client.callTool({ name: 'search_sessions', arguments: { query: 'zebra' } });
    expect(r.isError ? r.structuredContent : 'no error').toBe('no error');
    const page = r.structuredContent as { total_matches: number; sessions: { matches: { line_num: number; field: string }[] }[] };
    return { page, loops };
  } finally {
    await client.close();
  }
}

test('search_sessions runs as a matcher on the engine\'s record loop, one loop per session file', async () => {
  const { page, loops } = await searchZebra(delegating);
  expect(page.total_matches).toBe(2);
  expect(page.sessions.flatMap((s) => s.matches.map((m) => [m.line_num, m.field]))).toEqual([[1, 'text'], [3, 'text']]);
  expect(loops).toHaveLength(1);
  expect(loops[0]!.source.count).toBe(3);
});

test('an engine whose record loop finds nothing: search_sessions finds nothing', async () => {
  const { page, loops } = await searchZebra((real, seen) => ({ ...delegating(real, seen), match: async (o) => (seen.push(o as MatchScanOptions<unknown>), { stoppedAt: null, unparsed: o.source.count }) }));
  expect(loops).toHaveLength(1);
  expect(page.total_matches).toBe(0);
});
