/**
 * The json-seq framing check (RFC 7464 §2.1 text before the first RS, §2.4 a top-level number not followed by
 * whitespace) applied by every scan path of the engine as `value` applies it: query scans (whole records, a filter read
 * on demand, a count only) and aggregates, on this thread and on worker threads. Expected values come from an
 * independent reading of the files (test/helpers/seq-expected.ts).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonseq from '../../plugins/format-jsonseq/src/index';
import type { Format, QueryLanguage } from '../../src/kernel/contracts';
import { fileService, formatsOf } from '../helpers/formats';
import { aggregateEngine, engine, jsonpath, threadedEngine } from '../helpers/query';
import { readSequence, SEQ_FILES } from '../helpers/seq-expected';

let dir: string;
let formats: Format[];
let jp: QueryLanguage;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-seqscan-'));
  for (const [name, text] of Object.entries(SEQ_FILES)) fs.writeFileSync(path.join(dir, name), text, 'latin1');
  formats = await formatsOf(jsonseq);
  jp = await jsonpath();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const expectedOf = (name: string) => readSequence(Buffer.from(SEQ_FILES[name]!, 'latin1'));

describe.each(Object.keys(SEQ_FILES))('%s', (name) => {
  const records = () => expectedOf(name);
  const good = () => records().filter((r) => !r.malformed);
  const bad = () => records().filter((r) => r.malformed).map((r) => r.index);

  test('the reading of the test agrees with the source: same records, value() rejects exactly the malformed ones', async () => {
    const f = await fileService(dir, formats).open(name);
    try {
      expect(f.source.count).toBe(records().length);
      for (const r of records()) {
        if (r.malformed) expect(() => f.source.value(r.index)).toThrow(expect.objectContaining({ code: 'SYNTAX_ERROR' }));
        else expect(f.source.value(r.index)).toEqual(r.value);
      }
    } finally {
      f.source.close();
    }
  });

  describe.each([['this thread', () => engine()], ['worker threads', () => threadedEngine()]])('query scans on %s', (_, make) => {
    test.each(['$[*]', '$[?@ == @]'])('%s lists the well-formed records and skips the malformed ones', async (q) => {
      const f = await fileService(dir, formats).open(name);
      try {
        const r = await make().run({ source: f.source, query: jp.compile(q), addressing: 'file' });
        expect(r.nodes.map((n) => [n.path, n.value])).toEqual(good().map((g) => ['/' + g.index, g.value]));
        expect(r.skipped).toBe(bad().length);
        expect(r.firstSkipped.map((s) => s.record_index)).toEqual(bad().slice(0, 5));
        expect(r.firstSkipped.every((s) => s.code === 'SYNTAX_ERROR')).toBe(true);
      } finally {
        f.source.close();
      }
    });

    test('a filter read on demand ($[?@.a]) and a count only', async () => {
      const f = await fileService(dir, formats).open(name);
      try {
        const withA = good().filter((g) => g.value !== null && typeof g.value === 'object' && 'a' in (g.value as object));
        const r = await make().run({ source: f.source, query: jp.compile('$[?@.a]'), addressing: 'file' });
        expect(r.nodes.map((n) => n.path)).toEqual(withA.map((g) => '/' + g.index));
        const counted = await make().run({ source: f.source, query: jp.compile('$[*]'), addressing: 'file', limit: 0, countAll: true });
        expect(counted.total).toBe(good().length);
        const countedA = await make().run({ source: f.source, query: jp.compile('$[?@.a]'), addressing: 'file', limit: 0, countAll: true });
        expect(countedA.total).toBe(withA.length);
      } finally {
        f.source.close();
      }
    });
  });

  describe.each([['this thread', () => engine()], ['worker threads', () => aggregateEngine()]])('aggregate on %s', (_, make) => {
    test('group by a: the well-formed records only, the malformed ones skipped and reported', async () => {
      const f = await fileService(dir, formats).open(name);
      try {
        const r = await make().aggregate({ source: f.source, dimensions: [{ kind: 'value', path: ['a'] }], metrics: [], order: { by: 'count', desc: true } });
        const counts = new Map<string, number>();
        for (const g of good()) {
          const v = g.value !== null && typeof g.value === 'object' && !Array.isArray(g.value) ? (g.value as Record<string, unknown>).a : undefined;
          const k = v === undefined ? 'missing' : JSON.stringify(v);
          counts.set(k, (counts.get(k) ?? 0) + 1);
        }
        const got = new Map<string, number>();
        for (const g of r.groups) got.set(g.missing.length ? 'missing' : JSON.stringify(g.key[0]), g.count);
        expect(got).toEqual(counts);
        expect(r.recordsMatched).toBe(good().length);
        expect(r.skipped).toBe(bad().length);
        expect(r.firstSkipped.map((s) => s.record_index)).toEqual(bad().slice(0, 5));
      } finally {
        f.source.close();
      }
    });
  });
});
