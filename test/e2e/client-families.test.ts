import * as fs from 'node:fs';
import * as os from 'node:os';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { call, CLI, connect, NODE, REPO } from '../helpers/mcp';
import { testTools } from '../../src/plugin-kit/index';

/**
 * `resultText: "auto"` (the default) through real MCP clients that send the names of known clients
 * (docs/tools.md "Client families"), and what each family's model is sent of an assistant's exploration of
 * examples/events.jsonl: open → schema → keys → 5 samples → a rare term ("u-1047", in one record) → that record →
 * one value. The answers are checked against the file itself, parsed here.
 *   structured  (claude-code)               the model gets structuredContent as JSON
 *   both        (github-copilot-developer)  the text block and structuredContent
 *   text        (opencode, unknown names)   the text block
 * Servers run in-process (the plugin kit's tool tester, every built-in loaded as `mcpgw serve` loads them; the client
 * sends its name in initialize over the SDK's in-memory transport), but for the 2026-07-28 era and the 1.x SDK client,
 * which talk to the built CLI over stdio.
 */
const EXAMPLES = path.join(REPO, 'examples');
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const json = (v: unknown) => bytes(JSON.stringify(v));

/** A file of the workflow: its lines, parsed records, and the rare term in it. */
interface Data { root: string; lines: string[]; records: any[]; term: string }
function data(root: string, term: string): Data {
  const lines = fs.readFileSync(path.join(root, 'events.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
  return { root, lines, records: lines.map((l) => JSON.parse(l)), term };
}
const EX = data(EXAMPLES, 'u-1047');
const LINES = EX.lines;
const RECORDS = EX.records;
type Family = 'structured' | 'both' | 'text';
const CLIENTS: Record<string, Family> = { 'claude-code': 'structured', 'github-copilot-developer': 'both', opencode: 'text', 'mcpgw-tests': 'text' };

/** What a family's model is sent of one result. */
function seen(family: Family, text: string, data: unknown): number {
  if (family === 'structured') return json(data);
  if (family === 'both') return bytes(text) + json(data);
  return bytes(text);
}

interface Step { text: string; data: any }
async function workflow(client: { callTool: (p: { name: string; arguments: Record<string, unknown> }) => Promise<unknown> }, recordFormat?: 'pretty', term = EX.term) {
  const steps: Record<string, Step> = {};
  const step = async (label: string, name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent: any; content: { text: string }[] };
    expect([label, r.isError ?? false]).toEqual([label, false]);
    steps[label] = { text: r.content[0]!.text, data: r.structuredContent };
    return r.structuredContent;
  };
  const { handle } = await step('open', 'open_file', { path: 'events.jsonl' });
  await step('schema', 'get_schema', { handle });
  await step('keys', 'extract_keys', { handle });
  await step('samples', 'sample_records', { handle, count: 5 });
  const found = await step('search', 'search', { handle, query: term });
  const index = found.matches[0].record_index;
  await step('record', 'get_record', { handle, index, ...(recordFormat ? { record_format: recordFormat } : {}) });
  await step('value', 'get_value_at_path', { handle, index, path: 'user.address.city' });
  await client.callTool({ name: 'close_file', arguments: { handle } });
  return steps;
}
const total = (steps: Record<string, Step>, f: (s: Step) => number) => Object.values(steps).reduce((n, s) => n + f(s), 0);

/** Indexes `count` records spread evenly over `total` (sample_records strategy even, extract_keys, get_schema). */
const even = (total: number, count: number) => Array.from({ length: Math.min(count, total) }, (_, i) => Math.floor((i * (total - 1)) / (Math.min(count, total) - 1)));

/** The facts of the answers — record ids, values and counts — against the file, parsed here. */
function checkFacts(steps: Record<string, Step>, d: Data = EX) {
  expect(steps.open!.data.record_count).toBe(d.records.length);
  const sampled = even(d.records.length, 100).map((i) => d.records[i]);
  const keys = [...new Set(sampled.flatMap((r) => Object.keys(r)))].sort();
  expect(steps.keys!.data.keys).toEqual(keys);
  const partial = Object.fromEntries(keys.map((k) => [k, sampled.filter((r) => k in r).length]).filter(([, n]) => n !== 100));
  if (Object.keys(partial).length) expect(steps.keys!.data.key_counts).toEqual(partial);
  else expect(steps.keys!.data.key_counts).toBeUndefined();
  const schemaKeys = [...new Set(even(d.records.length, 50).flatMap((i) => Object.keys(d.records[i])))].sort();
  expect(Object.keys(steps.schema!.data.schema.properties).sort()).toEqual(schemaKeys);
  expect(steps.schema!.data.records_sampled).toBe(50);
  expect(steps.samples!.data.records.map((r: any) => r.index)).toEqual([0, 1, 2, 3, 4]);
  // one line each: the record's own JSON text
  expect(steps.samples!.data.records.map((r: any) => JSON.parse(r.record))).toEqual(d.records.slice(0, 5));
  const hits = d.lines.flatMap((l, i) => (l.includes(d.term) ? [i] : []));
  expect(hits).toHaveLength(1);
  expect(steps.search!.data).toMatchObject({ total_matches: 1, matches: [{ record_index: hits[0] }] });
  expect(JSON.parse(steps.record!.data.record)).toEqual(d.records[hits[0]!]);
  expect(steps.value!.data).toMatchObject({ value: JSON.stringify(d.records[hits[0]!].user.address.city), value_type: 'string' });
}

/** A server over `root` as `mcpgw serve` builds it (every built-in), in-process, and a real MCP client named `clientName`. */
async function serve(root: string, clientName: string, config: Record<string, unknown> = {}) {
  const t = await testTools('@mcpgw/tools-explore', { root, clientName, builtins: true, config });
  return { client: t.client, close: () => t.close() };
}
type Served = Awaited<ReturnType<typeof serve>>;

const conns: Record<string, Served> = {};
beforeAll(async () => {
  for (const name of Object.keys(CLIENTS)) conns[name] = await serve(EXAMPLES, name);
});
afterAll(async () => {
  for (const c of Object.values(conns)) await c.close();
});

describe('resultText auto: each family is sent one copy', () => {
  /**
   * The workflow of bench/context.mjs on the first 25,000 of its generated records (bench/gen.mjs, seed 42: the same
   * records, one rare marker at index 20099), for each client family.
   */
  test('the same facts in every family; a client that reads both copies gets a summary text block, at most 1.1x one copy', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-families-'));
    const gen: Served[] = [];
    try {
      execFileSync(NODE, [path.join(REPO, 'bench', 'gen.mjs'), '--format', 'jsonl', '--records', '25000', '--seed', '42', '--out', path.join(root, 'events.jsonl')], { stdio: 'ignore' });
      const d = data(root, 'NEEDLE-7f3a');
      const open = async (name: string) => {
        const c = await serve(root, name);
        gen.push(c);
        return c;
      };
      // before: the full JSON text block in every family and get_record re-indented (now record_format "pretty")
      const before = await workflow((await open('mcpgw-tests')).client, 'pretty', d.term);
      checkFacts(before, d);
      for (const s of Object.values(before)) expect(s.text).toBe(JSON.stringify(s.data));
      const beforeCopy = total(before, (s) => bytes(s.text));
      for (const [name, family] of Object.entries(CLIENTS)) {
        const steps = await workflow((await open(name)).client, undefined, d.term);
        checkFacts(steps, d);
        const copy = total(steps, (s) => json(s.data));
        const visible = total(steps, (s) => seen(family, s.text, s.data));
        // the record on one line is all that one copy sheds here: every other answer is as before
        for (const label of Object.keys(before)) {
          if (label !== 'record') expect([name, label, json(steps[label]!.data)]).toEqual([name, label, json(before[label]!.data)]);
        }
        expect(steps.record!.data.record).toBe(d.lines[20099]);
        expect(json(steps.record!.data)).toBeLessThan(json(before.record!.data));
        if (family === 'both') {
          // every step's text is a summary line (or the full JSON where that is no longer), never a second copy
          for (const s of Object.values(steps)) expect(bytes(s.text)).toBeLessThanOrEqual(bytes(JSON.stringify(s.data)));
          expect(steps.samples!.text).toBe('records: 5, total_records: 25000');
          expect(visible).toBeLessThanOrEqual(1.1 * copy);
          // before, this client was sent both full copies
          expect(visible).toBeLessThanOrEqual(0.6 * 2 * beforeCopy);
        } else {
          for (const s of Object.values(steps)) expect(s.text).toBe(JSON.stringify(s.data));
          expect(visible).toBe(copy);
          expect(visible).toBeLessThan(beforeCopy);
        }
      }
    } finally {
      for (const c of gen) await c.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);

  test('on examples/events.jsonl too: the same facts, text and structured families sent one copy, a Copilot client the summary', async () => {
    for (const [name, family] of Object.entries(CLIENTS)) {
      const steps = await workflow(conns[name]!.client);
      checkFacts(steps);
      expect(steps.search!.data.matches[0].match_path).toBe('/user/id');
      if (family === 'both') expect(steps.samples!.text).toBe('records: 5, total_records: 3000');
      else for (const s of Object.values(steps)) expect(s.text).toBe(JSON.stringify(s.data));
    }
  });

  test('in the 2026-07-28 era the name comes from each request\'s _meta: a Copilot client gets the summary there too', async () => {
    const modern = await connect(['--root', EXAMPLES], { clientName: 'github-copilot-developer', era: 'modern' });
    const other = await connect(['--root', EXAMPLES], { clientName: 'opencode', era: 'modern' });
    try {
      const a = await call(modern.client, 'open_file', { path: 'events.jsonl' });
      const r = await call(modern.client, 'sample_records', { handle: a.data.handle, count: 2 });
      expect(r.text).toBe('records: 2, total_records: 3000');
      expect(r.data.records.map((x: any) => x.record)).toEqual(LINES.slice(0, 2));
      const b = await call(other.client, 'open_file', { path: 'events.jsonl' });
      const t = await call(other.client, 'sample_records', { handle: b.data.handle, count: 2 });
      expect(t.text).toBe(JSON.stringify(t.data));
    } finally {
      await modern.close();
      await other.close();
    }
  });

  test('resultText "full" and "summary" in a profile win over the client\'s family; errors keep their whole text', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-families-'));
    fs.copyFileSync(path.join(EXAMPLES, 'events.jsonl'), path.join(dir, 'events.jsonl'));
    const config = (resultText: string) => ({ profiles: { default: { resultText } } });
    const full = await serve(dir, 'github-copilot-developer', config('full'));
    const summary = await serve(dir, 'opencode', config('summary'));
    try {
      const f = await call(full.client, 'get_record_count', { handle: (await call(full.client, 'open_file', { path: 'events.jsonl' })).data.handle });
      expect(f.text).toBe(JSON.stringify(f.data));
      const h = (await call(summary.client, 'open_file', { path: 'events.jsonl' })).data.handle;
      const s = await call(summary.client, 'sample_records', { handle: h, count: 1 });
      expect(s.text).toBe('records: 1, total_records: 3000');
      const e = await call(summary.client, 'get_record', { handle: 'file_99', index: 0 });
      expect(e.isError).toBe(true);
      expect(JSON.parse(e.text)).toEqual(e.data);
    } finally {
      await full.close();
      await summary.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('tools/list of explore + reader: at most 12.5 KB whole, 7.5 KB of declarations (name + description + inputSchema)', async () => {
  const tools = (await conns.opencode!.client.listTools()).tools;
  expect(tools).toHaveLength(16);
  expect(json(tools)).toBeLessThanOrEqual(12.5 * 1024);
  const declarations = tools.reduce((n, t) => n + bytes(t.name) + bytes(t.description ?? '') + json(t.inputSchema), 0);
  expect(declarations).toBeLessThanOrEqual(7.5 * 1024);
});

test('a 1.x SDK client named as Copilot CLI gets the summary and still validates every result against its outputSchema', async () => {
  const client = new V1Client({ name: 'github-copilot-developer', version: '1.0.25' });
  await client.connect(new V1Transport({ command: NODE, args: [CLI, 'serve', '--root', EXAMPLES], stderr: 'pipe', env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '' } }));
  try {
    await client.listTools(); // the 1.x client validates structuredContent against the schemas it listed
    const steps = await workflow(client as never);
    checkFacts(steps);
    expect(steps.samples!.text).toBe('records: 5, total_records: 3000');
    const pretty = (await client.callTool({ name: 'sample_records', arguments: { handle: (await client.callTool({ name: 'open_file', arguments: { path: 'events.jsonl' } }) as any).structuredContent.handle, count: 1, record_format: 'pretty' } })) as any;
    expect(pretty.structuredContent.records[0].record).toBe(JSON.stringify(RECORDS[0], null, 2));
  } finally {
    await client.close();
  }
});
