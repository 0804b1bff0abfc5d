/**
 * The explorer's text search is a matcher the engine's record loop runs (`ScanEngine.match`), not a loop of its own:
 * through a real MCP client, with a ScanEngine registered in the kernel's container that passes every call to the
 * default engine and notes the record loops it runs, `search` of a text answers as the file says (counted by hand) and
 * its records went through `match`; an engine whose record loop finds nothing makes the same search find nothing.
 */
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { inProcessClient } from '../helpers/mcp';
import jsonl from '../../plugins/format-jsonl/src/index';
import explore from '../../plugins/tools-explore/src/index';
import jsonpath from '../../plugins/query-jsonpath/src/index';
import { resolveConfig } from '../../src/kernel/config';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { Tokens, type MatchScanOptions, type ScanEngine } from '../../src/kernel/contracts';
import { createKernel } from '../../src/compose/engine';

let tmp: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-text-matcher-')));
  // "bob" (any case) in records 1 and 3: a name and a nested value
  fs.writeFileSync(path.join(tmp, 'people.jsonl'), '{"n":"Ann"}\n{"n":"Bob"}\n{"n":"Cy"}\n{"friend":{"n":"BOB"}}\n');
  for (const f of ['jsonl.cjs', 'jsonpath.cjs', 'explore.cjs']) fs.writeFileSync(path.join(tmp, f), '// stands in for a plugin module\n');
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const silent = { error() {}, warn() {}, info() {}, debug() {} };

/** The search's records and the record loops `engine` saw, with `wrap` around the default engine. */
async function searchBob(wrap: (real: ScanEngine, loops: MatchScanOptions<unknown>[]) => ScanEngine) {
  const loaded = new Map<string, unknown>([[path.join(tmp, 'jsonl.cjs'), jsonl], [path.join(tmp, 'jsonpath.cjs'), jsonpath], [path.join(tmp, 'explore.cjs'), explore]]);
  const kernel = createKernel({ version: '0.1.0', ownDir: tmp, log: silent, importModule: async (e) => loaded.get(e) });
  await kernel.load(['./jsonl.cjs', './jsonpath.cjs', './explore.cjs'].map((id) => ({ id, options: {}, fromDir: tmp, origin: 'config' as const })));
  const real = kernel.scope({ root: tmp, limits: DEFAULT_LIMITS }).resolve<ScanEngine>(Tokens.ScanEngine);
  const loops: MatchScanOptions<unknown>[] = [];
  kernel.container.register(Tokens.ScanEngine, { useValue: wrap(real, loops) });
  const client = await inProcessClient(kernel.serverFactory(resolveConfig({ config: { root: tmp }, dir: tmp }, {}, {}, tmp))());
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
