/**
 * Node lists cannot grow without bound: a JSONPath evaluation counts the nodes it produces and walks against
 * maxNodes, checks the deadline as it goes, and never spreads a big node list into one call (a member with
 * hundreds of thousands of children used to overflow the stack and be reported as too deep).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import formatJson from '../../plugins/format-json/src/index';
import type { QueryLanguage } from '../../src/kernel/contracts';
import { fileService, formatsOf } from '../helpers/formats';
import { engine, jsonpath } from '../helpers/query';

let jp: QueryLanguage;
beforeAll(async () => {
  jp = await jsonpath();
});

/** Arrays nested `depth` deep around the number 1: `[[[…[1]…]]]`. */
const nested = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

const thrown = (fn: () => unknown): any => {
  try { fn(); } catch (e) { return e; }
  throw new Error('expected an error');
};

describe('the node budget (maxNodes)', () => {
  test('$..*..* on arrays nested 300 deep: every node, 300·299/2 of them, paths exact', () => {
    const nodes = jp.compile('$..*..*').evaluate(nested(300));
    expect(nodes).toHaveLength((300 * 299) / 2);
    // The first descendant of /0 is /0/0; the last node is the number at depth 300, reached from depth 299.
    expect(nodes[0]!.path).toBe('/0/0');
    expect(nodes[nodes.length - 1]!.path).toBe('/0'.repeat(300));
    expect(nodes[nodes.length - 1]!.value).toBe(1);
  });

  test('$..*..*..* on the same value (4.5 M nodes) stops at the budget with RESOURCE_LIMIT_EXCEEDED naming maxNodes', () => {
    const err = thrown(() => jp.compile('$..*..*..*').evaluate(nested(300)));
    expect(err).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxNodes', limit: 200_000 } });
    expect(err.message).toMatch(/more than maxNodes \(200000\)/);
    const small = thrown(() => jp.compile('$..*..*').evaluate(nested(300), { maxNodes: 1000 }));
    expect(small).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxNodes', limit: 1000 } });
  });

  test('queries inside filters count against the same budget', () => {
    const err = thrown(() => jp.compile('$[?count(@..*..*..*) > 1]').evaluate([nested(300)], { maxNodes: 50_000 }));
    expect(err).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxNodes', limit: 50_000 } });
    // and with room, the filter still answers: @..*..* on [[1]] is the one node 1 (from [1]).
    expect(jp.compile('$[?count(@..*..*) == 1]').evaluate([nested(2), nested(3)]).map((n) => n.path)).toEqual(['/0']);
  });

  test('work linear in the value is not counted: $..id, $.items[*].id, $.items[*][\'id\',\'name\'], $..* and singular filters over 5,000 items', () => {
    const value = { items: Array.from({ length: 5_000 }, (_, i) => ({ id: i, name: `n${i}` })) };
    // Each walks or produces up to 15,001 nodes of the value at most once (1,500 times the budget): a budget of 10 is enough.
    const bounds = { maxNodes: 10 };
    const ids = jp.compile('$..id').evaluate(value, bounds);
    expect(ids).toHaveLength(5_000);
    expect(ids[4_999]).toEqual({ path: '/items/4999/id', value: 4_999 });
    expect(jp.compile('$.items[*].id').evaluate(value, bounds)).toEqual(ids);
    expect(jp.compile("$.items[*]['id','name']").evaluate(value, bounds)).toHaveLength(10_000);
    expect(jp.compile('$..*').evaluate(value, bounds)).toHaveLength(15_001);
    expect(jp.compile('$.items[?@.id >= 4998 && @.name].id').evaluate(value, bounds).map((n) => n.value)).toEqual([4_998, 4_999]);
  });

  test('nodes that can repeat are counted: $[*,*] doubles the node list per segment', () => {
    const q = '$' + '[*,*]'.repeat(24); // 2^24 = 16.7 M nodes on [[…[1]…]] nested 24 deep
    const err = thrown(() => jp.compile(q).evaluate(nested(24)));
    expect(err).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxNodes' } });
    expect(jp.compile('$[*,*][*,*]').evaluate(nested(2)).map((n) => n.path)).toEqual(['/0/0', '/0/0', '/0/0', '/0/0']);
  });

  test('a past deadline stops a long evaluation with RESOURCE_LIMIT_EXCEEDED naming requestTimeoutMs', () => {
    const err = thrown(() => jp.compile('$..*..*').evaluate(nested(300), { deadline: Date.now() - 1 }));
    expect(err).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'requestTimeoutMs' } });
    // a short evaluation finishes before the first check (every 1,024 nodes)
    expect(jp.compile('$..*').evaluate(nested(3), { deadline: Date.now() - 1 })).toHaveLength(3);
  });

  test('the deadline error names the request\'s length when the caller gives it (EvaluateOptions.requestTimeoutMs)', () => {
    const err = thrown(() => jp.compile('$..*..*').evaluate(nested(300), { deadline: Date.now() - 1, requestTimeoutMs: 2500 }));
    expect(err).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'requestTimeoutMs', limit: 2500 } });
  });

  test('the scan engine gives every evaluation the request\'s length with its deadline: records, a file loaded whole', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-timeout-limit-'));
    try {
      fs.writeFileSync(path.join(dir, 'r.jsonl'), '{"a":1}\n{"a":2}\n');
      const f = await fileService(dir, await formatsOf(jsonl)).open('r.jsonl');
      const seen: unknown[] = [];
      const spy = { text: '$', evaluate: (v: unknown, o?: unknown) => (seen.push(o), [{ path: '', value: v }]) };
      const e = engine({ requestTimeoutMs: 4321 });
      const deadline = Date.now() + 60_000;
      await e.run({ source: f.source, query: spy, addressing: 'record', deadline });
      await e.run({ source: f.source, query: spy, addressing: 'file', deadline }); // no split: the file evaluated whole
      expect(seen).toHaveLength(3);
      for (const o of seen) expect(o).toMatchObject({ deadline, requestTimeoutMs: 4321 });
      f.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('big node lists without a stack overflow', () => {
  const wide: Record<string, number> = {};
  for (let i = 0; i < 200_000; i++) wide[`k${i}`] = i;

  test.each(['$.*', '$..*', '$[*]'])('%s on an object of 200,000 members: every member, in order', (q) => {
    const nodes = jp.compile(q).evaluate(wide);
    expect(nodes).toHaveLength(200_000);
    expect(nodes[0]).toEqual({ path: '/k0', value: 0 });
    expect(nodes[199_999]).toEqual({ path: '/k199999', value: 199_999 });
  });

  test('$..* on a flat file of 200,000 records (a top-level array, loaded whole): the nodes, not "deeper than maxDepth"', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-budget-'));
    try {
      fs.writeFileSync(path.join(dir, 'flat.json'), '[' + Array.from({ length: 200_000 }, (_, i) => `{"i":${i}}`).join(',') + ']');
      fs.writeFileSync(path.join(dir, 'flat.jsonl'), Array.from({ length: 200_000 }, (_, i) => `{"i":${i}}\n`).join(''));
      const files = fileService(dir, [...(await formatsOf(formatJson)), ...(await formatsOf(jsonl))]);
      for (const name of ['flat.json', 'flat.jsonl']) {
        const f = await files.open(name);
        try {
          const r = await engine().run({ source: f.source, query: jp.compile('$..*'), addressing: 'file', limit: 3, countAll: true });
          // Node-list order (RFC 9535 §2.5.2.2, json-p3's visit): the root's children (the records) first.
          expect(r.nodes.map((n) => [n.path, JSON.stringify(n.value)])).toEqual([['/0', '{"i":0}'], ['/1', '{"i":1}'], ['/2', '{"i":2}']]);
          expect(r.total).toBe(400_000);
        } finally {
          f.close();
        }
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the scan engine on this thread', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-budget-scan-'));
    const deep = JSON.stringify(nested(300));
    fs.writeFileSync(path.join(dir, 'deep.jsonl'), `{"a":1}\n${deep}\n{"a":2}\n`);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a record over the node budget is reported with its reason and the scan goes on', async () => {
    const files = fileService(dir, await formatsOf(jsonl));
    const f = await files.open('deep.jsonl');
    try {
      const r = await engine().run({ source: f.source, query: jp.compile('$[*]..*..*..*'), addressing: 'file' });
      expect(r.complete).toBe(true);
      expect(r.nodes).toEqual([]);
      expect(r.skipped).toBe(1);
      expect(r.firstSkipped[0]).toMatchObject({ record_index: 1, code: 'RESOURCE_LIMIT_EXCEEDED' });
      expect(r.firstSkipped[0]!.message).toMatch(/maxNodes/);
      const ok = await engine({ maxNodes: 100 }).run({ source: f.source, query: jp.compile('$[*].a'), addressing: 'file' });
      expect(ok.nodes.map((n) => [n.path, n.value])).toEqual([['/0/a', 1], ['/2/a', 2]]);
    } finally {
      f.close();
    }
  });

  test('an evaluation past the deadline on the page\'s first record: the record is reported and the page continues after it', async () => {
    const files = fileService(dir, await formatsOf(jsonl));
    const f = await files.open('deep.jsonl');
    try {
      const r = await engine().run({ source: f.source, query: jp.compile('$[*]..*..*..*'), addressing: 'file', resume: { record: 1, node: 0 }, deadline: Date.now() - 1 });
      expect(r.complete).toBe(false);
      expect(r.firstSkipped[0]).toMatchObject({ record_index: 1, code: 'RESOURCE_LIMIT_EXCEEDED' });
      expect(r.firstSkipped[0]!.message).toMatch(/deadline/);
      expect(r.next).toEqual({ record: 2, node: 0 });
    } finally {
      f.close();
    }
  });
});
