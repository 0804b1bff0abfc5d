/**
 * A text search over one large JSON document (walked through lazy nodes) reads each byte of it a bounded number of
 * times, however often it pauses to let the event loop run: a pause keeps the walk where it is. (A walk started again
 * from its trail after each pause read every container above its place again, up to 4 MiB a level each time; on real
 * time that cost more than the slice between pauses once a document was a few MB, and each slice got one member
 * further.) The clock is a TickingClock, so the pauses come after a count of clock readings: the bytes read are the
 * same on any machine. Expected counts: a plain JS walk of the generated value.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import json from '../../format-json/src/index';
import { fileTable } from '../src/files';
import { search } from '../src/search/search';
import { DEFAULT_LIMITS } from '../../../src/kernel/config/defaults';
import { Re2RegexService } from '../../../src/engine/regex';
import { QueryScanEngine } from '../../../src/engine/scan';
import { fileService, formatsOf } from '../../../test/helpers/formats';
import { exploreContext } from '../../../test/helpers/explore-context';
import { TickingClock } from '../../../test/helpers/ticking-clock';

/** An OpenAPI-like document: `n` schemas of ~1.5 KB under components.schemas; some hold `Needle` in a value or a name. */
function spec(n: number): unknown {
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const properties: Record<string, unknown> = {};
    for (let p = 0; p < 12; p++) properties[`field_${p}`] = { type: p % 2 ? 'string' : 'integer', description: `Field ${p} of schema ${i}, padded ${'x'.repeat(40)}` };
    if (i % 11 === 0) properties[`needle_${i}`] = { type: 'boolean' };
    schemas[`Schema${i}`] = { type: 'object', description: i % 7 === 0 ? `Schema ${i}: a NEEDLE in the text` : `Schema ${i}`, properties };
  }
  return { openapi: '3.0.3', info: { title: 'generated', version: '1' }, paths: {}, components: { schemas } };
}

/** Member names and string values holding `needle` (case-insensitive), a member whose name and value both do once. */
function reference(v: unknown, needle: string): number {
  const has = (s: string) => s.toLowerCase().includes(needle);
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + (typeof x === 'string' ? (has(x) ? 1 : 0) : reference(x, needle)), 0);
  if (v === null || typeof v !== 'object') return 0;
  let n = 0;
  for (const [k, x] of Object.entries(v)) {
    if (typeof x === 'string') n += has(k) || has(x) ? 1 : 0;
    else n += (has(k) ? 1 : 0) + reference(x, needle);
  }
  return n;
}

let dir: string;
beforeAll(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-text-walk-linear-')); });
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** One search call over `file` on a TickingClock (one ms a reading: a pause every 15 readings), its bytes read counted. */
async function searchCounting(file: string, args: Record<string, unknown>) {
  const clock = new TickingClock(1);
  const limits = { ...DEFAULT_LIMITS };
  const engine = new QueryScanEngine({ limits: () => limits, clock });
  // a deadline never reached: every page here ends complete, on a count of readings
  const ctx = exploreContext(clock, { limits, deadlineMs: 1e12, extra: { scan: engine, regex: new Re2RegexService(), registry: { queryLanguages: new Map(), formats: new Map() } } });
  const opened = await fileService(dir, await formatsOf(json)).open(file);
  const handle = fileTable(ctx).add({ opened, malformedRecords: 0 });
  let read = 0;
  let pauses = 0;
  // the module object itself (the namespace import above is a copy): every positional read of the engine goes through it
  const nodeFs = require('node:fs') as typeof fs;
  const readSync = nodeFs.readSync;
  const spy = jest.spyOn(nodeFs, 'readSync').mockImplementation(((...a: Parameters<typeof fs.readSync>) => {
    const n = (readSync as (...b: unknown[]) => number)(...a);
    read += n;
    return n;
  }) as typeof fs.readSync);
  const immediate = global.setImmediate;
  const pauseSpy = jest.spyOn(global, 'setImmediate').mockImplementation(((fn: () => void) => { pauses++; return immediate(fn); }) as never);
  try {
    const page = (await search.handler({ handle, mode: 'text', match_case: false, regex: false, ...args } as any, ctx)) as any;
    return { page, read, pauses };
  } finally {
    spy.mockRestore();
    pauseSpy.mockRestore();
    opened.close();
  }
}

test.each([[700], [2800]])('a %i-schema document: one page, the exact count, every byte read at most 4 times through hundreds of pauses', async (n) => {
  const value = spec(n);
  const text = JSON.stringify(value, null, 1);
  const file = `spec-${n}.json`;
  fs.writeFileSync(path.join(dir, file), text);
  const size = Buffer.byteLength(text);
  expect(size).toBeGreaterThan(1024 * 1024); // walked through lazy nodes, not searched as one text

  const expected = reference(value, 'needle');
  expect(expected).toBe(Math.ceil(n / 7) + Math.ceil(n / 11));
  const count = await searchCounting(file, { query: 'needle', max_results: 0 });
  expect({ total: count.page.total_matches, complete: count.page.complete, cursor: count.page.next_cursor }).toEqual({ total: expected, complete: true, cursor: undefined });
  expect(count.pauses).toBeGreaterThan(n / 20);
  // At most: components and components.schemas indexed on first use (a read each) and the walk's own read, 3 reads
  // of the bytes (1 when the document fits in one 4 MiB group read). Restarted from its trail after each pause, the
  // walk read the document 48 times (700 schemas) and 19 times (2,800).
  expect(count.read).toBeLessThanOrEqual(4 * size);

  const absent = await searchCounting(file, { query: 'zzzqqq', max_results: 0 });
  expect({ total: absent.page.total_matches, complete: absent.page.complete }).toEqual({ total: 0, complete: true });
  expect(absent.read).toBeLessThanOrEqual(4 * size);

  // a page of matches, then the count run on to the end: the first matches in document order, the exact total
  const paged = await searchCounting(file, { query: 'needle', max_results: 3 });
  expect(paged.page.matches.map((m: any) => m.match_path)).toEqual(['/components/schemas/Schema0/description', '/components/schemas/Schema0/properties/needle_0', '/components/schemas/Schema7/description']);
  expect({ total: paged.page.total_matches, complete: paged.page.complete }).toEqual({ total: expected, complete: true });
  expect(paged.read).toBeLessThanOrEqual(4 * size);
}, 60_000);

test('over a document, a page stopped at the deadline says its total is a lower bound, and its cursors count on to the exact total', async () => {
  const value = spec(1400);
  const text = JSON.stringify(value);
  expect(Buffer.byteLength(text)).toBeGreaterThan(1024 * 1024); // walked through lazy nodes
  fs.writeFileSync(path.join(dir, 'deadline.json'), text);
  const expected = reference(value, 'needle');
  const clock = new TickingClock(1);
  const limits = { ...DEFAULT_LIMITS };
  const engine = new QueryScanEngine({ limits: () => limits, clock });
  const ctx = exploreContext(clock, { limits, deadlineMs: 400, extra: { scan: engine, regex: new Re2RegexService(), registry: { queryLanguages: new Map(), formats: new Map() } } });
  const opened = await fileService(dir, await formatsOf(json)).open('deadline.json');
  const handle = fileTable(ctx).add({ opened, malformedRecords: 0 });
  const totals: number[] = [];
  let page: any = null;
  try {
    for (let calls = 0; calls < 1000 && (page === null || !page.complete); calls++) {
      (ctx as { deadline: number }).deadline = clock.now() + 400; // each call its own deadline: 400 clock readings
      page = await search.handler({ handle, mode: 'text', match_case: false, regex: false, query: 'needle', max_results: 0, ...(page ? { cursor: page.next_cursor } : {}) } as any, ctx);
      totals.push(page.total_matches);
      if (!page.complete) {
        expect(page.next_cursor).toEqual(expect.any(String));
        expect(page.warnings).toEqual([{ code: 'RESOURCE_LIMIT_EXCEEDED', message: `Stopped at the request deadline (requestTimeoutMs) before the end of the file: total_matches (${page.total_matches}) is a lower bound, the matches found so far. Pass next_cursor as cursor to count on.` }]);
      } else expect(page.warnings).toBeUndefined();
    }
  } finally {
    opened.close();
  }
  expect(totals.length).toBeGreaterThan(2);
  expect(totals.slice(0, -1).every((t) => t < expected)).toBe(true);
  expect(totals.at(-1)).toBe(expected);
  // a lower bound never shrinks from one page to the next
  expect(totals).toEqual([...totals].sort((a, b) => a - b));
});
