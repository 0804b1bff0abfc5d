/**
 * Single documents walked through lazy nodes (src/kernel/scan/walk.ts), checked against JSON.parse of the same text:
 * a repeated member name is one node at its first position with its last value, in every enumeration (wildcard,
 * filter, descendant); a count-only scan has no next position.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import json from '../../plugins/format-json/src/index';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import type { QueryLanguage, RecordSource } from '../../src/kernel/contracts';
import { QueryScanEngine } from '../../src/kernel/scan';
import { fileService, formatsOf } from '../helpers/formats';
import { jsonpath } from '../helpers/query';

let dir: string;
let jp: QueryLanguage;
const opened: { close(): void }[] = [];
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-walk-pages-'));
  jp = await jsonpath();
});
afterAll(() => {
  for (const o of opened) o.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function open(name: string, text: string): Promise<RecordSource> {
  fs.writeFileSync(path.join(dir, name), text);
  const f = await fileService(dir, await formatsOf(json)).open(name);
  opened.push(f);
  return f.source;
}

/** Every container walked (nothing parsed whole, no array streamed). */
const walked = new QueryScanEngine({ limits: () => DEFAULT_LIMITS, lazyBytes: 0, walk: { pieceBytes: 0, streamMin: Number.POSITIVE_INFINITY } });

describe('a repeated member name in a walked document', () => {
  // 20 members (over the 16 from which member names are looked up in a map), "k3" and "k7" repeated
  const members = Array.from({ length: 20 }, (_, i) => `"k${i}":{"v":${i},"t":"${i % 2 ? 'odd' : 'even'}"}`);
  members.splice(12, 0, '"k3":{"v":103,"t":"odd"}', '"k7":{"v":107,"t":"even"}', '"k3":{"v":203,"t":"even"}');
  const text = `{"top":{${members.join(',')}},"small":{"a":1,"b":2,"a":3}}`;
  const parsed = JSON.parse(text);

  test.each([
    ['$.top.*', () => Object.entries(parsed.top).map(([k, v]) => [`/top/${k}`, v])],
    ['$.top[?@.t == "even"].v', () => Object.entries(parsed.top as Record<string, any>).filter(([, v]) => v.t === 'even').map(([k, v]) => [`/top/${k}/v`, v.v])],
    ['$.small.*', () => Object.entries(parsed.small).map(([k, v]) => [`/small/${k}`, v])],
    ['$..v', () => Object.entries(parsed.top as Record<string, any>).map(([k, v]) => [`/top/${k}/v`, v.v])],
  ])('%s: the node list JSON.parse gives', async (query, expected) => {
    const source = await open('dup.json', text);
    const r = await walked.run({ source, query: jp.compile(query), addressing: 'file' });
    expect(r.complete).toBe(true);
    expect(r.nodes.map((n) => [n.path, n.value])).toEqual(expected());
  });
});

test('a count-only scan of a walked document has no next position', async () => {
  const text = JSON.stringify({ a: Array.from({ length: 10 }, (_, i) => ({ i })), b: { c: { i: 99 } } });
  const source = await open('count.json', text);
  for (const [query, count] of [['$..i', 11], ['$', 1], ['$.a[*]', 10]] as const) {
    const r = await walked.run({ source, query: jp.compile(query), addressing: 'file', limit: 0, countAll: true });
    expect(r).toMatchObject({ complete: true, next: null, total: count, nodes: [] });
  }
});
