/**
 * Single documents walked through lazy nodes (src/engine/scan/walk.ts), checked against JSON.parse of the same text:
 * a repeated member name is one node at its first position with its last value, in every enumeration (wildcard,
 * filter, descendant); a count-only scan has no next position; pages stopped by the request deadline (a FakeClock
 * that moves 1 ms each time it is read) continue where they stopped and add up to the node list, the count and the
 * groups; a value no page can evaluate is an error naming requestTimeoutMs and its value.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import json from '../../plugins/format-json/src/index';
import { FakeClock } from '../../src/kernel/fake-clock';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import type { QueryLanguage, RecordSource, ScanPosition, ScanResult } from '../../src/kernel/contracts';
import { QueryScanEngine } from '../../src/engine/scan';
import { LAZY_DOCUMENT_BYTES } from '../../src/engine/scan/engine';
import { fileService, formatsOf } from '../helpers/formats';
import { jsonpath } from '../helpers/query';
import { serviceModelsText } from '../helpers/service-models';

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

/** A FakeClock that moves 1 ms each time it is read: evaluations read it (every 1,024 steps), so they take time. */
class TickingClock extends FakeClock {
  override now(): number {
    this.advance(1);
    return super.now();
  }
}

describe('a document over 4 MiB paged at the request deadline', () => {
  const text = serviceModelsText();
  const doc = JSON.parse(text) as Record<string, any>;
  let source: RecordSource;
  beforeAll(async () => {
    source = await open('models.json', text);
  });

  /** An engine on a ticking clock whose pages last `ms` of it (requestTimeoutMs too). */
  const engineFor = (ms: number) => {
    const clock = new TickingClock();
    return { clock, engine: new QueryScanEngine({ limits: () => ({ ...DEFAULT_LIMITS, requestTimeoutMs: ms }), clock }) };
  };

  /** Every page of a scan, each with a deadline `ms` away. */
  async function pages(query: string, ms: number, opts: { limit?: number; countAll?: boolean } = {}): Promise<ScanResult[]> {
    const { clock, engine } = engineFor(ms);
    const compiled = jp.compile(query);
    const out: ScanResult[] = [];
    let resume: ScanPosition | undefined;
    for (;;) {
      const r = await engine.run({ source, query: compiled, addressing: 'file', ...opts, ...(resume ? { resume } : {}), deadline: clock.now() + ms });
      out.push(r);
      if (r.next === null) return out;
      expect(out.length).toBeLessThan(5000);
      resume = r.next;
    }
  }

  /** `$.*.shapes[?@.type=="string"].max`, from JSON.parse. */
  const stringMax = () => Object.entries(doc).flatMap(([s, svc]) => Object.entries(svc.shapes as Record<string, any>)
    .filter(([, x]) => x.type === 'string' && x.max !== undefined).map(([k, x]) => [`/${s}/shapes/${k}/max`, x.max]));
  /** `$..[?@.type=="long"]`: each node's children that pass, then each child's descendants (RFC 9535 §2.5.2.2). */
  function longs(v: unknown, at = '', out: [string, unknown][] = []): [string, unknown][] {
    if (v === null || typeof v !== 'object') return out;
    const kids: [string, any][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
    for (const [k, x] of kids) if (x !== null && typeof x === 'object' && !Array.isArray(x) && x.type === 'long') out.push([`${at}/${k}`, x]);
    for (const [k, x] of kids) longs(x, `${at}/${k}`, out);
    return out;
  }

  test('the premise: the document is walked (over 4 MiB, under maxRecordBytes)', () => {
    expect(Buffer.byteLength(text)).toBeGreaterThan(LAZY_DOCUMENT_BYTES);
    expect(Buffer.byteLength(text)).toBeLessThan(DEFAULT_LIMITS.maxRecordBytes);
  });

  test.each([
    ['$.*.shapes[?@.type=="string"].max', 60, stringMax],
    ['$..[?@.type=="long"]', 200, () => longs(doc)],
  ])('%s: pages of %i ms hold the node list once, in order', async (query, ms, expected) => {
    const all = await pages(query, ms, { limit: 1000 });
    const stopped = all.filter((r) => !r.complete);
    expect(stopped.length).toBeGreaterThan(2); // the deadline stopped pages: the premise of the test
    for (const r of stopped) expect(r.next).not.toBeNull();
    expect(all[all.length - 1]!.complete).toBe(true);
    expect(all.flatMap((r) => r.nodes.map((n) => [n.path, n.value]))).toEqual(expected());
    expect(all.reduce((n, r) => n + r.skipped, 0)).toBe(0);
  });

  test('a count stopped at the deadline adds up over its pages', async () => {
    const all = await pages('$..[?@.type=="long"]', 200, { limit: 0, countAll: true });
    expect(all.filter((r) => !r.complete).length).toBeGreaterThan(2);
    expect(all.reduce((n, r) => n + r.total!, 0)).toBe(longs(doc).length);
  });

  test('aggregate over each unit of the document, stopped at the deadline, adds up to every group', async () => {
    const { clock, engine } = engineFor(10);
    const expected = new Map<string, number>();
    for (const svc of Object.values(doc)) for (const op of Object.values(svc.operations as Record<string, any>)) expected.set(op.http.method, (expected.get(op.http.method) ?? 0) + 1);
    const base = { source, each: jp.compile('$.*.operations.*'), dimensions: [{ kind: 'value' as const, path: ['http', 'method'] }], metrics: [], order: { by: 'count' as const, desc: true } };
    let r = await engine.aggregate({ ...base, deadline: clock.now() + 10 });
    let stops = 0;
    while (!r.complete) {
      stops++;
      expect(stops).toBeLessThan(5000);
      r = await engine.aggregate({ ...base, resume: r.resume!, deadline: clock.now() + 10 });
    }
    expect(stops).toBeGreaterThan(2);
    expect(new Map(r.groups.map((g) => [g.key[0], g.count]))).toEqual(expected);
    expect(r.units).toBe([...expected.values()].reduce((a, b) => a + b, 0));
  });
});

describe('a value no page can evaluate: an error naming requestTimeoutMs and its value', () => {
  // one member whose value takes the descendant segment over 30,000 nodes (30 reads of the ticking clock)
  const text = JSON.stringify({ a: Array.from({ length: 3000 }, (_, i) => ({ x: i, y: [i, { x: -i }] })) });
  const expectTimeout = (p: Promise<unknown>) => expect(p).rejects.toMatchObject({
    code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'requestTimeoutMs', limit: 3 }, hint: expect.stringContaining('limits.requestTimeoutMs'),
  });

  test('walked: the first page stops before the value, the page that begins at it fails', async () => {
    const source = await open('slow-walked.json', text);
    const clock = new TickingClock();
    // the document walked (lazyBytes 0), its one member evaluated whole (a piece)
    const engine = new QueryScanEngine({ limits: () => ({ ...DEFAULT_LIMITS, requestTimeoutMs: 3 }), clock, lazyBytes: 0 });
    const query = jp.compile('$.a..x');
    const first = await engine.run({ source, query, addressing: 'file', deadline: clock.now() + 3 });
    expect(first).toMatchObject({ complete: false, nodes: [] });
    expect(first.next).not.toBeNull();
    await expectTimeout(engine.run({ source, query, addressing: 'file', resume: first.next!, deadline: clock.now() + 3 }));
  });

  test('parsed whole (a document under 4 MiB): the error names the limit\'s value and a deadline\'s hint', async () => {
    const source = await open('slow-whole.json', text);
    const clock = new TickingClock();
    const engine = new QueryScanEngine({ limits: () => ({ ...DEFAULT_LIMITS, requestTimeoutMs: 3 }), clock });
    await expectTimeout(engine.run({ source, query: jp.compile('$..x'), addressing: 'file', deadline: clock.now() + 3 }));
  });
});

describe('an element of a streamed array that the deadline stops first in its nested scan, after the page advanced', () => {
  // `$.*[*]..x` streams "b" (the page hands over its nodes), then "a": its first element takes the descendant segment
  // over 6,000 nodes (6 reads of the ticking clock), more than the rest of the page has left, less than a page.
  const heavy = { x: -1, deep: Array.from({ length: 3000 }, (_, k) => ({ x: k })) };
  const doc = { b: Array.from({ length: 8 }, (_, i) => ({ x: i })), a: [heavy, ...Array.from({ length: 7 }, (_, j) => ({ x: 100 + j }))] };
  const text = JSON.stringify(doc);
  /** RFC 9535 §2.5.2.2 by hand: each element's own x, then its descendants' in document order. */
  const expected: [string, number][] = [
    ...doc.b.map((e, i): [string, number] => [`/b/${i}/x`, e.x]),
    ['/a/0/x', -1], ...heavy.deep.map((e, k): [string, number] => [`/a/0/deep/${k}/x`, e.x]),
    ...doc.a.slice(1).map((e, j): [string, number] => [`/a/${j + 1}/x`, (e as { x: number }).x]),
  ];
  const PAGE_MS = 12;

  async function allPages(source: RecordSource) {
    const clock = new TickingClock();
    const engine = new QueryScanEngine({ limits: () => ({ ...DEFAULT_LIMITS, requestTimeoutMs: PAGE_MS }), clock, lazyBytes: 0, walk: { pieceBytes: 0, streamMin: 4 } });
    const query = jp.compile('$.*[*]..x');
    const out: ScanResult[] = [];
    let resume: ScanPosition | undefined;
    for (;;) {
      const r = await engine.run({ source, query, addressing: 'file', ...(resume ? { resume } : {}), deadline: clock.now() + PAGE_MS });
      out.push(r);
      if (r.next === null) return out;
      expect(out.length).toBeLessThan(100);
      resume = r.next;
    }
  }

  test('the page ends before it (a cursor), and the next page evaluates it: nothing skipped, the node list whole', async () => {
    const source = await open('heavy-first.json', text);
    const pages = await allPages(source);
    // the premise: the first page handed over "b" and stopped inside "a", at its first element
    expect(pages[0]!.complete).toBe(false);
    expect(pages[0]!.nodes.map((n) => n.path)).toEqual(doc.b.map((_, i) => `/b/${i}/x`));
    expect(pages.flatMap((r) => r.firstSkipped)).toEqual([]);
    expect(pages.reduce((n, r) => n + r.skipped, 0)).toBe(0);
    expect(pages.flatMap((r) => r.nodes.map((n) => [n.path, n.value]))).toEqual(expected);
  });
});
