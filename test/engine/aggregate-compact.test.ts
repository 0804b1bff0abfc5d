/**
 * The compact group table (keys in an arena, counts in typed arrays) that aggregate threads keep, and the split of keys
 * between threads: every answer is checked against counts and sums computed here, independently of the engine (a
 * JavaScript Map over the generated records, exact rationals for sums), and against the table of objects (table.ts) the
 * engine keeps on its own thread.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import { AggregateThreads, QueryScanEngine } from '../../src/engine/scan';
import { CompactTable, type OutboxData } from '../../src/engine/aggregate/compact';
import { newAtoms } from '../../src/engine/aggregate/extract';
import { specData } from '../../src/engine/aggregate/spec';
import { addUnit, compileSpec, newTable, partOfKey, takePart, T_NUMBER, T_STRING, type Atoms, type Compiled } from '../../src/engine/aggregate/table';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import type { AggregateDimension, AggregateMetric, AggregateOptions, RecordSource } from '../../src/kernel/contracts';
import { add, eq, lex, lexemeOf, rat, type Rat } from '../helpers/exact';
import { fileService, formatsOf } from '../helpers/formats';
import { sharedThreads } from '../helpers/query';

const compiled = (dims: AggregateDimension[], metrics: AggregateMetric[] = []): Compiled => compileSpec(specData(dims, metrics));
const byScope = compiled([{ kind: 'value', path: ['scope'] }]);

/** Atoms of a unit whose only slot holds `text` of type `t`. */
function atom(t: number, text: string): Atoms {
  const a = newAtoms(1);
  a.types[0] = t;
  a.texts[0] = text;
  return a;
}

/** Keys on both sides of the Latin-1 boundary (one byte a unit, or two), and long and empty ones. */
const KEYS = ['a', '', 'ÿ', 'Ā', 'café', 'caf\u00e9\u0301', '☃', '😀 grin', 'k'.repeat(300), 'x/y', 'svc-0/00', 'svc-0/01'];

describe('the compact table against the table of objects', () => {
  test('every hash part holds the groups table.ts puts there (partOfKey), with the same counts and first records', () => {
    const objects = newTable();
    const compact = new CompactTable(byScope);
    const keys = [...KEYS, ...Array.from({ length: 3000 }, (_, i) => `key-${i}`)];
    for (let r = 0; r < 12000; r++) {
      const k = keys[(r * 7919) % keys.length]!;
      addUnit(objects, byScope, r, atom(T_STRING, k));
      compact.add(r, atom(T_STRING, k));
    }
    expect(compact.n).toBe(objects.groups.size);
    for (let part = 0; part < 16; part++) {
      const want = takePart(objects, part, 16);
      const got = CompactTable.from(byScope, compact.take(part, 16)).toTable();
      expect([...got.groups.keys()].sort()).toEqual([...want.groups.keys()].sort());
      for (const [key, g] of want.groups) {
        expect(partOfKey(key, 16)).toBe(part);
        const h = got.groups.get(key)!;
        expect([key, h.count, h.parts]).toEqual([key, g.count, g.parts]);
      }
    }
  });

  test('numbers group by value and keep the lexeme of their first record, whichever table saw it first', () => {
    const byN = compiled([{ kind: 'value', path: ['n'] }]);
    const a = new CompactTable(byN), b = new CompactTable(byN);
    // records 0..99: table a sees the odd ones, b the even ones; record 0 spells 1 as "1.0", record 1 as "1"
    for (let r = 0; r < 100; r++) (r % 2 ? a : b).add(r, atom(T_NUMBER, r === 0 ? '1.0' : r % 3 === 0 ? '1e0' : r % 5 === 0 ? '2.50' : '1'));
    a.merge(b);
    const groups = a.toTable().groups;
    const one = [...groups.values()].find((g) => g.parts[0]!.x !== '2.50')!;
    expect(one.parts[0]).toEqual({ t: T_NUMBER, x: '1.0', r: 0 });
    expect(one.count).toBe([...Array(100).keys()].filter((r) => !(r % 3 !== 0 && r % 5 === 0 && r !== 0)).length);
    const two = [...groups.values()].find((g) => g.parts[0]!.x === '2.50')!;
    expect(two.count).toBe(100 - one.count);
    expect(two.parts[0]!.r).toBe(5);
  });

  test('two tables that split the keys (outboxes delivered, some never sent back) count every unit once', () => {
    const t0 = new CompactTable(byScope), t1 = new CompactTable(byScope);
    const tables = [t0, t1];
    const inFlight: { to: number; o: OutboxData }[] = [];
    // Thread 1 never gets its outboxes back: past 32 it counts its other keys itself (merged at the hand-over).
    t0.splitKeys(2, 0, (owner, o) => inFlight.push({ to: owner, o }));
    t1.splitKeys(2, 1, (owner, o) => inFlight.push({ to: owner, o }));
    const truth = new Map<string, { count: number; first: number }>();
    const keys = [...KEYS, ...Array.from({ length: 20000 }, (_, i) => `k${i}`)];
    for (let r = 0; r < 200_000; r++) {
      const k = keys[Math.floor(keys.length * ((r * 2654435761) % 4294967296 / 4294967296) ** 2)]!;
      tables[r % 2]!.add(r, atom(T_STRING, k));
      const c = truth.get(k);
      if (c) c.count++; else truth.set(k, { count: 1, first: r });
      if (r % 5000 === 4999) {
        for (const { to, o } of inFlight.splice(0)) {
          tables[to]!.receive(o);
          if (to === 1) t0.recycle(o); // t0's come back, t1's do not
        }
      }
    }
    for (const t of tables) t.sendAll();
    for (const { to, o } of inFlight.splice(0)) tables[to]!.receive(o);
    // t0's keys of thread 1's part all went there; some of t1's keys of thread 0's part stayed with t1
    expect(t0.n).toBeLessThan(truth.size * 0.6);
    expect(t1.n).toBeGreaterThan(t0.n);
    const merged = CompactTable.from(byScope, t0.take(0, 1));
    merged.merge(CompactTable.from(byScope, t1.take(0, 1)));
    const got = merged.toTable().groups;
    expect(got.size).toBe(truth.size);
    for (const [k, c] of truth) {
      const g = got.get('s' + k)!;
      expect([k, g.count, g.parts[0]!.r, g.parts[0]!.x]).toEqual([k, c.count, c.first, k]);
    }
  });
});

describe('many groups on worker threads', () => {
  let dir: string;
  let source: RecordSource;
  /** The records' scopes and amounts, as written. */
  const rows: { scope: string; ms: string }[] = [];
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-compact-'));
    let s = 0x9e3779b9;
    const rnd = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 4294967296; };
    const lines: string[] = [];
    // 16,000 scopes once each, then 20,000 records over the same scopes, the first ones most often: past the 10,000 groups kept
    for (let i = 0; i < 36_000; i++) {
      const k = i < 16_000 ? i : Math.floor(16_000 * rnd() ** 3);
      const scope = k % 97 === 0 ? `svc-${k}/é☃` : `svc-${k.toString(36)}/${k % 89}`;
      const ms = `${Math.floor(rnd() * 100000)}.${String(Math.floor(rnd() * 1000)).padStart(3, '0')}`;
      rows.push({ scope, ms });
      lines.push(JSON.stringify({ scope, level: ['info', 'warn'][i % 2], pad: 'p'.repeat(40) }).slice(0, -1) + `,"ms":${ms}}`);
    }
    fs.writeFileSync(path.join(dir, 'many.jsonl'), lines.join('\n') + '\n'); // ~3.4 MB: both threads get slices
    source = (await fileService(dir, await formatsOf(jsonl)).open('many.jsonl')).source;
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  /** The describe's engine threads: started once, a thread an aggregate left clean serves the next. */
  const threads = sharedThreads();
  afterAll(() => threads.close());

  const engine = (bounds: { tableBytes?: number; threadTableBytes?: number } = {}) => new QueryScanEngine({
    limits: () => DEFAULT_LIMITS, aggregateBounds: bounds,
    aggregates: new AggregateThreads({ pluginOf: () => undefined, threads: 2, minBytes: 0, threadPool: threads }),
  });
  const opts = (o: Partial<AggregateOptions> = {}): AggregateOptions => ({
    source, dimensions: [{ kind: 'value', path: ['scope'] }], metrics: [], order: { by: 'count', desc: true }, top: 10, ...o,
  } as AggregateOptions);
  /** Counts by scope, computed here: [scope, count] by count descending, ties by scope (code points). */
  const counted = () => {
    const m = new Map<string, number>();
    for (const r of rows) m.set(r.scope, (m.get(r.scope) ?? 0) + 1);
    const cp = (a: string, b: string) => { const x = [...a], y = [...b]; for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!; return x.length - y.length; };
    return [...m].sort((a, b) => b[1] - a[1] || cp(a[0], b[0]));
  };

  test('past the table bound: the first 10,000 groups and the total equal the counts made here', async () => {
    const want = counted();
    const r = await engine({ tableBytes: 1_000_000 }).aggregate(opts());
    expect(r.complete).toBe(true);
    expect(r.groupsTotal).toBe(want.length);
    expect(r.groups).toHaveLength(10_000);
    expect(r.groups.map((g) => [g.key[0], g.count])).toEqual(want.slice(0, 10_000));
    expect(r.warnings.map((w) => w.code)).toEqual(['GROUPS_KEPT']);
    expect(r.recordsScanned).toBe(rows.length);
    // ascending: the rarest first, ties by key
    const asc = await engine({ tableBytes: 1_000_000 }).aggregate(opts({ order: { by: 'count', desc: false } }));
    const rare = [...want].sort((a, b) => a[1] - b[1] || (want.indexOf(a) - want.indexOf(b)));
    expect(asc.groups.map((g) => [g.key[0], g.count])).toEqual(rare.slice(0, 10_000));
  }, 60_000);

  test('within the table bound: every group, as counted here', async () => {
    const want = counted();
    const r = await engine().aggregate(opts());
    expect(r.groupsTotal).toBeUndefined();
    expect(r.groups.map((g) => [g.key[0], g.count])).toEqual(want);
  }, 60_000);

  test('exact sums per group on the threads\' compact tables equal exact rational sums made here', async () => {
    const sums = new Map<string, Rat>();
    for (const r of rows) sums.set(r.scope, add(sums.get(r.scope) ?? rat(0n), lex(r.ms)));
    // A bound the threads' compact tables hold the 16,000 groups and their metric states in (at 1,000,000 bytes the
    // answer came from passes over parts of the groups, on tables of objects): one read of the file.
    const reads = jest.spyOn(source, 'batches');
    let r: Awaited<ReturnType<ReturnType<typeof engine>['aggregate']>>;
    try {
      r = await engine({ tableBytes: 4_000_000 }).aggregate(opts({ metrics: [{ kind: 'sum', path: ['ms'] }, { kind: 'max', path: ['ms'] }] }));
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
    }
    expect(r.groupsTotal).toBe(sums.size);
    for (const g of r.groups) expect([g.key[0], eq(lex(lexemeOf(g.metrics[0])), sums.get(g.key[0] as string)!)]).toEqual([g.key[0], true]);
    const top = r.groups[0]!;
    const max = rows.filter((x) => x.scope === top.key[0]).map((x) => lex(x.ms)).reduce((a, b) => (a.n * b.d >= b.n * a.d ? a : b));
    expect(eq(lex(lexemeOf(top.metrics[1])), max)).toBe(true);
  }, 60_000);

  test('the bound: a thread whose compact table passes threadTableBytes makes the answer come from passes over parts of the groups, still exact; a bound nothing fits in is RESOURCE_LIMIT_EXCEEDED naming it', async () => {
    const want = counted();
    const reads = jest.spyOn(source, 'batches');
    try {
      const r = await engine({ tableBytes: 1_000_000, threadTableBytes: 200_000 }).aggregate(opts());
      expect(r.groupsTotal).toBe(want.length);
      expect(r.groups.slice(0, 100).map((g) => [g.key[0], g.count])).toEqual(want.slice(0, 100));
      expect(r.warnings[0]!.message).toMatch(/read the file \d+ times/);
      expect(reads.mock.calls.length).toBeGreaterThan(2);
    } finally {
      reads.mockRestore();
    }
    const err = await engine({ tableBytes: 2_000, threadTableBytes: 2_000 }).aggregate(opts()).catch((e) => e);
    expect(err).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'aggregateGroupBytes' } });
  }, 120_000);
});
