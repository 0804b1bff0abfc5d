/**
 * Every tool obeys the request deadline, not only scans: the sampling tools read records until the deadline and
 * answer with what they read (a RESOURCE_LIMIT_EXCEEDED warning says so), list_files stops its walk, and numbers
 * of any length are handled in time linear in their length. Time is a FakeClock (ctx.clock): no test waits.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../format-jsonl/src/index';
import { extractKeys, getSchema, sampleRecords } from '../src/tools/sampling';
import { fileTable } from '../src/files';
import { DEFAULT_LIMITS } from '../../../src/kernel/config/defaults';
import type { ToolContext } from '../../../src/kernel/contracts';
import { listFiles } from '../../../src/kernel/files/list-files';
import { Sandbox } from '../../../src/kernel/files/sandbox';
import { FakeClock } from '../../../src/kernel/fake-clock';
import { fileService, formatsOf } from '../../../test/helpers/formats';
import { exploreContext } from '../../../test/helpers/explore-context';
import { jsonpath } from '../../../test/helpers/query';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-tools-deadline-'));
  fs.writeFileSync(path.join(dir, 'r.jsonl'), Array.from({ length: 50 }, (_, i) => `{"id":${i},"k${i}":true}\n`).join(''));
  fs.writeFileSync(path.join(dir, 'deep.jsonl'), Array.from({ length: 3 }, (_, i) => `{"a":{"b":{"c":{"d":{"e":${i}}}}}}\n`).join(''));
  for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(dir, `f${String(i).padStart(2, '0')}.jsonl`), '{}\n');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * A tool context over one open explorer file (`file_1`) whose deadline is `left` ms away on a FakeClock; reading a
 * record (its value, or its checked text: sample_records reads text) moves that clock `perRecord` ms.
 */
async function contextWith(left: number, perRecord = 0, file = 'r.jsonl', limits = DEFAULT_LIMITS, clock = new FakeClock()): Promise<ToolContext> {
  const opened = await fileService(dir, await formatsOf(jsonl)).open(file);
  const value = opened.source.value.bind(opened.source);
  opened.source.value = (i: number) => { clock.advance(perRecord); return value(i); };
  const checkedText = opened.source.checkedText!.bind(opened.source);
  opened.source.checkedText = (i: number) => { clock.advance(perRecord); return checkedText(i); };
  const ctx = exploreContext(clock, { limits, deadlineMs: left });
  fileTable(ctx).add({ opened, malformedRecords: 0 });
  return ctx;
}

describe('sampling tools at the deadline', () => {
  test('get_schema, extract_keys, sample_records past the deadline: one record read, the rest left out, said in a warning', async () => {
    const ctx = await contextWith(-1);
    const schema = (await getSchema.handler({ handle: 'file_1', sample_size: 50, depth: 16 } as any, ctx)) as any;
    expect(schema.records_sampled).toBe(1);
    expect(schema.schema).toEqual({ type: 'object', properties: { id: { type: 'integer' }, k0: { type: 'boolean' } }, required: ['id', 'k0'] });
    expect(schema.warnings).toEqual([{ code: 'RESOURCE_LIMIT_EXCEEDED', message: 'Stopped at the request deadline (requestTimeoutMs) after reading 1 of the 50 records to sample; the answer covers those.' }]);
    const keys = (await extractKeys.handler({ handle: 'file_1', sample_size: 50 } as any, ctx)) as any;
    // both keys are in the one record read: no count differs from records_sampled
    expect(keys).toMatchObject({ keys: ['id', 'k0'], records_sampled: 1 });
    expect(keys.key_counts).toBeUndefined();
    expect(keys.warnings[0].code).toBe('RESOURCE_LIMIT_EXCEEDED');
    const sample = (await sampleRecords.handler({ handle: 'file_1', count: 5, strategy: 'first' } as any, ctx)) as any;
    expect(sample.records).toEqual([{ index: 0, record: '{"id":0,"k0":true}' }]);
    expect(sample.warnings[0].code).toBe('RESOURCE_LIMIT_EXCEEDED');
  });

  test('with time left they read every record asked for', async () => {
    const ctx = await contextWith(60_000);
    const schema = (await getSchema.handler({ handle: 'file_1', sample_size: 50, depth: 16 } as any, ctx)) as any;
    expect(schema.records_sampled).toBe(50);
    expect(schema.warnings).toBeUndefined();
    expect(Object.keys(schema.schema.properties)).toHaveLength(51);
  });
});

test('the deadline is read on ctx.clock: 10 ms a record and 95 ms left, sample_records reads exactly 10 records', async () => {
  const ctx = await contextWith(95, 10);
  const sample = (await sampleRecords.handler({ handle: 'file_1', count: 50, strategy: 'first' } as any, ctx)) as any;
  expect(sample.records.map((r: { index: number }) => r.index)).toEqual([...Array(10).keys()]);
  expect(sample.warnings).toEqual([{ code: 'RESOURCE_LIMIT_EXCEEDED', message: 'Stopped at the request deadline (requestTimeoutMs) after reading 10 of the 50 records to sample; the answer covers those.' }]);
});

describe("get_schema's deeper levels within limits.detailTimeMs", () => {
  /** A FakeClock that moves 40 ms each time it is read: inferring a level reads it, so levels cost time. */
  class TickingClock extends FakeClock {
    override now(): number {
      this.advance(40);
      return super.now();
    }
  }
  const deep = { type: 'object', properties: { e: { type: 'integer' } }, required: ['e'] };
  const nest = (names: string[], leaf: object): object => names.reduceRight((inner, n) => ({ type: 'object', properties: { [n]: inner }, required: [n] }), leaf);

  test('with a minute for detail every level is described, whatever each level costs', async () => {
    const ctx = await contextWith(3_600_000, 0, 'deep.jsonl', { ...DEFAULT_LIMITS, detailTimeMs: 60_000 }, new TickingClock());
    const schema = (await getSchema.handler({ handle: 'file_1', sample_size: 50, depth: 16 } as any, ctx)) as any;
    expect(schema.schema).toEqual(nest(['a', 'b', 'c', 'd'], deep));
    expect(schema.depth).toBeUndefined();
    expect(schema.warnings).toBeUndefined();
  });

  test('past detailTimeMs the levels stop: fewer levels, the depth and the limit named', async () => {
    const ctx = await contextWith(3_600_000, 0, 'deep.jsonl', { ...DEFAULT_LIMITS, detailTimeMs: 1 }, new TickingClock());
    const schema = (await getSchema.handler({ handle: 'file_1', sample_size: 50, depth: 16 } as any, ctx)) as any;
    expect(schema.records_sampled).toBe(3);
    expect(schema.depth).toBeGreaterThanOrEqual(2);
    expect(schema.depth).toBeLessThan(6);
    expect(schema.schema.properties.a.type).toBe('object');
    expect(schema.warnings).toEqual([{ code: 'RESOURCE_LIMIT_EXCEEDED', message: expect.stringContaining(`The schema is described to depth ${schema.depth} (not 16): the next level did not finish within the time an answer may spend on detail (limits.detailTimeMs)`) }]);
  });
});

test('list_files stops its walk at the deadline: truncated, with what it found', async () => {
  const sandbox = new Sandbox(dir);
  const all = await listFiles(sandbox, [], undefined, {});
  expect(all.files).toHaveLength(32);
  expect(all.truncated).toBe(false);
  const clock = new FakeClock();
  const late = await listFiles(sandbox, [], undefined, { deadline: clock.now() - 1, now: () => clock.now() });
  expect(late.truncated).toBe(true);
  expect(late.files).toEqual([]);
});

test('an integer of two million digits compares in linear time, as its double', async () => {
  const jp = await jsonpath();
  const huge = JSON.rawJSON('9'.repeat(2_000_000));
  const q = jp.compile('$[?@.x > 1 && @.x == @.y]');
  // ±Infinity past 1,000 digits: a bigint of 2 M digits would take seconds to parse (and is never built).
  expect(q.evaluate([{ x: huge, y: huge }]).map((n) => n.path)).toEqual(['/0']);
  const exact = jp.compile('$[?@.x == 12345678901234567891]');
  expect(exact.evaluate([{ x: JSON.rawJSON('12345678901234567891') }, { x: JSON.rawJSON('12345678901234567890') }]).map((n) => n.path)).toEqual(['/0']);
});
