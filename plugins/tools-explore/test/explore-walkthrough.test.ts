import * as path from 'node:path';
import { call, connect, REPO, type Connected } from '../../../test/helpers/mcp';

const EXAMPLES = path.join(REPO, 'examples');

/** The walkthrough an assistant does on people.ndjson, through a real MCP client over stdio. */
describe('explorer walkthrough on examples/people.ndjson', () => {
  let c: Connected;
  let handle: string;
  beforeAll(async () => {
    c = await connect(['--root', EXAMPLES]);
  });
  afterAll(async () => c.close());

  test('list_files shows people.ndjson with its format', async () => {
    const r = await call(c.client, 'list_files', {});
    expect(r.isError).toBe(false);
    const people = r.data.files.find((f: { path: string }) => f.path === 'people.ndjson');
    expect(people).toMatchObject({ path: 'people.ndjson', size_bytes: 326, format: 'jsonl' });
    expect(new Date(people.modified).toString()).not.toBe('Invalid Date');
    expect(r.data.truncated).toBe(false);
    const globbed = await call(c.client, 'list_files', { glob: '*.ndjson' });
    expect(globbed.data.files.map((f: { path: string }) => f.path)).toEqual(['people.ndjson']);
    const one = await call(c.client, 'list_files', { max_results: 1 });
    expect(one.data.files).toHaveLength(1);
    expect(one.data.truncated).toBe(true);
  });

  test('open_file', async () => {
    const r = await call(c.client, 'open_file', { path: 'people.ndjson' });
    expect(r.data).toMatchObject({ path: 'people.ndjson', file_type: 'ndjson', record_count: 10 });
    handle = r.data.handle;
    expect(handle).toMatch(/^file_\d+$/);
  });

  test('get_schema: id and age integer, name string, all required', async () => {
    const r = await call(c.client, 'get_schema', { handle });
    expect(r.data).toEqual({
      schema: {
        type: 'object',
        properties: { id: { type: 'integer' }, name: { type: 'string' }, age: { type: 'integer' } },
        required: ['age', 'id', 'name'],
      },
      records_sampled: 10,
    });
  });

  test('extract_keys: age, id, name, in every record (so no counts)', async () => {
    const r = await call(c.client, 'extract_keys', { handle });
    expect(r.data).toEqual({ keys: ['age', 'id', 'name'], records_sampled: 10 });
  });

  test('sample_records 3 even: indexes 0, 4, 9 (Alice, Eve, Jack)', async () => {
    const r = await call(c.client, 'sample_records', { handle, count: 3, strategy: 'even' });
    expect(r.data).toEqual({
      records: [
        { index: 0, record: '{"id":1,"name":"Alice","age":30}' },
        { index: 4, record: '{"id":5,"name":"Eve","age":32}' },
        { index: 9, record: '{"id":10,"name":"Jack","age":41}' },
      ],
      total_records: 10,
      strategy: 'even',
    });
    const first = await call(c.client, 'sample_records', { handle });
    expect(first.data.records.map((x: { index: number }) => x.index)).toEqual([0, 1, 2, 3, 4]);
    expect(first.data.strategy).toBe('first');
    const last = await call(c.client, 'sample_records', { handle, count: 2, strategy: 'last', fields: ['name'] });
    expect(last.data.records).toEqual([{ index: 8, record: '{"name":"Ivy"}' }, { index: 9, record: '{"name":"Jack"}' }]);
  });

  test('get_value_at_path index 5 name → "Frank"', async () => {
    const r = await call(c.client, 'get_value_at_path', { handle, index: 5, path: 'name' });
    expect(r.data).toEqual({ value: '"Frank"', value_type: 'string', path: 'name' });
    const age = await call(c.client, 'get_value_at_path', { handle, index: 5, path: '/age' });
    expect(age.data).toMatchObject({ value: '45', value_type: 'number', integer: true });
  });

  test('search "jack" (text)', async () => {
    const r = await call(c.client, 'search', { handle, query: 'jack' });
    expect(r.data).toMatchObject({ total_matches: 1, mode: 'text', query: 'jack', complete: true });
    expect(r.data.matches).toEqual([{ record_index: 9, preview: '{"id":10,"name":"«Jack»","age":41}', match_path: '/name' }]);
  });

  test('search $.age = 28 (record 3) and $.age > 40 (records 5, 9)', async () => {
    const eq = await call(c.client, 'search', { handle, query: '$.age = 28' });
    expect(eq.data).toMatchObject({ total_matches: 1, mode: 'jsonpath', filter: '@.age == 28' });
    expect(eq.data.matches).toEqual([{ record_index: 3, preview: '/age = «28»', match_path: '/age' }]);
    const gt = await call(c.client, 'search', { handle, query: '$.age > 40' });
    expect(gt.data.total_matches).toBe(2);
    expect(gt.data.matches.map((m: { record_index: number }) => m.record_index)).toEqual([5, 9]);
    expect(gt.data.matches[0]).toEqual({ record_index: 5, preview: '/age = «45»', match_path: '/age' });
    const name = await call(c.client, 'search', { handle, query: "$.name = 'FRANK'" });
    expect(name.data).toMatchObject({ total_matches: 1, matches: [{ record_index: 5, match_path: '/name' }] });
    expect((await call(c.client, 'search', { handle, query: "$.name = 'FRANK'", match_case: true })).data.total_matches).toBe(0);
    const path = await call(c.client, 'search', { handle, query: '$.name' });
    expect(path.data).toMatchObject({ total_matches: 10, mode: 'jsonpath', complete: true });
    expect(path.data.matches[3]).toEqual({ record_index: 3, preview: '/name = «"Diana"»', match_path: '/name' });
  });

  test('get_record 3, then with fields ["name"]', async () => {
    const r = await call(c.client, 'get_record', { handle, index: 3 });
    expect(r.data).toEqual({ index: 3, record: '{"id":4,"name":"Diana","age":28}' });
    const p = await call(c.client, 'get_record', { handle, index: 3, record_format: 'pretty' });
    expect(p.data).toEqual({ index: 3, record: '{\n  "id": 4,\n  "name": "Diana",\n  "age": 28\n}' });
    const f = await call(c.client, 'get_record', { handle, index: 3, fields: ['name'] });
    expect(f.data).toEqual({ index: 3, record: '{"name":"Diana"}' });
  });

  test('get_outline of record 0', async () => {
    const r = await call(c.client, 'get_outline', { handle });
    expect(r.data).toEqual({
      index: 0,
      pointer: '',
      outline: {
        type: 'object',
        bytes: 32,
        children: 3,
        members: [
          { key: 'id', type: 'number', bytes: 1, value: '1' },
          { key: 'name', type: 'string', bytes: 7, value: '"Alice"' },
          { key: 'age', type: 'number', bytes: 2, value: '30' },
        ],
      },
    });
  });
});
