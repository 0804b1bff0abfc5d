/**
 * An aggregate that makes very many groups on this thread (group_by a member every record holds its own value of, or
 * 1 ms buckets over years) neither holds the event loop for the whole batch nor grows past its memory bound until the
 * batch ends: the records go in slices, the bound is checked after each and the event loop turns between them. Counted
 * in event-loop turns and groups, not in time.
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

test('1 ms buckets past the memory bound: refused soon after the bound is passed, not a whole batch later', async () => {
  const tableBytes = 1024 * 1024;
  const eng = new QueryScanEngine({ limits: () => DEFAULT_LIMITS, aggregateBounds: { tableBytes } });
  const { result } = await turnsDuring(() => eng.aggregate(spec({ dimensions: [{ kind: 'bucket', path: ['ts'], width: { unit: 'ms', ms: 1, epoch: 'ms' } }] })));
  expect(result).toBeInstanceOf(Error);
  expect(result).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'aggregateGroupBytes', limit: tableBytes } });
  // Within one slice of the bound (4,096 groups of about 200 bytes), not the batch's 40,000.
  expect((result as any).limit.value).toBeLessThan(tableBytes + 4096 * 400);
});
