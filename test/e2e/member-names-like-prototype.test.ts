/**
 * Member names that are also names on Object.prototype (`__proto__`, `constructor`, `toString`, `hasOwnProperty`,
 * `valueOf`) are members like any other in every answer built from the file's names: get_schema's properties and
 * required, search's projected `fields`, and open_file's duplicate-name check over records with a lone surrogate
 * (whose names are rebuilt). Through a real MCP client against the built CLI.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

let dir: string;
let server: Connected;

const PROTO = ['{"__proto__":{"x":1},"a":1}', '{"constructor":"c","toString":2,"hasOwnProperty":3,"a":2}', '{"a":3,"valueOf":{"__proto__":null}}'];

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-proto-')));
  fs.writeFileSync(path.join(dir, 'proto.jsonl'), PROTO.join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'proto.json'), '{"__proto__":{"x":1},"a":[{"__proto__":2}]}');
  fs.writeFileSync(path.join(dir, 'proto2.jsonl'), '{"__proto__":{"x":1},"a":1,"\\ud800":2}\n{"__proto__":7,"a":2}\n');
  server = await connect(['--root', dir]);
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The member names of an object in the answer's JSON text (own members, in order). */
const names = (o: object) => Object.keys(o);

test('get_schema lists __proto__ and the other Object.prototype names as properties, sampled or not', async () => {
  const handle = (await call(server.client, 'open_file', { path: 'proto.jsonl' })).data.handle;
  const one = await call(server.client, 'get_schema', { handle, sample_size: 1 });
  expect(one.isError).toBe(false);
  expect(names(one.data.schema.properties)).toEqual(['__proto__', 'a']);
  expect(one.data.schema.required).toEqual(['__proto__', 'a']);
  expect(one.data.schema.properties.__proto__).toEqual({ type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] });

  const all = await call(server.client, 'get_schema', { handle });
  expect(names(all.data.schema.properties)).toEqual(['__proto__', 'a', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']);
  expect(all.data.schema.required).toEqual(['a']);
  const valueOf = all.data.schema.properties.valueOf;
  expect(names(valueOf.properties)).toEqual(['__proto__']);
  expect(valueOf.properties.__proto__.type).toBe('null');
  expect(valueOf.required).toEqual(['__proto__']);
});

test('get_schema of a single document (the budgeted schema) lists __proto__ too', async () => {
  const handle = (await call(server.client, 'open_file', { path: 'proto.json' })).data.handle;
  const s = await call(server.client, 'get_schema', { handle });
  expect(s.isError).toBe(false);
  const schema = s.data.schema;
  expect(names(schema.properties)).toEqual(['__proto__', 'a']);
  expect(names(schema.properties.a.items.properties)).toEqual(['__proto__']);
});

test('search fields project a member named __proto__; a lone surrogate does not make it a repeated name', async () => {
  const open = await call(server.client, 'open_file', { path: 'proto2.jsonl' });
  expect((open.data.warnings ?? []).map((w: { code: string }) => w.code)).toEqual(['LONE_SURROGATE_REPLACED']);
  const found = await call(server.client, 'search', { handle: open.data.handle, query: '$.a', fields: ['__proto__', 'a'] });
  expect(found.data.matches.map((m: { record: object }) => JSON.stringify(m.record))).toEqual(['{"__proto__":{"x":1},"a":1}', '{"__proto__":7,"a":2}']);
});
