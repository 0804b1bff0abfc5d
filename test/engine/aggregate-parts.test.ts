/**
 * More groups than the aggregate's table bound, on worker threads: answered in one read of the file (each thread keeps
 * the table of its records and hands it over in hash parts, merged one part at a time on this thread), not in passes
 * over parts of the groups; a thread whose table passes its own bound falls back to the passes. Expected values from
 * Python's collections.Counter over the file Python wrote.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import { AggregateThreads, QueryScanEngine } from '../../src/engine/scan';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import type { AggregateOptions, RecordSource } from '../../src/kernel/contracts';
import { fileService, formatsOf } from '../helpers/formats';

let dir: string;
let source: RecordSource;
let python: { top: [string, number][]; total: number; lastKept: [string, number] };
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-parts-'));
  const file = path.join(dir, 'keys.jsonl');
  // 20,000 keys once or twice, ten hot ones 40-49 times, shuffled; padded to ~5 MB so that both threads get slices.
  python = JSON.parse(execFileSync('python3', ['-c', String.raw`
import json, random, sys
from collections import Counter
random.seed(31)
keys = ['k%d' % i for i in range(20000) for _ in range(1 + i % 2)] + ['hot%d' % j for j in range(10) for _ in range(40 + j)]
random.shuffle(keys)
open(sys.argv[1], 'w').write(''.join(json.dumps({'scope': k, 'pad': 'x' * 120}) + chr(10) for k in keys))
c = sorted(Counter(keys).items(), key=lambda kv: (-kv[1], kv[0]))
print(json.dumps({'top': c[:10], 'total': len(c), 'lastKept': c[9999]}))
`, file], { encoding: 'utf8' }));
  source = (await fileService(dir, await formatsOf(jsonl)).open('keys.jsonl')).source;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const spec = (): AggregateOptions => ({ source, dimensions: [{ kind: 'value', path: ['scope'] }], metrics: [], order: { by: 'count', desc: true }, top: 10 } as AggregateOptions);
const engineWith = (bounds: { tableBytes: number; threadTableBytes?: number }) =>
  new QueryScanEngine({ limits: () => DEFAULT_LIMITS, aggregateBounds: bounds, aggregates: new AggregateThreads({ pluginOf: () => undefined, threads: 2, minBytes: 0, idleMs: 0 }) });

test('past the table bound (400 KB for 20,010 groups): one read, the answer Python\'s', async () => {
  const reads = jest.spyOn(source, 'batches');
  try {
    const r = await engineWith({ tableBytes: 400_000, threadTableBytes: 64 * 1024 * 1024 }).aggregate(spec());
    expect(r.complete).toBe(true);
    expect(r.groupsTotal).toBe(python.total);
    expect(r.groups).toHaveLength(10_000);
    expect(r.groups.slice(0, 10).map((g) => [g.key[0], g.count])).toEqual(python.top);
    expect([r.groups[9999]!.key[0], r.groups[9999]!.count]).toEqual(python.lastKept);
    expect(r.recordsScanned).toBe(source.count);
    expect(r.warnings.map((w) => w.code)).toEqual(['GROUPS_KEPT']);
    expect(r.warnings[0]!.message).toMatch(/merged them in parts/);
    // one read: no passes over parts of the groups (those read it 5+ times)
    expect(reads.mock.calls.length).toBe(1);
  } finally {
    reads.mockRestore();
  }
}, 60_000);

test('a thread\'s table past its own bound: the passes over parts of the groups answer, the same groups', async () => {
  const reads = jest.spyOn(source, 'batches');
  try {
    const r = await engineWith({ tableBytes: 400_000, threadTableBytes: 100_000 }).aggregate(spec());
    expect(r.groupsTotal).toBe(python.total);
    expect(r.groups.slice(0, 10).map((g) => [g.key[0], g.count])).toEqual(python.top);
    expect([r.groups[9999]!.key[0], r.groups[9999]!.count]).toEqual(python.lastKept);
    expect(r.warnings[0]!.message).toMatch(/read the file \d+ times/);
    expect(reads.mock.calls.length).toBeGreaterThan(5);
  } finally {
    reads.mockRestore();
  }
}, 60_000);

test('groups handed over in parts that fit the bound all together: every group is in the answer (pages on), as on this thread', async () => {
  // 20,010 groups (~5 MB estimated) in a 6 MB table: the threads' tables (past half the bound) come in parts, and
  // the parts merged stay within it, so the answer is every group, not the first 10,000
  const r = await engineWith({ tableBytes: 6_000_000 }).aggregate(spec());
  expect(r.groups).toHaveLength(python.total);
  expect(r.groupsTotal).toBeUndefined();
  expect(r.warnings).toEqual([]);
  expect(r.groups.slice(0, 10).map((g) => [g.key[0], g.count])).toEqual(python.top);
  expect([r.groups[9999]!.key[0], r.groups[9999]!.count]).toEqual(python.lastKept);
  const here = await new QueryScanEngine({ limits: () => DEFAULT_LIMITS }).aggregate(spec());
  expect(r.groups).toEqual(here.groups);
}, 60_000);
