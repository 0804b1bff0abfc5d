/**
 * No collection step of a scan is unbounded: a batch of hundreds of thousands of tiny records evaluated on a worker
 * thread hands over at most what the page needs (a page stops collecting at its cap), and counting goes on without
 * collecting. Before, a 4 MiB batch of `{"a":1}` posted ~500k messages that were spread into one push: the stack
 * overflowed and the server died.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import type { Format, QueryLanguage } from '../../src/kernel/contracts';
import { fileService, formatsOf } from '../helpers/formats';
import { engine, jsonpath, sharedThreads, threadedEngine } from '../helpers/query';

let dir: string;
let formats: Format[];
let jp: QueryLanguage;
/** The file's engine threads: a thread a scan left clean serves the next scan. */
const threads = sharedThreads();
afterAll(() => threads.close());
const RECORDS = 700_000; // 5.6 MB: two 4 MiB batches, the first with 524,288 records
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-bounded-'));
  formats = await formatsOf(jsonl);
  jp = await jsonpath();
  const lines = '{"a":1}\n'.repeat(RECORDS - 3) + '{"a":\n' + '{"a":2}\n{"a":3}\n';
  fs.writeFileSync(path.join(dir, 'tiny.jsonl'), lines);
});
/** The file, opened (indexed) once for every test. */
let tiny: Awaited<ReturnType<ReturnType<typeof fileService>['open']>>;
beforeAll(async () => {
  tiny = await fileService(dir, formats).open('tiny.jsonl');
});
afterAll(() => {
  tiny.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const open = async () => ({ source: tiny.source, close: () => undefined });

describe('a page stops collecting at its cap', () => {
  test.each(['$[*]', '$.*', '$[*].*', '$[*].a'])('%s with limit 10 on worker threads: ten nodes, the next position, no crash', async (q) => {
    const f = await open();
    try {
      const r = await threadedEngine({}, 2, 0, threads).run({ source: f.source, query: jp.compile(q), addressing: 'file', limit: 10 });
      const inner = q === '$[*]' || q === '$.*' ? '' : '/a';
      expect(r.nodes.map((n) => n.path)).toEqual(Array.from({ length: 10 }, (_, i) => `/${i}${inner}`));
      expect(r.nodes.map((n) => JSON.stringify(n.value))).toEqual(Array(10).fill(inner ? '1' : '{"a":1}'));
      expect(r.next).toEqual({ record: 10, node: 0 });
      expect(r.complete).toBe(true);
    } finally {
      f.close();
    }
  });

  test('counting past the page on worker threads counts every unit, keeping ten; the malformed record past the page is the next page\'s', async () => {
    const f = await open();
    try {
      const r = await threadedEngine({}, 2, 0, threads).run({ source: f.source, query: jp.compile('$[*].a'), addressing: 'file', limit: 10, countAll: true });
      expect(r.nodes).toHaveLength(10);
      expect(r.total).toBe(RECORDS - 1);
      expect(r.skipped).toBe(0);
      expect(r.firstSkipped).toEqual([]);
      expect(r.next).toEqual({ record: 10, node: 0 });
      const rest = await threadedEngine({}, 2, 0, threads).run({ source: f.source, query: jp.compile('$[*].a'), addressing: 'file', limit: 0, countAll: true, resume: r.next! });
      expect(rest.total).toBe(RECORDS - 1 - 10);
      expect(rest.skipped).toBe(1);
      expect(rest.firstSkipped[0]).toMatchObject({ record_index: RECORDS - 3, line: RECORDS - 2 });
    } finally {
      f.close();
    }
  });

  test('a resumed page deep in a batch, on worker threads and on this thread alike', async () => {
    const f = await open();
    try {
      for (const e of [threadedEngine({}, 2, 0, threads), engine()]) {
        const r = await e.run({ source: f.source, query: jp.compile('$[*].*'), addressing: 'file', limit: 3, resume: { record: 600_000, node: 0 } });
        expect(r.nodes.map((n) => n.path)).toEqual(['/600000/a', '/600001/a', '/600002/a']);
        expect(r.next).toEqual({ record: 600_003, node: 0 });
      }
    } finally {
      f.close();
    }
  });

  test('many malformed records in one batch: all counted, the first five reported in file order', async () => {
    fs.writeFileSync(path.join(dir, 'bad.jsonl'), '{"a":\n'.repeat(200_000) + '{"a":7}\n');
    const f = await fileService(dir, formats).open('bad.jsonl');
    try {
      const r = await threadedEngine({}, 2, 0, threads).run({ source: f.source, query: jp.compile('$[*].a'), addressing: 'file', limit: 1 });
      expect(r.nodes.map((n) => [n.path, n.value])).toEqual([['/200000/a', 7]]);
      expect(r.skipped).toBe(200_000);
      expect(r.firstSkipped.map((s) => s.record_index)).toEqual([0, 1, 2, 3, 4]);
      expect(r.next).toBeNull();
    } finally {
      f.close();
    }
  });
});
