/**
 * An aggregate that makes very many groups on this thread (group_by a member every record holds its own value of, or
 * 1 ms buckets over years) does not hold the event loop for a whole batch: the records go in slices, the memory bound
 * is checked after each and the event loop turns between them. Counted in event-loop turns, not in time.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import { QueryScanEngine } from '../../src/engine/scan';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import type { AggregateOptions, Format, RecordSource } from '../../src/kernel/contracts';
import { fileService, formatsOf } from '../helpers/formats';

const N = 40_000;
let dir: string;
let source: RecordSource;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-many-groups-'));
  const lines = Array.from({ length: N }, (_, i) => `{"k":"key-${String(i).padStart(6, '0')}","ts":${1_600_000_000_000 + i * 7}}`);
  fs.writeFileSync(path.join(dir, 'many.jsonl'), lines.join('\n') + '\n'); // ~1.6 MB: one read batch
  const formats: Format[] = await formatsOf(jsonl);
  source = (await fileService(dir, formats).open('many.jsonl')).source;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const spec = (o: Partial<AggregateOptions>): AggregateOptions => ({ source, dimensions: [], metrics: [], order: { by: 'key', desc: false }, top: 5, ...o } as AggregateOptions);

/** Turns of the event loop while `work` runs. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ turns: number; result: T | Error }> {
  let turns = 0, running = true;
  const tick = () => { if (running) { turns++; setImmediate(tick); } };
  setImmediate(tick);
  let result: T | Error;
  try { result = await work(); } catch (err) { result = err as Error; }
  running = false;
  return { turns, result };
}

test('40,000 groups: the answer is whole and the event loop turned between slices of the batch', async () => {
  const eng = new QueryScanEngine({ limits: () => DEFAULT_LIMITS });
  const { turns, result } = await turnsDuring(() => eng.aggregate(spec({ dimensions: [{ kind: 'value', path: ['k'] }] })));
  expect(result).not.toBeInstanceOf(Error);
  const r = result as Awaited<ReturnType<typeof eng.aggregate>>;
  expect(r.groups.slice(0, 2).map((g: any) => [g.key, g.count])).toEqual([[['key-000000'], 1], [['key-000001'], 1]]);
  // 40,000 records in slices of 4,096: at least 9 turns between them.
  expect(turns).toBeGreaterThanOrEqual(9);
});

test('1 ms buckets past the memory bound: answered (in passes over parts of the groups), the event loop turning throughout', async () => {
  const tableBytes = 1024 * 1024;
  const eng = new QueryScanEngine({ limits: () => DEFAULT_LIMITS, aggregateBounds: { tableBytes } });
  const { turns, result } = await turnsDuring(() => eng.aggregate(spec({ dimensions: [{ kind: 'bucket', path: ['ts'], width: { unit: 'ms', ms: 1, epoch: 'ms' } }] })));
  expect(result).not.toBeInstanceOf(Error);
  const r = result as Awaited<ReturnType<typeof eng.aggregate>>;
  // Record i is at 1,600,000,000,000 + 7i ms: 2020-09-13T12:26:40Z, then every 7 ms, one record a bucket.
  expect(r.groups.slice(0, 3).map((g: any) => [g.key, g.count])).toEqual([[['2020-09-13T12:26:40Z'], 1], [['2020-09-13T12:26:40.007Z'], 1], [['2020-09-13T12:26:40.014Z'], 1]]);
  expect(turns).toBeGreaterThanOrEqual(9);
});
