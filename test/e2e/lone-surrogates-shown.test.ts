/**
 * An escaped lone surrogate (RFC 8259 §8.2: `\ud800` without its pair) is U+FFFD in every answer that shows it, with
 * the LONE_SURROGATE_REPLACED warning: get_outline's short values (on the lazy reader and on parsed text), search
 * previews in text and JSONPath modes and its projected records, extract_keys and get_schema names; as get_record,
 * sample_records and get_value_at_path already give it. A valid pair (😀) and a literal U+FFFD are no warning.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';

let dir: string;
let c: Connected;
/** A server whose records past 64 bytes are read through the lazy reader (as a big document is). */
let lazy: Connected;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-lone-shown-'));
  fs.copyFileSync(path.join(__dirname, '..', 'fixtures', 'edges', 'edge.jsonl'), path.join(dir, 'edge.jsonl'));
  fs.writeFileSync(path.join(dir, 'keys.jsonl'), [
    '{"k\\ud800":"v\\udc00w","o":{"\\udfffn":["a\\ud800"]},"plain":"ok"}',
    '{"k\\ud800":"zz","plain":"x\\ud83d\\ude00"}',
  ].join('\n') + '\n');
  // the same strings in one document (the lazy reader), and a file whose only U+FFFD is literal
  fs.writeFileSync(path.join(dir, 'doc.json'), '{"s":"\\ud800x","list":[{"k\\udc00":1}],"pair":"\\ud83d\\ude00"}');
  fs.writeFileSync(path.join(dir, 'literal.jsonl'), '{"s":"\ufffd","k\ufffd":"\\ud83d\\ude00"}\n');
  c = await connect(['--root', dir], { cwd: dir });
  fs.writeFileSync(path.join(dir, 'lazy.config.json'), JSON.stringify({ root: '.', limits: { maxRecordBytes: 64 } }));
  lazy = await connect(['--config', path.join(dir, 'lazy.config.json')], { cwd: dir });
}, 60_000);
afterAll(async () => {
  await Promise.all([c?.close(), lazy?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

async function open(file: string): Promise<string> {
  return (await call(c.client, 'open_file', { path: file })).data.handle;
}
const replacedWarning = (data: { warnings?: { code: string }[] }) => (data.warnings ?? []).filter((w) => w.code === 'LONE_SURROGATE_REPLACED').length;

test('get_outline gives "\\ud800x" as "\\ufffdx", with the warning, on JSON Lines and on one document', async () => {
  const h = await open('edge.jsonl');
  const whole = await call(c.client, 'get_outline', { handle: h, index: 0 });
  expect(whole.isError).toBe(false);
  const s = whole.data.outline.members.find((m: { key: string }) => m.key === 's');
  expect(s.value).toBe('"\\ufffdx"');
  expect(replacedWarning(whole.data)).toBe(1);
  const at = await call(c.client, 'get_outline', { handle: h, index: 1, path: '/s' });
  expect(at.data.outline.value).toBe('"\\ufffd"');
  expect(replacedWarning(at.data)).toBe(1);
  // record 3 holds a valid pair: no warning
  const pair = await call(c.client, 'get_outline', { handle: h, index: 3 });
  expect(pair.data.outline.members.find((m: { key: string }) => m.key === 'emoji').value).toBe('"\\ud83d\\ude00"');
  expect(replacedWarning(pair.data)).toBe(0);
  const d = await open('doc.json');
  const doc = await call(c.client, 'get_outline', { handle: d, index: 0, depth: 3 });
  const m = doc.data.outline.members;
  expect(m.find((x: { key: string }) => x.key === 's').value).toBe('"\\ufffdx"');
  expect(m.find((x: { key: string }) => x.key === 'list').members[0].members[0].key).toBe('k\ufffd');
  expect(m.find((x: { key: string }) => x.key === 'pair').value).not.toContain('ufffd');
  expect(replacedWarning(doc.data)).toBe(1);
  // the same through the lazy reader
  const l = (await call(lazy.client, 'open_file', { path: 'doc.json' })).data.handle;
  const big = await call(lazy.client, 'get_outline', { handle: l, index: 0, depth: 3 });
  expect(big.isError).toBe(false);
  expect(big.data.outline.members.find((x: { key: string }) => x.key === 's').value).toBe('"\\ufffdx"');
  expect(big.data.outline.members.find((x: { key: string }) => x.key === 'list').members[0].members[0].key).toBe('k\ufffd');
  expect(replacedWarning(big.data)).toBe(1);
  const bigKeys = await call(lazy.client, 'extract_keys', { handle: l, path: 'list' });
  expect(bigKeys.data.keys).toEqual(['k\ufffd']);
  expect(replacedWarning(bigKeys.data)).toBe(1);
});

test('a long string is shortened before a whole escape, never inside one nor between the halves of a pair', async () => {
  for (let pad = 70; pad < 82; pad++) {
    const name = `long${pad}.jsonl`;
    fs.writeFileSync(path.join(dir, name), `{"s":"${'a'.repeat(pad)}\\u00e9\\ud83d\\ude00\\ud800${'b'.repeat(20)}"}\n`);
    const r = await call(c.client, 'get_outline', { handle: await open(name), index: 0 });
    const v: string = r.data.outline.members[0].value;
    expect(v.endsWith('…"')).toBe(true);
    const body = v.slice(1, -2);
    // what is shown is the start of the string's text, cut at an escape's edge
    expect(`${'a'.repeat(pad)}\\u00e9\\ud83d\\ude00\\ufffd`.startsWith(body)).toBe(true);
    expect(body).toMatch(/^a*(\\u00e9(\\ud83d\\ude00(\\ufffd)?)?)?$/);
  }
});

test('search: text previews and JSONPath previews show U+FFFD and say so; projected records too', async () => {
  const h = await open('keys.jsonl');
  const text = await call(c.client, 'search', { handle: h, query: 'w' });
  expect(text.data.matches[0].preview).toContain('\\ufffd');
  expect(text.data.matches[0].preview).not.toMatch(/\\ud[89a-f]/);
  expect(replacedWarning(text.data)).toBe(1);
  const jp = await call(c.client, 'search', { handle: h, query: '$..*', mode: 'jsonpath' });
  expect(jp.data.matches[0].preview).toBe('/k\ufffd = «"v\ufffdw"»');
  expect(replacedWarning(jp.data)).toBe(1);
  const fields = await call(c.client, 'search', { handle: h, query: '$.plain = "ok"', fields: ['o'] });
  expect(fields.data.matches[0].record).toEqual({ o: { '\ufffdn': ['a\ufffd'] } });
  expect(replacedWarning(fields.data)).toBe(1);
  // a path naming that member with the lone surrogate itself finds it, as get_value_at_path does
  const byName = await call(c.client, 'aggregate', { handle: h, group_by: '/k\ud800', order: 'key_asc' });
  expect(byName.data.groups.map((g: { key: unknown; count: number }) => [g.key, g.count])).toEqual([['v\ufffdw', 1], ['zz', 1]]);
  const value = await call(c.client, 'get_value_at_path', { handle: h, index: 1, path: '/k\ud800' });
  expect(value.data.value).toBe('"zz"');
  const plain = await call(c.client, 'search', { handle: h, query: '$.plain = "ok"' });
  expect(replacedWarning(plain.data)).toBe(0); // nothing shown came from an escape
});

test('extract_keys and get_schema: names from lone surrogate escapes as U+FFFD, with the warning; a literal U+FFFD without', async () => {
  const h = await open('keys.jsonl');
  const keys = await call(c.client, 'extract_keys', { handle: h });
  expect(keys.data.keys).toEqual(['k\ufffd', 'o', 'plain']);
  expect(replacedWarning(keys.data)).toBe(1);
  const nested = await call(c.client, 'extract_keys', { handle: h, path: 'o' });
  expect(nested.data.keys).toEqual(['\ufffdn']);
  expect(replacedWarning(nested.data)).toBe(1);
  const schema = await call(c.client, 'get_schema', { handle: h });
  expect(Object.keys(schema.data.schema.properties)).toEqual(['k\ufffd', 'o', 'plain']);
  expect(replacedWarning(schema.data)).toBe(1);
  const d = await open('doc.json');
  const docKeys = await call(c.client, 'extract_keys', { handle: d, path: 'list' });
  expect(docKeys.data.keys).toEqual(['k\ufffd']);
  expect(replacedWarning(docKeys.data)).toBe(1);
  const lit = await open('literal.jsonl');
  for (const tool of ['extract_keys', 'get_schema', 'get_outline']) {
    const r = await call(c.client, tool, { handle: lit });
    expect(r.isError).toBe(false);
    expect(JSON.stringify(r.data)).toContain('\ufffd');
    expect([tool, replacedWarning(r.data)]).toEqual([tool, 0]);
  }
});
