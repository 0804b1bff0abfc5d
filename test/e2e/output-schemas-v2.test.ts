import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { CLI, NODE, REPO } from '../helpers/mcp';

/**
 * A 2.x client (@modelcontextprotocol/client) validates every non-error result's structuredContent against the
 * tool's listed outputSchema once it has listed the tools, with its JSON Schema validator (Ajv under Node, the
 * default). The client here is given that same validator, wrapped to record which tools' schemas it compiled and
 * which results it checked: every explorer and reader tool is called with real arguments over stdio against the
 * built CLI, and a result its schema rejects throws. Error results, which the 2.x client does not validate (the 1.x
 * client does: v1-output-schemas.test.ts), are checked here with the same validator.
 */
const EXAMPLES = path.join(REPO, 'examples');
const ajv = new AjvJsonSchemaValidator();
/** The tools whose schema the client compiled, and the tool of each result it checked, in order. */
const compiled: string[] = [];
const checked: string[] = [];
const recording = {
  getValidator(schema: unknown) {
    // the client compiles the schemas of its cached tools/list, listed before any call
    const name = tools.find((t) => JSON.stringify(t.outputSchema) === JSON.stringify(schema))?.name ?? '?';
    compiled.push(name);
    const validate = ajv.getValidator(schema as any);
    return (value: unknown) => {
      checked.push(name);
      return validate(value);
    };
  },
};

let client: Client;
let tools: { name: string; outputSchema?: any }[];
beforeAll(async () => {
  client = new Client({ name: 'v2-schemas', version: '1.0.0' }, { jsonSchemaValidator: recording as any });
  await client.connect(new StdioClientTransport({ command: NODE, args: [CLI, 'serve', '--root', EXAMPLES], stderr: 'pipe', env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '' } }));
  tools = (await client.listTools()).tools as typeof tools;
});
afterAll(async () => client.close());

async function ok(name: string, args: Record<string, unknown>) {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: any; content: { text: string }[] };
  expect([name, r.isError ?? false, r.content[0]!.text.slice(0, 200)]).toEqual([name, false, expect.any(String)]);
  return r.structuredContent;
}

test('every explorer and reader result passes the 2.x client\'s own validation against the listed outputSchema', async () => {
  await ok('list_files', {});
  const { handle } = await ok('open_file', { path: 'events.jsonl' });
  await ok('get_file_info', { handle });
  await ok('get_record_count', { handle });
  await ok('get_record', { handle, index: 5 });
  await ok('get_record', { handle, index: 5, fields: ['user.name'], record_format: 'compact' });
  await ok('search', { handle, query: 'timeout', max_results: 2 });
  await ok('search', { handle, query: '$.status = "error"', max_results: 0, fields: ['id'] });
  await ok('aggregate', { handle, group_by: 'service', metrics: ['avg(latency_ms)'] });
  await ok('get_value_at_path', { handle, index: 0, path: '$.user.address.city' });
  await ok('extract_keys', { handle, path: 'user' });
  await ok('sample_records', { handle, count: 3, strategy: 'even' });
  await ok('get_schema', { handle, depth: 1 });
  await ok('get_outline', { handle, index: 1 });
  await ok('close_file', { handle });
  const { file_id } = await ok('json_open', { path: 'events.jsonl' });
  const page = await ok('json_read', { file_id, language: 'jsonpath', query: '$[*].id', max_items: 3 });
  await ok('json_read', { cursor: page.next_cursor });
  await ok('json_close', { file_id });
  // the client checked one result per call, each against its own tool's schema
  expect(checked).toEqual(['list_files', 'open_file', 'get_file_info', 'get_record_count', 'get_record', 'get_record', 'search', 'search', 'aggregate',
    'get_value_at_path', 'extract_keys', 'sample_records', 'get_schema', 'get_outline', 'close_file', 'json_open', 'json_read', 'json_read', 'json_close']);
  expect([...new Set(compiled)].sort()).toEqual(tools.map((t) => t.name).sort());

  // error results, which the 2.x client passes through unvalidated, fit the same schemas
  for (const [name, args, code] of [
    ['open_file', { path: '/etc/passwd' }, 'ACCESS_DENIED'],
    ['get_record', { handle: 'file_99', index: 0 }, 'NOT_FOUND'],
    ['json_read', { file_id: 'jf_nope', language: 'pointer', query: '' }, 'NOT_FOUND'],
  ] as const) {
    const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: any };
    expect([name, r.isError, r.structuredContent?.error?.code]).toEqual([name, true, code]);
    expect(ajv.getValidator(tools.find((t) => t.name === name)!.outputSchema)(r.structuredContent).valid).toBe(true);
  }
});

test('the listed schemas refuse a result without one of its members, and an error without its message', () => {
  const validate = (name: string) => ajv.getValidator(tools.find((t) => t.name === name)!.outputSchema);
  expect(validate('get_record')({ index: 1 }).valid).toBe(false);
  expect(validate('get_record')({ index: 1, record: '{}' }).valid).toBe(true);
  expect(validate('search')({ total_matches: 0, counts: 'records', matches: [], query: 'x', mode: 'text' }).valid).toBe(false);
  expect(validate('json_read')({ error: { code: 'NOT_FOUND' } }).valid).toBe(false);
  expect(validate('json_read')({ error: { code: 'NOT_FOUND', message: 'm' } }).valid).toBe(true);
});
