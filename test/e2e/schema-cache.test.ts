import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { connect, REPO } from '../helpers/mcp';

// The advertised JSON Schemas are stored in the cache folder by a first start and read back by the next: tools/list must
// be the same answer either way, and the same as a server's with the cache off (which converts every tool's schemas).

const EXAMPLES = path.join(REPO, 'examples');
let home: string;
let noCache: string;

beforeAll(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-schema-home-'));
  noCache = path.join(home, 'no-cache.json');
  fs.writeFileSync(noCache, JSON.stringify({ cache: false }));
});
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

const folder = () => path.join(home, 'mcpgw', 'index');
const stored = () => (fs.existsSync(folder()) ? fs.readdirSync(folder()).filter((n) => /^tools-[0-9a-f]+\.json$/.test(n)) : []);

async function toolsList(extra: string[] = []) {
  const c = await connect(['--root', EXAMPLES, ...extra], { env: { XDG_CACHE_HOME: home } });
  try {
    return { tools: (await c.client.listTools()).tools, stderr: c.stderr() };
  } finally {
    await c.close();
  }
}

test('tools/list is the same from a first start (stored), a second (read back) and a start with the cache off', async () => {
  const off = await toolsList(['--config', noCache]);
  expect(stored()).toEqual([]);
  const first = await toolsList();
  expect(stored()).toHaveLength(1);
  const second = await toolsList();
  expect(stored()).toHaveLength(1);
  expect(first.tools.length).toBeGreaterThan(10);
  expect(first.tools).toEqual(off.tools);
  expect(second.tools).toEqual(off.tools);

  // the second start really read the file: an edit of it (with its checksum) shows in tools/list
  const file = path.join(folder(), stored()[0]);
  const original = fs.readFileSync(file, 'utf8');
  const j = JSON.parse(original);
  const at = off.tools.findIndex((t) => t.name === 'get_record');
  j.schemas[at].input.properties.index.description = 'edited in the stored file';
  j.crc = crc32(JSON.stringify(j.schemas));
  fs.writeFileSync(file, JSON.stringify(j));
  const edited = await toolsList();
  expect((edited.tools[at].inputSchema as any).properties.index.description).toBe('edited in the stored file');

  // a damaged file is discarded with a warning and written again; the answer is the cache-off one
  fs.writeFileSync(file, original.slice(0, original.length >> 1));
  const damaged = await toolsList();
  expect(damaged.tools).toEqual(off.tools);
  expect(damaged.stderr).toContain('tools/list schema cache: discarded a damaged file (not JSON)');
  expect(fs.readFileSync(file, 'utf8')).toBe(original);
});
