import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { advertisedSchemas, type SchemaSource } from '../../src/kernel/server/schema-cache';

let dir: string;
let warnings: string[];
const log = { error() {}, warn: (m: string) => void warnings.push(m), info() {}, debug() {} };

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-schema-cache-'));
  warnings = [];
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Two tools whose schemas count how often they are computed. */
function tools(counter: { n: number }, suffix = ''): SchemaSource[] {
  return ['a', 'b'].map((name) => ({
    id: `p/bundle/${name}${suffix}`,
    compute: () => {
      counter.n++;
      return { input: { type: 'object', properties: { [name]: { type: 'string', description: `the ${name}` } } }, output: { type: 'object', required: [name] } };
    },
  }));
}

const EXPECTED = [
  { input: { type: 'object', properties: { a: { type: 'string', description: 'the a' } } }, output: { type: 'object', required: ['a'] } },
  { input: { type: 'object', properties: { b: { type: 'string', description: 'the b' } } }, output: { type: 'object', required: ['b'] } },
];

const stored = () => fs.readdirSync(dir).filter((n) => n.startsWith('tools-') && n.endsWith('.json'));

test('a first start computes and stores; the next reads the same schemas back without computing', () => {
  const first = { n: 0 };
  expect(advertisedSchemas(tools(first), { dir, salt: 's', log, code: () => 'code v1' })).toEqual(EXPECTED);
  expect(first.n).toBe(2);
  expect(stored()).toHaveLength(1);
  const second = { n: 0 };
  expect(advertisedSchemas(tools(second), { dir, salt: 's', log, code: () => 'code v1' })).toEqual(EXPECTED);
  expect(second.n).toBe(0);
  expect(warnings).toEqual([]);
});

test('other code, another salt or other tools are another key: computed again, the old file left alone', () => {
  advertisedSchemas(tools({ n: 0 }), { dir, salt: 's', log, code: () => 'code v1' });
  for (const [opts, suffix] of [[{ salt: 's', code: () => 'code v2' }, ''], [{ salt: 't', code: () => 'code v1' }, ''], [{ salt: 's', code: () => 'code v1' }, ' lenient']] as const) {
    const c = { n: 0 };
    expect(advertisedSchemas(tools(c, suffix), { dir, log, ...opts })).toEqual(EXPECTED);
    expect(c.n).toBe(2);
  }
  expect(stored()).toHaveLength(4);
});

test.each([
  ['cut short', (text: string) => text.slice(0, text.length - 10), 'not JSON'],
  ['a value changed, the checksum not', (text: string) => text.replace('the a', 'the z'), 'checksum mismatch'],
  ['a tool missing (checksum fixed)', (text: string) => {
    const j = JSON.parse(text);
    j.schemas = j.schemas.slice(1);
    j.crc = crc32(JSON.stringify(j.schemas));
    return JSON.stringify(j);
  }, 'wrong number of tools'],
  ['not a schema pair (checksum fixed)', (text: string) => {
    const j = JSON.parse(text);
    j.schemas[1] = { input: 'x', output: {} };
    j.crc = crc32(JSON.stringify(j.schemas));
    return JSON.stringify(j);
  }, 'not a schema pair'],
])('a damaged file (%s) is discarded with a warning, computed and stored again', (_what, damage, reason) => {
  advertisedSchemas(tools({ n: 0 }), { dir, salt: 's', log, code: () => 'v' });
  const file = path.join(dir, stored()[0]);
  fs.writeFileSync(file, damage(fs.readFileSync(file, 'utf8')));
  const c = { n: 0 };
  expect(advertisedSchemas(tools(c), { dir, salt: 's', log, code: () => 'v' })).toEqual(EXPECTED);
  expect(c.n).toBe(2);
  expect(warnings).toEqual([`tools/list schema cache: discarded a damaged file (${reason})`]);
  // rewritten whole: the next start reads it without a warning
  const again = { n: 0 };
  expect(advertisedSchemas(tools(again), { dir, salt: 's', log, code: () => 'v' })).toEqual(EXPECTED);
  expect(again.n).toBe(0);
  expect(warnings).toHaveLength(1);
});

test('a file that really holds other schemas is what is served: the stored file is read, not recomputed', () => {
  advertisedSchemas(tools({ n: 0 }), { dir, salt: 's', log, code: () => 'v' });
  const file = path.join(dir, stored()[0]);
  const j = JSON.parse(fs.readFileSync(file, 'utf8'));
  j.schemas[0].input.properties.a.description = 'edited';
  j.crc = crc32(JSON.stringify(j.schemas));
  fs.writeFileSync(file, JSON.stringify(j));
  const got = advertisedSchemas(tools({ n: 0 }), { dir, salt: 's', log, code: () => 'v' });
  expect((got[0].input as any).properties.a.description).toBe('edited');
});

test('without a folder, or with one that cannot be written, the schemas are computed every time and nothing fails', () => {
  const c = { n: 0 };
  expect(advertisedSchemas(tools(c), null)).toEqual(EXPECTED);
  expect(advertisedSchemas(tools(c), null)).toEqual(EXPECTED);
  expect(c.n).toBe(4);
  const notAFolder = path.join(dir, 'file');
  fs.writeFileSync(notAFolder, 'x');
  const d = { n: 0 };
  expect(advertisedSchemas(tools(d), { dir: path.join(notAFolder, 'sub'), salt: 's', log, code: () => 'v' })).toEqual(EXPECTED);
  expect(advertisedSchemas(tools(d), { dir: path.join(notAFolder, 'sub'), salt: 's', log, code: () => 'v' })).toEqual(EXPECTED);
  expect(d.n).toBe(4);
  expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
});

test('the folder keeps the 8 newest files: each rebuild of a plugin writes a new one', () => {
  const names: string[] = [];
  for (let i = 0; i < 11; i++) {
    const before = new Set(stored());
    advertisedSchemas(tools({ n: 0 }), { dir, salt: 's', log, code: () => `build ${i}` });
    const added = stored().filter((n) => !before.has(n));
    expect(added).toHaveLength(1);
    names.push(added[0]);
    // build i was written (20 - i) s ago: older builds have older times
    const t = new Date(Date.now() - (20 - i) * 1000);
    fs.utimesSync(path.join(dir, added[0]), t, t);
  }
  expect(stored().sort()).toEqual(names.slice(3).sort());
});
