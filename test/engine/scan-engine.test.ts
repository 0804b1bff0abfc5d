import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import type { Format, QueryLanguage } from '../../src/kernel/contracts';
import { fileService, formatsOf } from '../helpers/formats';
import { engine, jsonpath, pointer } from '../helpers/query';

let dir: string;
let formats: Format[];
let jp: QueryLanguage;
let ptr: QueryLanguage;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-scan-'));
  formats = await formatsOf(jsonl);
  jp = await jsonpath();
  ptr = await pointer();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function open(name: string, content: string) {
  fs.writeFileSync(path.join(dir, name), content);
  return fileService(dir, formats).open(name);
}

const LINES = [
  '{"id":1,"status":"ok","n":5}',
  '{"id":2,"status":"failed","n":50}',
  '{"id":9007199254740993,"status":"ok","n":500}',
  'not json',
  '{"id":4,"status":"f\\u0061iled","n":7}',
  '{"id":5,"status":"failed","tags":["a","b"]}',
].join('\n') + '\n';

describe('scan engine: whole-file addressing over JSON Lines', () => {
  test('$[?@.status=="failed"].id selects across records in file order, escaped spellings included, malformed skipped', async () => {
    const f = await open('a.jsonl', LINES);
    const r = await engine().run({ source: f.source, query: jp.compile('$[?@.status=="failed"].id'), addressing: 'file' });
    expect(r.nodes.map((n) => [n.record, n.path, n.value])).toEqual([[1, '/1/id', 2], [4, '/4/id', 4], [5, '/5/id', 5]]);
    expect(r.complete).toBe(true);
    expect(r.next).toBeNull();
    // the prefilter never parses "not json" (it cannot hold "failed"); a query without literals reports it
    expect(r.skipped).toBe(0);
    const every = await engine().run({ source: f.source, query: jp.compile('$[?@.n > 6]'), addressing: 'file' });
    expect(every.nodes.map((n) => (n.value as { id: unknown }).id)).toEqual([2, JSON.rawJSON('9007199254740993'), 4]);
    expect(every.skipped).toBe(1);
    expect(every.firstSkipped[0]).toMatchObject({ record_index: 3, line: 4, byte_offset: Buffer.byteLength(LINES.slice(0, LINES.indexOf('not json'))) + 1 });
    f.close();
  });

  test('exact big integers: == 9007199254740993 matches, == 9007199254740992 does not, value stays exact', async () => {
    const f = await open('b.jsonl', LINES);
    const hit = await engine().run({ source: f.source, query: jp.compile('$[?@.id == 9007199254740993]'), addressing: 'file' });
    expect(hit.nodes.map((n) => n.path)).toEqual(['/2']);
    expect(JSON.stringify(hit.nodes[0]!.value)).toBe('{"id":9007199254740993,"status":"ok","n":500}');
    const miss = await engine().run({ source: f.source, query: jp.compile('$[?@.id == 9007199254740992]'), addressing: 'file' });
    expect(miss.nodes).toEqual([]);
    f.close();
  });

  test('index, negative index, slices and $..name distribute over records', async () => {
    const f = await open('c.jsonl', LINES);
    const run = async (q: string) => (await engine().run({ source: f.source, query: jp.compile(q), addressing: 'file' })).nodes.map((n) => n.path);
    expect(await run('$[0].id')).toEqual(['/0/id']);
    expect(await run('$[-1].tags[-1]')).toEqual(['/5/tags/1']);
    expect(await run('$[1:3].n')).toEqual(['/1/n', '/2/n']);
    expect(await run('$[::2].id')).toEqual(['/0/id', '/2/id', '/4/id']);
    expect(await run('$..n')).toEqual(['/0/n', '/1/n', '/2/n', '/4/n']);
    expect(await run('$[*].tags[*]')).toEqual(['/5/tags/0', '/5/tags/1']);
    f.close();
  });

  test('JSON Pointer in file addressing: /0/id is record 0 then /id', async () => {
    const f = await open('d.jsonl', LINES);
    const r = await engine().run({ source: f.source, query: ptr.compile('/2/id'), addressing: 'file' });
    expect(r.nodes.map((n) => [n.record, n.path, JSON.stringify(n.value)])).toEqual([[2, '/2/id', '9007199254740993']]);
    f.close();
  });

  test('record addressing: each record is $, paths inside it; unit records keeps the first node', async () => {
    const f = await open('e.jsonl', LINES);
    const r = await engine().run({ source: f.source, query: jp.compile('$.tags[*]'), addressing: 'record', unit: 'records' });
    // records 0-3 lack "tags" (the prefilter rules them out unparsed); record 4 has a \u escape, so it is parsed
    expect(r.nodes).toEqual([{ record: 5, path: '/tags/0', value: 'a', position: { record: 5, node: 0 }, skippedBefore: 0, unparsedBefore: 4 }]);
    f.close();
  });

  test('limit, next and resume page through without rescanning; countAll counts every unit', async () => {
    const f = await open('g.jsonl', LINES);
    const q = jp.compile('$[*].*');
    const all = await engine().run({ source: f.source, query: q, addressing: 'file' });
    const pages: string[] = [];
    let resume;
    for (let guard = 0; guard < 20; guard++) {
      const r = await engine().run({ source: f.source, query: q, addressing: 'file', limit: 4, resume, countAll: guard === 0 });
      if (guard === 0) expect(r.total).toBe(all.nodes.length);
      pages.push(...r.nodes.map((n) => n.path));
      if (!r.next) break;
      resume = JSON.parse(JSON.stringify(r.next));
    }
    expect(pages).toEqual(all.nodes.map((n) => n.path));
    f.close();
  });
});

describe('scan engine: bounds', () => {
  const many = Array.from({ length: 3000 }, (_v, i) => `{"i":${i},"s":"${i % 2 ? 'odd' : 'even'}"}`).join('\n') + '\n';

  test('a deadline in the past stops the scan with complete false and a next that continues to the same nodes', async () => {
    const f = await open('dl.jsonl', many);
    const q = jp.compile('$[?@.s == "odd"].i');
    const full = await engine().run({ source: f.source, query: q, addressing: 'file' });
    const cut = await engine().run({ source: f.source, query: q, addressing: 'file', deadline: Date.now() - 1 });
    expect(cut.complete).toBe(false);
    expect(cut.next).not.toBeNull();
    const rest = await engine().run({ source: f.source, query: q, addressing: 'file', resume: cut.next! });
    expect([...cut.nodes, ...rest.nodes].map((n) => n.path)).toEqual(full.nodes.map((n) => n.path));
    expect(full.nodes).toHaveLength(1500);
    f.close();
  });

  test('a fired signal is CANCELLED', async () => {
    const f = await open('ab.jsonl', many);
    const c = new AbortController();
    c.abort();
    await expect(engine().run({ source: f.source, query: jp.compile('$[*]'), addressing: 'file', signal: c.signal })).rejects.toMatchObject({ code: 'CANCELLED' });
    f.close();
  });

  test('maxConcurrentScans: a scan that finds no free slot before its deadline is RESOURCE_LIMIT_EXCEEDED; freed slots go to waiters', async () => {
    const { Semaphore } = await import('../../src/engine/scan/semaphore');
    const { FakeClock } = await import('../../src/kernel/fake-clock');
    const clock = new FakeClock();
    const slots = new Semaphore(() => 1, clock);
    const release = await slots.acquire(undefined, undefined);
    const late = slots.acquire(clock.now() + 30, undefined);
    let settled = false;
    late.catch(() => undefined).finally(() => { settled = true; });
    clock.advance(29);
    await Promise.resolve();
    expect(settled).toBe(false);
    clock.advance(1);
    await expect(late).rejects.toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxConcurrentScans', limit: 1 } });
    const waiting = slots.acquire(clock.now() + 5000, undefined);
    release();
    const second = await waiting;
    expect(slots.inUse).toBe(1);
    second();
    expect(slots.inUse).toBe(0);
  });

  test('progress reports records scanned of records to scan', async () => {
    const f = await open('pr.jsonl', many);
    const seen: [number, number][] = [];
    await engine().run({ source: f.source, query: jp.compile('$[*].i'), addressing: 'file', onProgress: (d, t) => seen.push([d, t]) });
    expect(seen.at(-1)).toEqual([3000, 3000]);
    f.close();
  });

  test('whole-file queries that do not distribute: evaluated in memory on small files', async () => {
    const f = await open('mat.jsonl', LINES.split('\n').filter((l) => l.startsWith('{')).join('\n') + '\n');
    const r = await engine().run({ source: f.source, query: jp.compile('$[-1,0].id'), addressing: 'file' });
    expect(r.nodes.map((n) => [n.record, n.path])).toEqual([[4, '/4/id'], [0, '/0/id']]);
    const whole = await engine().run({ source: f.source, query: ptr.compile(''), addressing: 'file' });
    expect(whole.nodes).toHaveLength(1);
    expect(whole.nodes[0]).toMatchObject({ record: -1, path: '' });
    expect((whole.nodes[0]!.value as unknown[]).length).toBe(5);
    f.close();
  });
});
