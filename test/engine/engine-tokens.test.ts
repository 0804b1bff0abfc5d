/**
 * The engine is reached through the container: the composition root (src/compose/engine.ts) registers its services
 * under Tokens, and a test (or a plugin) that registers another implementation of a token is what tools then use.
 * Here a fake Indexer, registered in the kernel's container, serves every open of the explorer's open_file, called
 * through a real MCP client; a kernel without it answers from the file itself.
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
import { Tokens, type Indexer, type IndexerOpenOptions, type OpenedFile, type Plugin } from '../../src/kernel/contracts';
import { createKernel } from '../../src/compose/engine';
import { EngineIndexer } from '../../src/engine/files/indexer';

let tmp: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-tokens-')));
  // three records in the file asked for, two in the one the fake serves instead (counted by hand)
  fs.writeFileSync(path.join(tmp, 'people.jsonl'), '{"n":"Ann"}\n{"n":"Bob"}\n{"n":"Cy"}\n');
  fs.writeFileSync(path.join(tmp, 'other.jsonl'), '{"n":"Di"}\n{"n":"Ed"}\n');
  for (const f of ['jsonl.cjs', 'jsonpath.cjs', 'explore.cjs', 'extra.cjs']) fs.writeFileSync(path.join(tmp, f), '// stands in for a plugin module\n');
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const silent = { error() {}, warn() {}, info() {}, debug() {} };
const modules = () => new Map<string, unknown>([[path.join(tmp, 'jsonl.cjs'), jsonl], [path.join(tmp, 'jsonpath.cjs'), jsonpath], [path.join(tmp, 'explore.cjs'), explore]]);

/**
 * open_file's record_count for people.jsonl through a real MCP client, with `swap` applied to the kernel's container
 * first; `extra`: a plugin loaded after the built-in ones.
 */
async function recordCount(swap?: (register: (indexer: Indexer) => void) => void, extra?: Plugin): Promise<number> {
  const loaded = modules();
  if (extra) loaded.set(path.join(tmp, 'extra.cjs'), extra);
  const kernel = createKernel({ version: '0.1.0', ownDir: tmp, log: silent, importModule: async (e) => loaded.get(e) });
  await kernel.load(['./jsonl.cjs', './jsonpath.cjs', './explore.cjs', ...(extra ? ['./extra.cjs'] : [])].map((id) => ({ id, options: {}, fromDir: tmp, origin: 'config' as const })));
  swap?.((indexer) => kernel.container.register(Tokens.Indexer, { useValue: indexer }));
  const server = kernel.serverFactory(resolveConfig({ config: { root: tmp }, dir: tmp }, {}, {}, tmp))();
  const client = await inProcessClient(server);
  try {
    const r = await client.callTool({ name: 'open_file', arguments: { path: 'people.jsonl' } });
    expect(r.isError).toBeFalsy();
    return (r.structuredContent as { record_count: number }).record_count;
  } finally {
    await client.close();
  }
}

test('the composed kernel opens files with the default engine\'s index pass', async () => {
  expect(await recordCount()).toBe(3);
});

/** An index pass that opens other.jsonl whatever it is asked for, and notes what it was asked for in `seen`. */
function otherFileIndexer(seen: string[]): Indexer {
  const real = new EngineIndexer();
  const other = path.join(tmp, 'other.jsonl');
  return {
    async open(file: OpenedFile, options: IndexerOpenOptions) {
      seen.push(file.displayPath);
      const fd = fs.openSync(other, 'r');
      const opened = await real.open({ ...file, fd, realPath: other, identity: { ...file.identity, size: fs.fstatSync(fd).size } }, options);
      return { ...opened, close: () => { opened.close(); fs.closeSync(fd); } };
    },
    read: (file, options) => real.read(file, options),
  };
}

test('an Indexer registered in the container serves the tools\' opens: a fake that indexes another file is what open_file reports', async () => {
  const seen: string[] = [];
  expect(await recordCount((register) => register(otherFileIndexer(seen)))).toBe(2);
  expect(seen).toEqual(['people.jsonl']);
});

test('a plugin replaces an engine service (registerService), as another engine would; the kernel\'s own services it may not', async () => {
  const seen: string[] = [];
  const engine: Plugin = { name: 'other-engine', version: '1.0.0', apiVersion: '^3.0.0', register(c) { c.registerService(Tokens.Indexer, otherFileIndexer(seen)); } };
  expect(await recordCount(undefined, engine)).toBe(2);
  expect(seen).toEqual(['people.jsonl']);
  const grabby: Plugin = { name: 'grabby', version: '1.0.0', apiVersion: '^3.0.0', register(c) { c.registerService(Tokens.Files, {}); } };
  await expect(recordCount(undefined, grabby)).rejects.toThrow('Plugin grabby@1.0.0: registerService() replaces only an engine service: mcpgw:scan-engine, mcpgw:regex, mcpgw:records, mcpgw:indexer; not "mcpgw:files".');
});
