import * as path from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, NODE, REPO } from '../helpers/mcp';

/**
 * A 1.x client (SDK 1.32) validates every result's structuredContent against the tool's advertised outputSchema once
 * it has listed the tools, errors included (docs/architecture.md "Error results"). Every explorer and reader tool
 * is called here, answering and failing, over stdio against the built CLI: a result its schema rejects throws.
 */
const EXAMPLES = path.join(REPO, 'examples');
let client: V1Client;
let names: string[];
beforeAll(async () => {
  client = new V1Client({ name: 'v1-schemas', version: '1.0.0' });
  await client.connect(new V1Transport({ command: NODE, args: [CLI, 'serve', '--root', EXAMPLES], stderr: 'pipe', env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '' } }));
  names = (await client.listTools()).tools.map((t) => t.name);
});
afterAll(async () => client.close());

async function ok(name: string, args: Record<string, unknown>) {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: any; content: { text: string }[] };
  expect([name, r.isError ?? false, r.content[0]!.text.slice(0, 200)]).toEqual([name, false, expect.any(String)]);
  return r.structuredContent;
}
async function fails(name: string, args: Record<string, unknown>, code: string) {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: any };
  expect([name, r.isError, r.structuredContent?.error?.code]).toEqual([name, true, code]);
}

test('every explorer and reader result, and error results, pass the 1.x client\'s validation', async () => {
  const called = new Set<string>();
  const track = (name: string) => (called.add(name), name);
  await ok(track('list_files'), {});
  const { handle } = await ok(track('open_file'), { path: 'events.jsonl' });
  await ok(track('get_file_info'), { handle });
  await ok(track('get_record_count'), { handle });
  await ok(track('get_record'), { handle, index: 5 });
  await ok('get_record', { handle, index: 5, fields: ['user.name'], record_format: 'compact' });
  await ok(track('search'), { handle, query: 'timeout', max_results: 2 });
  await ok('search', { handle, query: '$.status = "error"', max_results: 0 });
  await ok(track('aggregate'), { handle, group_by: 'service', metrics: ['avg(latency_ms)'] });
  await ok(track('get_value_at_path'), { handle, index: 0, path: '$.user.address.city' });
  await ok(track('extract_keys'), { handle, path: 'user' });
  await ok(track('sample_records'), { handle, count: 3, strategy: 'even' });
  await ok(track('get_schema'), { handle });
  await ok(track('get_outline'), { handle, index: 1 });
  await ok(track('close_file'), { handle });
  const { file_id } = await ok(track('json_open'), { path: 'events.jsonl' });
  const page = await ok(track('json_read'), { file_id, language: 'jsonpath', query: '$[*].id', max_items: 3 });
  expect(page.items).toEqual([{ path: '/0/id', value: 1 }, { path: '/1/id', value: 2 }, { path: '/2/id', value: 3 }]);
  await ok('json_read', { cursor: page.next_cursor });
  expect((await ok('json_open', { path: 'people.ndjson', validation: 'full' })).validation).toMatchObject({ mode: 'full', complete: true });
  await ok('json_read', { path: 'people.ndjson', language: 'pointer', query: '/3/name' });
  await ok(track('json_close'), { file_id });
  expect([...called].sort()).toEqual([...names].sort());

  // error results of every kind of tool
  await fails('open_file', { path: '/etc/passwd' }, 'ACCESS_DENIED');
  await fails('get_record', { handle: 'file_99', index: 0 }, 'NOT_FOUND');
  await fails('search', { handle: 'file_99', query: 'x' }, 'NOT_FOUND');
  await fails('get_value_at_path', { handle: 'file_99', index: 0, path: 'a' }, 'NOT_FOUND');
  await fails('json_read', { file_id: 'jf_nope', language: 'pointer', query: '' }, 'NOT_FOUND');
  await fails('json_read', { cursor: 'jc_nope', file_id: 'jf_x' }, 'INVALID_ARGUMENT');
  await fails('json_open', { path: 'missing.json' }, 'NOT_FOUND');
});

test('the validators are in force: a result without its required members, or an error without its message, is refused', () => {
  for (const name of names) {
    const validate = client.getToolOutputValidator(name)!;
    expect(validate).toBeDefined();
    expect(validate({ error: { code: 'NOT_FOUND', message: 'm' } }).valid).toBe(true);
    expect(validate({ error: { code: 'NOT_FOUND' } }).valid).toBe(false);
  }
  expect(client.getToolOutputValidator('get_record')!({ index: 1 }).valid).toBe(false);
  expect(client.getToolOutputValidator('get_record')!({ index: 1, record: '{}' }).valid).toBe(true);
  expect(client.getToolOutputValidator('open_file')!({ handle: 'file_1', path: 'a.jsonl', file_type: 'ndjson', record_count: 2, format: 'jsonl' }).valid).toBe(false);
});
