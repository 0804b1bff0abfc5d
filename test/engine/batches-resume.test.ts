/**
 * A source's batches when an iteration resumes where the last one stopped (a reader's or a search's next page): the
 * records come back exactly, from every kind of resume point (inside the last batch handed out, inside the read left
 * in flight, past both, before them, with a shorter range, after the file grew, interleaved with other iterations),
 * and the bytes the last iteration read and did not hand out are not read again.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import type { Format, RecordSource } from '../../src/kernel/contracts';
import { fileService, formatsOf } from '../helpers/formats';

let dir: string;
let formats: Format[];
/** 40,000 records of ~300 bytes (~12 MB: three 4 MiB reads and a bit); record i holds `i`. */
const RECORDS = 40_000;
let file: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-resume-'));
  formats = await formatsOf(jsonl);
  const lines: string[] = [];
  for (let i = 0; i < RECORDS; i++) lines.push(JSON.stringify({ i, pad: 'x'.repeat(250 + (i % 61)) }));
  file = 'resume.jsonl';
  fs.writeFileSync(path.join(dir, file), lines.join('\n') + '\n');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const idOf = (batch: { text(k: number): string }, k: number) => (JSON.parse(batch.text(k)) as { i: number }).i;

/** Iterates from `from` (to `to`) and stops once record `stopAt` has been handed out; returns the ids and batch ranges seen. */
async function readUntil(source: RecordSource, from: number, stopAt: number, to?: number): Promise<{ ids: number[]; ranges: [number, number][] }> {
  const ids: number[] = [];
  const ranges: [number, number][] = [];
  outer: for await (const batch of source.batches({ from, ...(to !== undefined ? { to } : {}) })) {
    ranges.push([batch.first, batch.first + batch.count]);
    for (let k = 0; k < batch.count; k++) {
      ids.push(idOf(batch, k));
      if (batch.first + k === stopAt) break outer;
    }
  }
  return { ids, ranges };
}

const range = (a: number, b: number) => Array.from({ length: b - a }, (_, k) => a + k);

/** Counts the bytes read through fs.read (the batches' reads) while `run` goes on. */
async function bytesRead(run: () => Promise<unknown>): Promise<number> {
  let total = 0;
  const nodeFs = jest.requireActual<typeof fs>('node:fs'); // the module object itself (an `import *` is a copy)
  const actual = nodeFs.read as unknown as (...a: unknown[]) => void;
  const spy = jest.spyOn(nodeFs, 'read').mockImplementation(((...args: unknown[]) => {
    total += args[3] as number;
    actual(...args);
  }) as unknown as typeof fs.read);
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return total;
}

describe('batches resumed where the last iteration stopped', () => {
  test('from inside the last batch handed out: the records from there on, and neither that batch nor the read in flight is read again', async () => {
    const { source, close } = await fileService(dir, formats).open(file);
    const first = await readUntil(source, 0, 5000);
    expect(first.ids).toEqual(range(0, 5001));
    const size = fs.statSync(path.join(dir, file)).size;
    let second: { ids: number[]; ranges: [number, number][] } = { ids: [], ranges: [] };
    const read = await bytesRead(async () => { second = await readUntil(source, 5001, -1); });
    expect(second.ids).toEqual(range(5001, RECORDS));
    // the first batch is the rest of the one handed out, the second the read left in flight: only what follows is read
    expect(second.ranges[0]![0]).toBe(5001);
    expect(second.ranges[1]![0]).toBe(first.ranges[0]![1]);
    expect(read).toBe(size - source.location(second.ranges[1]![1]).byte_offset!);
    close();
  });

  test('from inside the read left in flight, past it, and before the kept bytes: every record exactly once, in order', async () => {
    const { source, close } = await fileService(dir, formats).open(file);
    for (const [stop, resume] of [[100, 20_000], [100, 15_000], [30_000, 2], [39_998, 39_999], [12_345, 12_345]] as const) {
      const a = await readUntil(source, 0, stop);
      expect(a.ids).toEqual(range(0, stop + 1));
      const b = await readUntil(source, resume, -1);
      expect(b.ids).toEqual(range(resume, RECORDS));
    }
    close();
  });

  test('a resumed range that ends inside the kept bytes stops at its end; the next iteration still reads right', async () => {
    const { source, close } = await fileService(dir, formats).open(file);
    await readUntil(source, 0, 10);
    expect((await readUntil(source, 11, -1, 20)).ids).toEqual(range(11, 20));
    expect((await readUntil(source, 20, -1, 9000)).ids).toEqual(range(20, 9000));
    expect((await readUntil(source, 9000, -1)).ids).toEqual(range(9000, RECORDS));
    close();
  });

  test('interleaved iterations on one source, and a short probe before a long scan, each get their own records', async () => {
    const { source, close } = await fileService(dir, formats).open(file);
    expect((await readUntil(source, 0, -1, 32)).ids).toEqual(range(0, 32));
    const ia = source.batches({ from: 0 })[Symbol.asyncIterator]();
    const ib = source.batches({ from: 20_000 })[Symbol.asyncIterator]();
    const got: Record<'a' | 'b', number[]> = { a: [], b: [] };
    for (let round = 0; round < 3; round++) {
      for (const [name, it] of [['a', ia], ['b', ib]] as const) {
        const r = await it.next();
        if (!r.done) for (let k = 0; k < r.value.count; k++) got[name].push(idOf(r.value, k));
      }
    }
    await ia.return?.(undefined);
    await ib.return?.(undefined);
    expect(got.a).toEqual(range(0, got.a.length));
    expect(got.b).toEqual(range(20_000, 20_000 + got.b.length));
    const resumeAt = got.b[got.b.length - 1]! + 1;
    expect((await readUntil(source, resumeAt, -1)).ids).toEqual(range(resumeAt, RECORDS));
    close();
  });

  test('after the file grew (its index extended), a resume reads the appended records too', async () => {
    const name = 'grow.jsonl';
    const p = path.join(dir, name);
    fs.writeFileSync(p, range(0, 30_000).map((i) => JSON.stringify({ i, pad: 'y'.repeat(300) })).join('\n') + '\n');
    const files = fileService(dir, formats);
    const opened = await files.open(name);
    const { source } = opened;
    await readUntil(source, 0, 100);
    fs.appendFileSync(p, range(30_000, 30_010).map((i) => JSON.stringify({ i })).join('\n') + '\n');
    files.verify(source, opened.realPath);
    expect(source.count).toBe(30_010);
    expect((await readUntil(source, 101, -1)).ids).toEqual(range(101, 30_010));
    opened.close();
  });
});
