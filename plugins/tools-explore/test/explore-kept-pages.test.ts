/**
 * Pages of a long record (get_record) or of a big value (get_value_at_path) cost their own bytes: the text is built
 * (read, checked, merged) once and kept with the handle with the places its layout resumes, within a memory budget.
 * Pages are the bytes of the whole laid-out text, computed here with JSON.stringify; reads of the file are counted
 * by wrapping the source.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../format-jsonl/src/index';
import { getRecord } from '../src/tools/get-record';
import { getValueAtPath } from '../src/tools/get-value';
import { closeFile } from '../src/tools/close-file';
import { fileTable } from '../src/files';
import { keptTextBytes, keptTextLimits, KEPT_TEXT_BUDGET } from '../src/records';
import { FakeClock } from '../../../src/kernel/fake-clock';
import { fileService, formatsOf } from '../../../test/helpers/formats';
import { exploreContext } from '../../../test/helpers/explore-context';

const E = '\u{1F600}';
/** ~1.3 MB as JSON: over the 1 MiB from which get_value_at_path reads through lazy nodes. */
const BIG = { kind: 'big', items: Array.from({ length: 25_000 }, (_, i) => ({ id: i, s: `v${i} ${E} "q" é`, t: [i % 7, null, true] })) };
const PRETTY = Buffer.from(JSON.stringify(BIG, null, 2));
const COMPACT = Buffer.from(JSON.stringify(BIG));
const ITEMS = Buffer.from(JSON.stringify(BIG.items));

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-kept-pages-'));
  fs.writeFileSync(path.join(dir, 'r.jsonl'), `{"a":1}\n${JSON.stringify(BIG)}\n`);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
afterEach(() => { keptTextLimits.bytes = KEPT_TEXT_BUDGET; });

/** A context over a fresh session with r.jsonl open as file_1; `reads` counts whole-record reads. */
async function setup() {
  const clock = new FakeClock();
  const opened = await fileService(dir, await formatsOf(jsonl)).open('r.jsonl');
  const reads = { records: 0 };
  const checked = opened.source.checkedText!.bind(opened.source);
  opened.source.checkedText = (i: number) => { reads.records++; return checked(i); };
  const ctx = exploreContext(clock, { extra: { registry: { queryLanguages: new Map() } } });
  fileTable(ctx).add({ opened, malformedRecords: 0 });
  // re-indented unless the call says compact (the default is compact: these tests page the longer layout)
  const record = async (args: Record<string, unknown>) => (await getRecord.handler({ handle: 'file_1', index: 1, record_format: 'pretty', ...args } as any, ctx)) as any;
  const value = async (args: Record<string, unknown>) => (await getValueAtPath.handler({ handle: 'file_1', index: 1, path: 'items', ...args } as any, ctx)) as any;
  return { ctx, opened, reads, record, value };
}

/** Offsets jumping back and forth over the text, pages of 1 to 16,384 bytes. */
function offsets(total: number): [number, number][] {
  let seed = 11;
  const rand = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  return [[0, 16384], [total - 5, 100], [total - 20000, 16384], ...Array.from({ length: 40 }, () => [rand(total), 1 + rand(16384)] as [number, number])];
}

test('get_record: the record is read once for all its pages, at any offset; each page is those bytes of the laid-out text', async () => {
  const { reads, record } = await setup();
  for (const [offset, length] of offsets(PRETTY.length)) {
    const r = await record({ offset, length });
    expect(r.record_bytes).toBe(PRETTY.length);
    const end = r.next_offset ?? PRETTY.length;
    expect(Buffer.from(r.record).equals(PRETTY.subarray(r.offset, end))).toBe(true);
    expect(r.offset - offset).toBeLessThan(4); // the first character at or after the offset
  }
  // compact is another text: read once more, then kept too
  for (const [offset, length] of offsets(COMPACT.length)) {
    const r = await record({ offset, length, record_format: 'compact' });
    expect(Buffer.from(r.record).equals(COMPACT.subarray(r.offset, r.next_offset ?? COMPACT.length))).toBe(true);
  }
  expect(reads.records).toBe(2);
  // the first page without offset: cut and marked, as before
  const first = await record({});
  const end = first.next_offset;
  expect(first.record).toBe(`${PRETTY.subarray(0, end).toString('utf8')}\n… [cut: bytes 0–${end} of ${PRETTY.length}; call get_record (record_format pretty) with offset ${end} for the rest]`);
  expect(reads.records).toBe(2);
});

test('get_value_at_path: a big value (through lazy nodes) is read once for its pages', async () => {
  const { value } = await setup();
  // the value's text is checked with JSON.parse once it is read (get-value.ts nodeText): count those of its size
  const parse = JSON.parse;
  let whole = 0;
  const spy = jest.spyOn(JSON, 'parse').mockImplementation((t: string, r?: any) => { if (t.length >= ITEMS.length / 2) whole++; return parse(t, r); });
  for (const [offset, length] of offsets(ITEMS.length)) {
    const r = await value({ offset, length });
    expect(r.value_bytes).toBe(ITEMS.length);
    expect(Buffer.from(r.value).equals(ITEMS.subarray(r.offset, r.next_offset ?? ITEMS.length))).toBe(true);
  }
  spy.mockRestore();
  expect(whole).toBe(1);
  expect(keptTextBytes()).toBeGreaterThanOrEqual(ITEMS.length * 2);
});

test('kept texts are dropped when the handle closes, when the file changed, and past the budget (least recently used first)', async () => {
  const { ctx, opened, reads, record } = await setup();
  await record({ offset: 100 });
  await record({ offset: 200 });
  expect(reads.records).toBe(1);
  // another version of the file (its size or mtime): built afresh
  const identity = opened.source.identity;
  (opened.source as any).identity = { ...identity, mtimeMs: identity.mtimeMs + 1 };
  await record({ offset: 300 });
  expect(reads.records).toBe(2);
  await record({ offset: 400 });
  expect(reads.records).toBe(2);
  // a budget that holds one text: the compact one pushes the re-indented one out
  keptTextLimits.bytes = JSON.stringify(BIG).length * 2 + 1000;
  await record({ offset: 10, record_format: 'compact' });
  expect(reads.records).toBe(3);
  await record({ offset: 400 });
  expect(reads.records).toBe(4);
  // a text over the budget is never kept: each page reads it
  keptTextLimits.bytes = 1000;
  await record({ offset: 500, record_format: 'compact' });
  await record({ offset: 600, record_format: 'compact' });
  expect(reads.records).toBe(6);
  keptTextLimits.bytes = KEPT_TEXT_BUDGET;
  await record({ offset: 700 });
  expect(keptTextBytes()).toBeGreaterThan(0);
  expect(await closeFile.handler({ handle: 'file_1' } as any, ctx)).toEqual({ closed: true });
  expect(keptTextBytes()).toBe(0);
});

test('a record that fits one page is not kept', async () => {
  const { reads, ctx } = await setup();
  const r = (await getRecord.handler({ handle: 'file_1', index: 0 } as any, ctx)) as any;
  expect(r).toEqual({ index: 0, record: '{"a":1}' });
  expect(reads.records).toBe(1);
  expect(keptTextBytes()).toBe(0);
  await getRecord.handler({ handle: 'file_1', index: 0 } as any, ctx);
  expect(reads.records).toBe(2);
});
