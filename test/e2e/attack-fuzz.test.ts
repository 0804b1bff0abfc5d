/**
 * The attack run kept as a test: fuzzed raw JSON-RPC lines and fuzzed tool arguments against the built server over
 * stdio (fast-check, a fixed seed, bounded counts, a temp folder). Asserted after every input: the server lives,
 * every line it writes is JSON and a valid JSON-RPC 2.0 message, every tool error carries a catalogue code (never
 * INTERNAL_ERROR), and every tool result is under maxResultBytes.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { ERROR_CODES } from '../../src/kernel/errors';
import { initialize, rawServer, type RawServer } from '../helpers/raw';

const SEED = Number(process.env.MCPGW_FUZZ_SEED ?? 20261201);
/** Tool calls (and three quarters as many raw lines); MCPGW_FUZZ_RUNS and MCPGW_FUZZ_SEED explore further. */
const RUNS = Number(process.env.MCPGW_FUZZ_RUNS ?? 400);
const MAX_RESULT_BYTES = 64 * 1024;

let dir: string;
let s: RawServer;
let tools: { name: string; inputSchema: { properties?: Record<string, unknown>; required?: string[] } }[];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-fuzz-'));
  const root = path.join(dir, 'data');
  fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(root, 'events.jsonl'), Array.from({ length: 200 }, (_, i) => (i === 7 ? '{"broken":' : JSON.stringify({ id: i, status: i % 3 ? 'ok' : 'failed', n: i * 1.5, big: 12345678901234567890n.toString(), tags: ['a', 'b'], user: { name: `u${i}` } }))).join('\n') + '\n');
  fs.writeFileSync(path.join(root, 'array.json'), JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ i, s: 'x'.repeat(i) }))));
  fs.writeFileSync(path.join(root, 'doc.json'), JSON.stringify({ a: { b: [1, 2, { c: 'd' }] }, long: 'y'.repeat(100_000) }));
  fs.writeFileSync(path.join(root, 'seq.json-seq'), '\x1e{"a":1}\n\x1e{"b":2}\n');
  fs.writeFileSync(path.join(root, 'deep.json'), '['.repeat(300) + '1' + ']'.repeat(300));
  fs.writeFileSync(path.join(root, 'sub', 'bad.jsonl'), Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]));
  fs.writeFileSync(path.join(dir, 'secret.txt'), 'outside the root\n');
  fs.writeFileSync(path.join(dir, '.mcpgwrc.json'), JSON.stringify({ root: './data', limits: { requestTimeoutMs: 5000 } }));
  s = rawServer(['--config', path.join(dir, '.mcpgwrc.json')]);
  await initialize(s);
  const listed = s.waitFor((m) => m.id === 'list');
  s.write(JSON.stringify({ jsonrpc: '2.0', id: 'list', method: 'tools/list' }) + '\n');
  tools = (await listed).result.tools;
});
afterAll(async () => {
  await s?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A valid JSON-RPC 2.0 message (§4, §5) or batch response (§6). */
function expectJsonRpc(message: unknown, input: string): void {
  const where = `after input ${input.slice(0, 300)}`;
  if (Array.isArray(message)) {
    expect(message.length).toBeGreaterThan(0);
    for (const m of message) expectJsonRpc(m, input);
    return;
  }
  const m = message as Record<string, unknown>;
  expect({ where, jsonrpc: m.jsonrpc }).toEqual({ where, jsonrpc: '2.0' });
  if ('method' in m) {
    expect(typeof m.method).toBe('string');
    return;
  }
  expect({ where, idOk: m.id === null || typeof m.id === 'string' || typeof m.id === 'number' }).toEqual({ where, idOk: true });
  expect({ where, one: ('result' in m) !== ('error' in m) }).toEqual({ where, one: true });
  if ('error' in m) {
    const e = m.error as { code: unknown; message: unknown };
    expect({ where, code: Number.isInteger(e.code), message: typeof e.message }).toEqual({ where, code: true, message: 'string' });
  }
}

/** A tool result: coded when an error, and under the byte cap. */
function expectToolResult(result: any, input: string): void {
  const where = `tool call ${input.slice(0, 300)}`;
  const bytes = Buffer.byteLength(JSON.stringify(result.structuredContent ?? {}));
  expect({ where, under: bytes <= MAX_RESULT_BYTES }).toEqual({ where, under: true });
  expect({ where, text: Buffer.byteLength(result.content?.[0]?.text ?? '') <= MAX_RESULT_BYTES }).toEqual({ where, text: true });
  if (result.isError) {
    const code = result.structuredContent?.error?.code;
    expect({ where, coded: (ERROR_CODES as readonly string[]).includes(code) }).toEqual({ where, coded: true });
    expect({ where, code }).not.toEqual({ where, code: 'INTERNAL_ERROR' });
  }
}

const noNewline = (t: string) => t.replace(/[\r\n]/g, ' ');

const METHODS = ['initialize', 'ping', 'tools/list', 'tools/call', 'notifications/initialized', 'notifications/cancelled', 'resources/list', 'prompts/get', 'server/discover', 'completion/complete', 'logging/setLevel', 'x/y'];
const idArb = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), fc.double(), fc.constant({}), fc.constant([]));
const messageArb = fc.record({
  jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.string({ maxLength: 4 }), fc.integer()),
  id: idArb,
  method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 12 }), fc.integer()),
  params: fc.oneof(fc.object(), fc.anything(), fc.record({ name: fc.constantFrom('search', 'open_file', 'json_read', 'nope'), arguments: fc.object() })),
}, { requiredKeys: [] });
const lineArb = fc.oneof(
  fc.string({ maxLength: 200 }).map(noNewline),
  fc.json({ maxDepth: 4 }).map(noNewline),
  messageArb.map((m) => JSON.stringify(m)),
  fc.array(messageArb, { maxLength: 4 }).map((m) => JSON.stringify(m)),
  fc.constantFrom('', '   ', '[]', '[1]', '{}', 'null', '{"jsonrpc":"2.0"', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search"}}'),
);

test('300 fuzzed JSON-RPC lines: every reply valid JSON-RPC, the server alive', async () => {
  for (const line of fc.sample(lineArb, { numRuns: Math.round(RUNS * 0.75), seed: SEED })) {
    s.write(line + '\n');
    for (const reply of await s.sync()) expectJsonRpc(reply, line);
    expect(s.proc.exitCode).toBeNull();
  }
}, 300_000);

/** Values of any type, for a wrong-typed argument now and then. */
const anyArb = fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }), fc.object({ maxDepth: 2 }));

/** Plausible values by argument name, so that most calls get past validation and reach the tools. */
function byName(name: string, tool: string, pools: { handles: string[]; fileIds: string[] }): fc.Arbitrary<unknown> {
  const files = fc.constantFrom('events.jsonl', 'array.json', 'doc.json', 'seq.json-seq', 'deep.json', 'sub/bad.jsonl', 'sub', '.', '../secret.txt', '/etc/passwd', 'sub/../../secret.txt', 'nope.jsonl', 'x'.repeat(300), 'a/'.repeat(2000));
  const inner = fc.constantFrom('user.name', '/user/name', '$.tags[0]', 'tags[1]', "['a.b']", '$..*', '/a/b/2/c', 'a.b', '', '[', '~2', 'a'.repeat(20_000), '$[?@ > 1]');
  const queries = fc.constantFrom('failed', 'u1', 'é', 'K', '$', '$..*', '$..*..*..*', '$[*].id', '$[?@.status == "failed"]', '$[?match(@.status, "(a+)+$")]', '/0/user', '/7', '$.a.b[2].c', '$.status = failed', '$.n > 10 && $.tags', 'length($.tags) > 1', '[', '$[', '$[?@.a ||]', '^fa.*d$', 'a'.repeat(20_000), 'k'.repeat(12_000), '$' + '[0]'.repeat(3000));
  const ints = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 1, max: 200 }) }, { weight: 2, arbitrary: fc.constantFrom(0, -1, 2 ** 31, 2 ** 53, 1e9, 1.5) });
  switch (name) {
    case 'handle': return fc.constantFrom(...pools.handles, 'file_999');
    case 'file_id': return fc.constantFrom(...pools.fileIds, 'jf_0000000000000000', 'nope');
    case 'cursor': return fc.constantFrom('jc_0000000000000000', 'sc_0000000000000000', '', 'x'.repeat(300));
    case 'path': return ['open_file', 'json_open', 'json_read', 'list_files'].includes(tool) ? files : inner;
    case 'query': return queries;
    case 'language': return fc.constantFrom('jsonpath', 'pointer', 'jq');
    case 'format': return fc.constantFrom('auto', 'jsonl', 'json', 'json-seq', 'csv');
    case 'glob': return fc.constantFrom('*.jsonl', '**/*.json', '{a,b}*', '[!a]*', '{a,', '*'.repeat(5000), '{a,b}'.repeat(9), 'sub/*');
    case 'fields': return fc.array(inner, { minLength: 0, maxLength: 3 });
    case 'mode': return fc.constantFrom('text', 'jsonpath', 'regex');
    case 'strategy': return fc.constantFrom('first', 'last', 'even', 'random');
    case 'validation': return fc.constantFrom('probe', 'full', 'none');
    case 'match_case': case 'regex': return fc.boolean();
    default: return ints;
  }
}

test('400 tool calls with fuzzed arguments: results coded and bounded, the server alive', async () => {
  // Open files first, so that handles and file ids are real.
  const pools = { handles: [] as string[], fileIds: [] as string[] };
  let n = 0;
  const callTool = async (name: string, args: unknown) => {
    const id = `call-${++n}`;
    const answered = s.waitFor((m) => m && m.id === id, 60_000);
    s.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }) + '\n');
    return answered;
  };
  for (const p of ['events.jsonl', 'array.json', 'doc.json', 'seq.json-seq']) {
    const h = await callTool('open_file', { path: p });
    pools.handles.push(h.result.structuredContent.handle);
    const f = await callTool('json_open', { path: p });
    pools.fileIds.push(f.result.structuredContent.file_id);
  }
  const callArb = fc.constantFrom(...tools.filter((t) => !/close/.test(t.name))).chain((tool) => {
    let keys = Object.keys(tool.inputSchema.properties ?? {});
    const required = new Set(tool.inputSchema.required ?? []);
    if (tool.name === 'json_read') {
      // Its three argument shapes are checked by the tool: mostly one of them.
      keys = keys.filter((k) => k !== 'cursor');
      required.add('language').add('query');
    }
    // Each argument: plausible for its name (19 in 20) or of any type; a required one is nearly always given, an
    // optional one half the time; one call in 20 carries an unknown argument.
    const value = (k: string) => fc.oneof({ weight: 19, arbitrary: byName(k, tool.name, pools) }, { weight: 1, arbitrary: anyArb });
    const present = (k: string) => fc.integer({ min: 0, max: 19 }).map((d) => (required.has(k) ? d !== 0 : d < 10));
    const entries = fc.tuple(...keys.map((k) => fc.tuple(present(k), value(k)).map(([on, v]) => (on ? [[k, v]] : []))));
    return fc.record({
      name: fc.constant(tool.name),
      args: fc.tuple(entries, fc.dictionary(fc.string({ maxLength: 6 }), anyArb, { maxKeys: 1 }), fc.integer({ min: 0, max: 19 }))
        .map(([kv, extra, dice]) => ({ ...(dice === 0 ? extra : {}), ...Object.fromEntries((kv as unknown[][]).flat() as [string, unknown][]) })),
    });
  });
  const stats: Record<string, number> = {};
  for (const { name, args } of fc.sample(callArb, { numRuns: RUNS, seed: SEED })) {
    const input = JSON.stringify({ name, args });
    const reply = await callTool(name, args);
    expectJsonRpc(reply, input);
    expect({ input, result: 'result' in reply }).toEqual({ input, result: true });
    expectToolResult(reply.result, input);
    const key = reply.result.isError ? reply.result.structuredContent.error.code : 'ok';
    stats[key] = (stats[key] ?? 0) + 1;
  }
  // The fuzz reached the tools: many calls answered, not only refused at validation.
  expect(stats.ok ?? 0).toBeGreaterThan(60);
  for (const reply of await s.sync()) expectJsonRpc(reply, 'the end');
  expect(s.proc.exitCode).toBeNull();
  expect(s.lines().every((l) => { try { JSON.parse(l); return true; } catch { return false; } })).toBe(true);
}, 600_000);

test('100 fuzzed tool calls at once: every one answered, coded and bounded', async () => {
  const calls = fc.sample(fc.record({
    name: fc.constantFrom('search', 'json_read', 'get_schema', 'list_files', 'open_file'),
    path: fc.constantFrom('events.jsonl', 'array.json', 'doc.json', 'deep.json', '../secret.txt'),
    query: fc.constantFrom('failed', '$..*', '$[*].id', '$[?@.n > 10]', '$..*..*..*', '['),
  }), { numRuns: 100, seed: SEED + 1 });
  const opened = s.waitFor((m) => m && m.id === 'conc-open', 60_000);
  s.write(JSON.stringify({ jsonrpc: '2.0', id: 'conc-open', method: 'tools/call', params: { name: 'open_file', arguments: { path: 'events.jsonl' } } }) + '\n');
  const handle = (await opened).result.structuredContent.handle;
  const argsOf = (c: (typeof calls)[number]) => {
    switch (c.name) {
      case 'search': return { handle, query: c.query };
      case 'json_read': return { path: c.path, language: 'jsonpath', query: c.query };
      case 'get_schema': return { handle };
      case 'list_files': return { glob: '**/*.json*' };
      default: return { path: c.path };
    }
  };
  const replies = calls.map((c, i) => {
    const id = `conc-${i}`;
    const answered = s.waitFor((m) => m && m.id === id, 120_000);
    s.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: c.name, arguments: argsOf(c) } }) + '\n');
    return answered.then((r) => ({ r, input: JSON.stringify(c) }));
  });
  for (const { r, input } of await Promise.all(replies)) {
    expectJsonRpc(r, input);
    expectToolResult(r.result, input);
  }
  expect(s.proc.exitCode).toBeNull();
}, 300_000);

