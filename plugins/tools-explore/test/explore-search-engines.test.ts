import { FakeClock } from '../../../src/kernel/fake-clock';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../format-jsonl/src/index';
import { fileTable } from '../src/files';
import { search } from '../src/search/search';
import { DEFAULT_LIMITS } from '../../../src/kernel/config/defaults';
import type { ScanEngine } from '../../../src/kernel/contracts';
import { McpgwError } from '../../../src/kernel/errors';
import { Re2RegexService } from '../../../src/engine/regex';
import { QueryScanEngine } from '../../../src/engine/scan';
import { fileService, formatsOf } from '../../../test/helpers/formats';
import { exploreContext } from '../../../test/helpers/explore-context';

/**
 * The search tool's engines share the kernel's scan limit: a text search takes one of the same server-wide scan slots
 * as JSONPath and predicate searches (ctx.scan.slot), waits for one like them, and gives it back.
 */
const N = 300;
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-search-slots-'));
  fs.writeFileSync(path.join(dir, 'a.jsonl'), Array.from({ length: N }, (_, i) => JSON.stringify({ id: i, s: i % 3 === 0 ? 'needle' : 'hay' })).join('\n') + '\n');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A context whose deadline is `left` ms away on a FakeClock (the engine's clock too). */
async function setup(left: number) {
  const clock = new FakeClock();
  const limits = { ...DEFAULT_LIMITS, maxConcurrentScans: 1 };
  const engine = new QueryScanEngine({ limits: () => limits, clock });
  const slots = { taken: 0 };
  const scan: ScanEngine = Object.assign(Object.create(engine) as ScanEngine, {
    slot: (d: number | undefined, s: AbortSignal | undefined) => { slots.taken++; return engine.slot(d, s); },
  });
  const ctx = exploreContext(clock, { limits, deadlineMs: left, extra: { scan, regex: new Re2RegexService(), registry: { queryLanguages: new Map(), formats: new Map() } } });
  const opened = await fileService(dir, await formatsOf(jsonl)).open('a.jsonl');
  fileTable(ctx).add({ opened, malformedRecords: 0 });
  return { ctx, engine, slots, opened, clock };
}

test('a text search holds a scan slot while it scans and gives it back', async () => {
  const { ctx, engine, slots, opened, clock } = await setup(60_000);
  const r = (await search.handler({ handle: 'file_1', query: 'needle', mode: 'text', match_case: false, max_results: 5, regex: false } as any, ctx)) as any;
  expect({ total: r.total_matches, mode: r.mode, first: r.matches.map((m: any) => m.record_index) }).toEqual({ total: N / 3, mode: 'text', first: [0, 3, 6, 9, 12] });
  expect(slots.taken).toBe(1);
  // given back: the only slot is free at once, even with a deadline already past
  const release = await engine.slot(clock.now() - 1, undefined);
  release();
  opened.close();
});

test('with every scan slot busy until the deadline, a text search is RESOURCE_LIMIT_EXCEEDED (maxConcurrentScans), like any scan', async () => {
  const { ctx, engine, opened } = await setup(-1);
  const held = await engine.slot(undefined, undefined);
  try {
    for (const args of [{ query: 'needle', mode: 'text', regex: false }, { query: 'ne+dle', mode: 'text', regex: true }]) {
      const err = await search.handler({ handle: 'file_1', match_case: false, max_results: 5, ...args } as any, ctx).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(McpgwError);
      expect({ code: (err as McpgwError).code, limit: (err as McpgwError).limit?.name }).toEqual({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: 'maxConcurrentScans' });
    }
  } finally {
    held();
    opened.close();
  }
});

describe('a text search at the deadline, on the fake clock', () => {
  const BIG = 60_000; // ~9 MB: three 4 MiB batches
  let big: string;
  beforeAll(() => {
    big = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-text-deadline-'));
    const pad = 'x'.repeat(120);
    fs.writeFileSync(path.join(big, 'big.jsonl'), Array.from({ length: BIG }, (_, i) => JSON.stringify({ id: i, s: i % 7 === 0 ? 'needle' : 'hay', pad })).join('\n') + '\n');
  });
  afterAll(() => fs.rmSync(big, { recursive: true, force: true }));

  test('time passes the deadline after the first batch: the page stops there, says so, and its cursor counts on to the exact total', async () => {
    const { ctx, clock } = await setup(1_000);
    const opened = await fileService(big, await formatsOf(jsonl)).open('big.jsonl');
    const handle = fileTable(ctx).add({ opened, malformedRecords: 0 });
    let batches = 0;
    // Each batch read costs 600 ms of the call's 1,000: the deadline passes during the second batch.
    (ctx as { progress: unknown }).progress = () => { batches++; clock.advance(600); };
    const first = (await search.handler({ handle, query: 'needle', mode: 'text', match_case: false, max_results: 0, regex: false } as any, ctx)) as any;
    expect(first.complete).toBe(false);
    expect(first.next_cursor).toEqual(expect.any(String));
    expect(first.total_matches).toBeGreaterThan(0);
    expect(first.total_matches).toBeLessThan(Math.ceil(BIG / 7));
    // the answer says the total is a lower bound, not only complete: false
    expect(first.warnings).toEqual([{ code: 'RESOURCE_LIMIT_EXCEEDED', message: `Stopped at the request deadline (requestTimeoutMs) before the end of the file: total_matches (${first.total_matches}) is a lower bound, the matches found so far. Pass next_cursor as cursor to count on.` }]);
    // The next call has its own deadline and no more time passes: it counts to the end.
    (ctx as { deadline: number }).deadline = clock.now() + 60_000;
    (ctx as { progress: unknown }).progress = () => undefined;
    const rest = (await search.handler({ handle, query: 'needle', mode: 'text', match_case: false, max_results: 0, regex: false, cursor: first.next_cursor } as any, ctx)) as any;
    expect(rest.complete).toBe(true);
    expect(rest.total_matches).toBe(Math.ceil(BIG / 7));
    expect(rest.warnings).toBeUndefined();
    expect(batches).toBeGreaterThanOrEqual(2);
    opened.close();
  });
});
