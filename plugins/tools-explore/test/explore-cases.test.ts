import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, connect, REPO, type Connected } from '../../../test/helpers/mcp';

/** Field case C14 through the wire: get_schema over test/fixtures/cases/C14/schema.jsonl (a copy of the field case's input). */
const CASES = path.join(REPO, 'test', 'fixtures', 'cases');
let c: Connected;
beforeAll(async () => {
  c = await connect(['--root', CASES]);
});
afterAll(async () => c.close());

/** C14's compare rule: type arrays and required lists order-insensitive; extra annotations (x-…) allowed. */
function normalize(s: any): any {
  if (Array.isArray(s)) return s.map(normalize);
  if (s === null || typeof s !== 'object') return s;
  const out: any = {};
  for (const [k, v] of Object.entries(s)) {
    if (k.startsWith('x-')) continue;
    out[k] = (k === 'type' || k === 'required') && Array.isArray(v) ? [...v].sort() : normalize(v);
  }
  return out;
}

test('C14: get_schema infers over all 3 records (integer vs number, nullable, null-only, empty arrays, optional members)', async () => {
  const spec = JSON.parse(fs.readFileSync(path.join(CASES, 'C14', 'case.json'), 'utf8'));
  const { data } = await call(c.client, 'open_file', { path: `C14/${spec.input}` });
  const r = await call(c.client, 'get_schema', { handle: data.handle });
  expect(r.data.records_sampled).toBe(3);
  expect(normalize(r.data.schema)).toEqual(normalize(spec.expected));
  expect(r.data.schema.properties.meta).toMatchObject({ 'x-occurrences': 1, 'x-frequency': 0.333 });
  const keys = await call(c.client, 'extract_keys', { handle: data.handle });
  // counts only for the keys some of the 3 records lack
  expect(keys.data).toMatchObject({ keys: ['extra', 'id', 'meta', 'note', 'score', 'site', 'tags'], records_sampled: 3, key_counts: { extra: 1, meta: 1 } });
});
