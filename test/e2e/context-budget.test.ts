import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, REPO, type Connected } from '../helpers/mcp';

/**
 * What the explorer and the reader cost an assistant's context, in bytes (docs/architecture.md "Context budget";
 * bench/context.mjs measures the same on 200,000 generated records). Bytes of a result: its text block plus its
 * structuredContent as compact JSON, UTF-8.
 */
const EXAMPLES = path.join(REPO, 'examples');
const EVENTS = fs.readFileSync(path.join(EXAMPLES, 'events.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const json = (v: unknown) => bytes(JSON.stringify(v));
const BUNDLES = { explore: 13, reader: 3 };

/** tools/list of a server with no profile: the explore and reader bundles. */
let tools: { name: string; description?: string; inputSchema: Record<string, any>; outputSchema?: Record<string, any> }[];
let c: Connected;
beforeAll(async () => {
  c = await connect(['--root', EXAMPLES]);
  tools = (await c.client.listTools()).tools as typeof tools;
});
afterAll(async () => c.close());

describe('tools/list', () => {
  test('explore and reader together: at most 12.5 KB whole, 8 KiB of name + description + inputSchema, 7.5 KB of declarations', () => {
    expect(tools).toHaveLength(BUNDLES.explore + BUNDLES.reader);
    const model = tools.reduce((n, t) => n + json({ name: t.name, description: t.description, inputSchema: t.inputSchema }), 0);
    expect(model).toBeLessThanOrEqual(8 * 1024);
    // as bench/context.mjs counts them: name, description and inputSchema's JSON, summed (the context-economy budget, bench/README.md)
    const declarations = tools.reduce((n, t) => n + bytes(t.name) + bytes(t.description ?? '') + json(t.inputSchema), 0);
    expect(declarations).toBeLessThanOrEqual(7500);
    // was 67,104 bytes whole and 24,621 for the model before the schemas and descriptions were slimmed; 12.5 KB since
    // search and aggregate take a language and the descriptions name the registered languages and formats
    expect(json(tools)).toBeLessThanOrEqual(12_500);
  });

  test('every description says what the tool is for in at most 450 bytes', () => {
    for (const t of tools) {
      expect(t.description).toBeDefined();
      expect(bytes(t.description!)).toBeGreaterThan(40);
      expect(bytes(t.description!)).toBeLessThanOrEqual(450);
    }
    // the one parameter people get wrong is named where it matters
    const desc = Object.fromEntries(tools.map((t) => [t.name, t.description!]));
    expect(desc.search).toContain('max_results: 0');
    expect(desc.get_value_at_path).toContain("['a.b']");
    expect(desc.json_read).toContain('{cursor}');
    expect(desc.sample_records).toContain('strategy');
  });

  test('no $schema and no bound or default that adds nothing (safe-integer ranges, string and list length guards, minimum 0, a flag\'s default false)', () => {
    const text = JSON.stringify(tools);
    expect(text).not.toContain('$schema');
    expect(text).not.toContain('9007199254740991');
    for (const word of ['"minLength"', '"maxLength"', '"minItems"', '"maxItems"', '"minimum":0', '"default":false']) expect(text).not.toContain(word);
    expect(tools.find((t) => t.name === 'search')!.inputSchema.properties.match_case).toEqual({ type: 'boolean' });
    // bounds that say something stay: get_outline's depth is at most 8
    expect(tools.find((t) => t.name === 'get_outline')!.inputSchema.properties.depth).toEqual({ default: 2, type: 'integer', maximum: 8 });
  });

  test('output schemas: the required members by name, or the error result, written once', () => {
    for (const t of tools) {
      expect(Object.keys(t.outputSchema!)).toEqual(['type', 'anyOf']);
      expect(t.outputSchema!.anyOf).toEqual([{ required: expect.any(Array) }, { required: ['error'], properties: { error: { required: ['code', 'message'] } } }]);
      // a few hundred bytes each at most (the biggest, aggregate, names eight members)
      expect(json(t.outputSchema)).toBeLessThanOrEqual(240);
    }
    const required = (name: string) => tools.find((t) => t.name === name)!.outputSchema!.anyOf[0].required;
    expect(required('get_record')).toEqual(['index', 'record']);
    expect(required('search')).toEqual(['total_matches', 'counts', 'matches', 'query', 'mode', 'complete']);
  });
});

/**
 * An assistant's exploration of an unknown file on examples/events.jsonl (3,000 records): open → schema → keys →
 * 5 samples → a rare term ("u-1047", in one record) → that record → one value. The budget is the bytes of these
 * answers when they were slimmed (defaults: 5,926 in all), plus 5%: a change that makes them bigger fails here. The
 * search's budget grew by 16 bytes a block for its `unparsed` (the records the text prefilter ruled out: 2,999 here);
 * schema's and keys' by 22 bytes a block for `records_total` (3,000: the sample of 50 or 100 records says it is one).
 */
const BUDGET: Record<string, number> = { open: 250, schema: 1554, keys: 299, samples: 2885, search: 502, record: 710, value: 155 };

async function workflow(conn: Connected, layout?: 'pretty' | 'compact') {
  const steps: Record<string, { text: number; total: number; data: any }> = {};
  const step = async (label: string, name: string, args: Record<string, unknown>) => {
    const r = await call(conn.client, name, args);
    expect(r.isError).toBe(false);
    steps[label] = { text: bytes(r.text), total: bytes(r.text) + json(r.data), data: r.data };
    return r.data;
  };
  const fmt = layout ? { record_format: layout } : {};
  const opened = await step('open', 'open_file', { path: 'events.jsonl' });
  const handle = opened.handle;
  await step('schema', 'get_schema', { handle });
  await step('keys', 'extract_keys', { handle });
  await step('samples', 'sample_records', { handle, count: 5, ...fmt });
  const found = await step('search', 'search', { handle, query: 'u-1047' });
  const index = found.matches[0].record_index;
  await step('record', 'get_record', { handle, index, ...fmt });
  await step('value', 'get_value_at_path', { handle, index, path: 'user.address.city' });
  await call(conn.client, 'close_file', { handle });
  return steps;
}

/** The answers, checked against the file itself. */
function checkAnswers(steps: Awaited<ReturnType<typeof workflow>>) {
  const records = EVENTS.map((l) => JSON.parse(l));
  expect(steps.open!.data).toEqual({ handle: expect.stringMatching(/^file_\d+$/), path: 'events.jsonl', file_type: 'ndjson', record_count: 3000, format: 'jsonl', size_bytes: fs.statSync(path.join(EXAMPLES, 'events.jsonl')).size });
  // the keys of the 100 records sampled evenly (index floor(i*2999/99)); key_counts only where some of them lack a key
  const sampled = Array.from({ length: 100 }, (_, i) => records[Math.floor((i * 2999) / 99)]);
  const keys = [...new Set(sampled.flatMap((r) => Object.keys(r)))].sort();
  expect(steps.keys!.data.keys).toEqual(keys);
  const partial = Object.fromEntries(keys.map((k) => [k, sampled.filter((r) => k in r).length]).filter(([, n]) => n !== 100));
  expect(Object.keys(partial).length).toBeGreaterThan(0);
  expect(steps.keys!.data.key_counts).toEqual(partial);
  expect(steps.samples!.data.records.map((r: any) => r.index)).toEqual([0, 1, 2, 3, 4]);
  expect(steps.samples!.data.records.map((r: any) => JSON.parse(r.record))).toEqual(records.slice(0, 5));
  const hits = EVENTS.flatMap((l, i) => (l.includes('u-1047') ? [i] : []));
  expect(hits).toHaveLength(1);
  expect(steps.search!.data).toMatchObject({ total_matches: 1, matches: [{ record_index: hits[0], match_path: '/user/id' }] });
  // at most 20 characters of the record's text either side of the hit
  const m = /^…?(.*)«u-1047»(.*?)…?$/.exec(steps.search!.data.matches[0].preview)!;
  expect(EVENTS[hits[0]!]).toContain(`${m[1]}u-1047${m[2]}`);
  expect([m[1]!.length, m[2]!.length]).toEqual([20, 20]);
  expect(JSON.parse(steps.record!.data.record)).toEqual(records[hits[0]!]);
  expect(steps.value!.data).toEqual({ value: JSON.stringify(records[hits[0]!].user.address.city), path: 'user.address.city', value_type: 'string' });
}

describe('the exploration workflow within its byte budget', () => {
  test('with the defaults: every step within budget, the answers those of the file', async () => {
    const steps = await workflow(c);
    checkAnswers(steps);
    const over = Object.entries(BUDGET).filter(([label, max]) => steps[label]!.total > max).map(([label, max]) => `${label}: ${steps[label]!.total} > ${max}`);
    expect(over).toEqual([]);
    expect(Object.values(steps).reduce((n, x) => n + x.total, 0)).toBeLessThanOrEqual(6225);
    // the text block is the structuredContent's JSON: half of each step
    for (const s of Object.values(steps)) expect(s.text * 2).toBe(s.total);
    // a record is its JSON text as in the file, on one line, in both tools
    expect(steps.samples!.data.records[0].record).toBe(EVENTS[0]);
    expect(steps.record!.data.record).toBe(EVENTS[steps.search!.data.matches[0].record_index]);
  });

  test('record_format "pretty": the same answers, the record re-indented and bigger; "compact" is the default', async () => {
    const pretty = await workflow(c, 'pretty');
    const compact = await workflow(c, 'compact');
    checkAnswers(pretty);
    checkAnswers(compact);
    const index = compact.search!.data.matches[0].record_index;
    expect(compact.record!.data.record).toBe(EVENTS[index]);
    expect(pretty.record!.data.record).toBe(JSON.stringify(JSON.parse(EVENTS[index]!), null, 2));
    expect(compact.record!.total).toBeLessThan(pretty.record!.total);
    // record_format "pretty" re-indents a sample too
    const handle = (await call(c.client, 'open_file', { path: 'events.jsonl' })).data.handle;
    const sample = await call(c.client, 'sample_records', { handle, count: 1, record_format: 'pretty' });
    expect(sample.data.records[0].record).toBe(JSON.stringify(JSON.parse(EVENTS[0]!), null, 2));
    await call(c.client, 'close_file', { handle });
  });
});

describe('profile settings: recordFormat and resultText', () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-context-'));
    fs.copyFileSync(path.join(EXAMPLES, 'events.jsonl'), path.join(dir, 'events.jsonl'));
    fs.writeFileSync(path.join(dir, '.mcpgwrc.json'), JSON.stringify({ root: '.', profiles: { base: { recordFormat: 'pretty' }, default: { extends: 'base', resultText: 'summary' } } }));
    s = await connect(['--config', path.join(dir, '.mcpgwrc.json')]);
  });
  afterAll(async () => {
    await s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('resultText "summary": the same structuredContent, a short text block naming what it holds', async () => {
    // record_format "compact" in both: this profile's recordFormat is pretty
    const full = await workflow(c, 'compact');
    const summary = await workflow(s, 'compact');
    checkAnswers(summary);
    for (const label of Object.keys(full)) {
      expect([label, summary[label]!.data]).toEqual([label, { ...full[label]!.data, ...(label === 'open' ? { handle: summary.open!.data.handle } : {}) }]);
    }
    const samples = summary.samples!;
    expect(samples.text).toBeLessThan(200);
    const text = (await call(s.client, 'sample_records', { handle: (await call(s.client, 'open_file', { path: 'events.jsonl' })).data.handle, count: 5 })).text;
    expect(text).toBe('records: 5, total_records: 3000');
    // never longer than the JSON it stands for
    for (const label of Object.keys(summary)) expect(summary[label]!.text).toBeLessThanOrEqual(json(summary[label]!.data));
    const total = (steps: typeof full) => Object.values(steps).reduce((n, x) => n + x.total, 0);
    expect(total(summary)).toBeLessThan(0.7 * total(full));
    // the budget: 696 bytes of text blocks and 3,573 in all when the summaries went compact, plus 5% (the name: value layout is smaller still)
    expect(Object.values(summary).reduce((n, x) => n + x.text, 0)).toBeLessThanOrEqual(730);
    expect(total(summary)).toBeLessThanOrEqual(3750);
  });

  test('recordFormat "pretty" (inherited from the parent profile) is the default of get_record and sample_records; record_format still picks', async () => {
    const handle = (await call(s.client, 'open_file', { path: 'events.jsonl' })).data.handle;
    const r = await call(s.client, 'get_record', { handle, index: 2 });
    expect(r.data.record).toBe(JSON.stringify(JSON.parse(EVENTS[2]!), null, 2));
    const sample = await call(s.client, 'sample_records', { handle, count: 1 });
    expect(sample.data.records[0].record).toBe(JSON.stringify(JSON.parse(EVENTS[0]!), null, 2));
    const compact = await call(s.client, 'get_record', { handle, index: 2, record_format: 'compact' });
    expect(compact.data.record).toBe(EVENTS[2]);
    // error results keep their whole text
    const missing = await call(s.client, 'get_record', { handle: 'file_99', index: 0 });
    expect(JSON.parse(missing.text)).toEqual(missing.data);
  });
});
