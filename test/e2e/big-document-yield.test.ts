/**
 * A scan of one big JSON document (walked through lazy nodes) shares the server: a small call made while it runs is
 * answered before it ends, a cancellation stops it (the server answers the next call at once and the scan gives no
 * result), and at the request deadline it answers `complete: false` with a cursor whose pages add up to the node
 * list. The document (a browser-compatibility-like tree, ~6.6 MB of 160 features of ~42 KB) is generated under the
 * temporary folder. The server that shares itself is the built CLI's process; the deadline's runs in-process on a
 * TickingClock (each reading of the time 1 ms after the last), so its pages stop at the deadline at any machine speed.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../helpers/mcp';
import { serveInProcess } from '../helpers/in-process';
import { TickingClock } from '../helpers/ticking-clock';

const BROWSERS = ['chrome', 'chrome_android', 'edge', 'firefox', 'firefox_android', 'safari', 'safari_ios', 'opera'];
/** areas → features → sub-features, each with a `__compat.support` statement per browser. */
function compat(): Record<string, unknown> {
  let n = 0;
  const support = () => Object.fromEntries(BROWSERS.map((b) => {
    n++;
    return [b, { version_added: n % 97 === 0 ? 'preview' : String(n % 120), ...(n % 5 === 0 ? { notes: 'Behind a flag.' } : {}) }];
  }));
  const feature = (depth: number): Record<string, unknown> => ({
    __compat: { description: 'A feature', spec_url: 'https://example.org/spec', support: support(), status: { experimental: false, standard_track: true, deprecated: false } },
    ...(depth > 0 ? Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`sub${i}`, feature(depth - 1)])) : {}),
  });
  // features of ~42 KB (85 statements each): values under 1 MiB, each tested whole by the filter of their parent
  return Object.fromEntries(['api', 'css', 'html', 'javascript'].map((a) => [a, Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`${a}_${i}`, feature(3)]))]));
}

/** Normalized paths (RFC 6901 pointers) of `$..[?@.version_added == "preview"]`, in document order (RFC 9535 §2.5.2.2). */
function previews(v: unknown, at = '', out: string[] = []): string[] {
  if (v === null || typeof v !== 'object') return out;
  const kids: [string, any][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
  const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
  for (const [k, x] of kids) if (x !== null && typeof x === 'object' && !Array.isArray(x) && x.version_added === 'preview') out.push(`${at}/${esc(k)}`);
  for (const [k, x] of kids) previews(x, `${at}/${esc(k)}`, out);
  return out;
}

const QUERY = '$..[?@.version_added == "preview"]';
let dir: string;
let expected: string[];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-bigdoc-yield-'));
  fs.mkdirSync(path.join(dir, 'root'));
  const doc = compat();
  expected = previews(doc);
  fs.writeFileSync(path.join(dir, 'root', 'compat.json'), JSON.stringify(doc));
  fs.writeFileSync(path.join(dir, 'root', 'small.jsonl'), Array.from({ length: 10 }, (_, i) => JSON.stringify({ i })).join('\n') + '\n');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function server(requestTimeoutMs: number): Promise<{ c: Connected; big: string; small: string }> {
  const cwd = path.join(dir, String(requestTimeoutMs));
  fs.mkdirSync(cwd, { recursive: true });
  fs.writeFileSync(path.join(cwd, '.mcpgwrc.yaml'), `root: ../root\nlimits:\n  requestTimeoutMs: ${requestTimeoutMs}\n`);
  const c = await connect([], { cwd });
  const big = (await call(c.client, 'open_file', { path: 'compat.json' })).data.handle as string;
  const small = (await call(c.client, 'open_file', { path: 'small.jsonl' })).data.handle as string;
  return { c, big, small };
}

test('the premise: the document is over 4 MiB (walked in parts) and has previews', () => {
  expect(fs.statSync(path.join(dir, 'root', 'compat.json')).size).toBeGreaterThan(4 * 1024 * 1024);
  expect(expected.length).toBeGreaterThan(400);
});

describe('one server with the default deadline', () => {
  let s: Awaited<ReturnType<typeof server>>;
  beforeAll(async () => { s = await server(120_000); });
  afterAll(async () => { await s.c.close(); });

  test('a small call made during a scan of the document is answered before the scan ends', async () => {
    const order: string[] = [];
    const scan = call(s.c.client, 'search', { handle: s.big, query: QUERY, max_results: 0 }).then((r) => { order.push('scan'); return r; });
    // three small calls one after another: the later ones are sent while the scan is walking the document
    const small = (async () => {
      const got: unknown[] = [];
      for (const index of [3, 5, 7]) got.push(JSON.parse((await call(s.c.client, 'get_record', { handle: s.small, index })).data.record));
      order.push('small');
      return got;
    })();
    const [r, g] = await Promise.all([scan, small]);
    expect(g).toEqual([{ i: 3 }, { i: 5 }, { i: 7 }]);
    expect(r.data).toMatchObject({ total_matches: expected.length, complete: true });
    expect(order).toEqual(['small', 'scan']);
  });

  test.each([
    ['search', { query: QUERY, max_results: 0 }],
    ['aggregate', { each: '$..[?@.version_added]' }],
  ])('a cancelled %s stops: the next call is answered while the scan would still run, and the scan gives no result', async (tool, args) => {
    const ac = new AbortController();
    let settled = 'pending';
    const scan = s.c.client.callTool({ name: tool, arguments: { handle: s.big, ...args } }, { signal: ac.signal }).then(() => (settled = 'result'), () => (settled = 'rejected'));
    // the scan runs (the server read the request before it answered this one)
    await call(s.c.client, 'get_record', { handle: s.small, index: 0 });
    ac.abort();
    await scan;
    expect(settled).toBe('rejected');
    // the server is free: a small call, then the whole count still comes back exact
    const order: string[] = [];
    const count = call(s.c.client, 'get_record_count', { handle: s.small }).then((r) => { order.push('count'); return r; });
    const again = call(s.c.client, 'search', { handle: s.big, query: QUERY, max_results: 0 }).then((r) => { order.push('scan'); return r; });
    const [n, r] = await Promise.all([count, again]);
    expect(n.data).toMatchObject({ record_count: 10 });
    expect(r.data).toMatchObject({ total_matches: expected.length, complete: true });
    expect(order).toEqual(['count', 'scan']);
  });
});

test('at the request deadline a scan answers complete: false with a cursor, and the pages add up to the node list', async () => {
  const t = await serveInProcess({ root: path.join(dir, 'root'), clock: new TickingClock(1), config: { limits: { requestTimeoutMs: 300 } } });
  const s = { c: t, big: (await call(t.client, 'open_file', { path: 'compat.json' })).data.handle as string };
  try {
    const paths: string[] = [];
    let pages = 0;
    let incomplete = 0;
    let cursor: string | undefined;
    do {
      const r = await call(s.c.client, 'search', { handle: s.big, query: QUERY, max_results: 1000, ...(cursor ? { cursor } : {}) });
      if (r.isError) throw new Error(r.text);
      pages++;
      if (!r.data.complete) incomplete++;
      paths.push(...(r.data.matches as { match_path: string }[]).map((m) => m.match_path));
      cursor = r.data.next_cursor;
      expect(pages).toBeLessThan(2000);
    } while (cursor);
    expect(incomplete).toBeGreaterThan(0);
    // Each page (room for 1,000 matches, more than the document has) walks until the request's clock passes its
    // deadline, 300 readings of the TickingClock: 4 pages in all, each continued where the deadline stopped the last.
    // A walk timing its positions on another clock (Date.now(), past the fake deadline from the start) stops at the
    // first position after each page's start: some 320 pages, every one short.
    expect(pages).toBeLessThan(20);
    expect(paths).toEqual(expected);
  } finally {
    await s.c.close();
  }
});
