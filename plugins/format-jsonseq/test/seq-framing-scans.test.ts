/**
 * The json-seq framing check (RFC 7464 §2.1 text before the first RS, §2.4 a top-level number not followed by
 * whitespace) applied by every scan path of the engine as `value` applies it: query scans (whole records, a filter read
 * on demand, a count only) and aggregates, on this thread and on worker threads. Expected values come from an
 * independent reading of the files (test/helpers/seq-expected.ts).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonseq from '../src/index';
import type { Format, QueryLanguage } from '../../../src/kernel/contracts';
import { fileService, formatsOf } from '../../../test/helpers/formats';
import { aggregateEngine, engine, jsonpath, threadedEngine } from '../../../test/helpers/query';
import { readSequence, SEQ_FILES } from '../../../test/helpers/seq-expected';

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

/**
 * Records over maxRecordBytes are read in parts (lazy nodes), never whole: the framing check still applies to them,
 * given their ends, on every path that reads them (node(), the engine's walk, validation).
 */
describe('records over maxRecordBytes: the same framing check', () => {
  const LIMIT = 1000;
  const pad = JSON.stringify(Array.from({ length: 600 }, () => 0)); // 1,201 bytes
  const digits = '7'.repeat(1500);
  const long = '7'.repeat(20000); // longer than the ends a check is given: its middle is left out
  // 0: text before the first RS (§2.1); 1: well-formed; 2: a top-level number directly followed by RS (§2.4);
  // 3: small, well-formed; 4: a number followed by whitespace (well-formed); 5: small; 6: a number ending the file (§2.4)
  const TEXT = `{"a":"before","pad":${pad}}\n\x1e{"a":1,"pad":${pad}}\n\x1e${digits}\x1e{"a":2}\n\x1e${long}\n\x1e{"a":3}\n\x1e${long}`;
  const records = () => readSequence(Buffer.from(TEXT, 'latin1'));
  const bad = () => records().filter((r) => r.malformed).map((r) => r.index);
  const open = () => fileService(dir, formats, { maxRecordBytes: LIMIT }).open('big.json-seq');
  beforeAll(() => fs.writeFileSync(path.join(dir, 'big.json-seq'), TEXT, 'latin1'));

  test('the premise: records 0, 1, 2, 4 and 6 are over maxRecordBytes, and the independent reading finds 0, 2 and 6 malformed', () => {
    expect(bad()).toEqual([0, 2, 6]);
    expect(Buffer.byteLength(`{"a":1,"pad":${pad}}`)).toBeGreaterThan(LIMIT);
    expect(digits.length).toBeGreaterThan(LIMIT);
  });

  test('node() rejects the malformed ones as value() rejects them, whatever their size', async () => {
    const f = await open();
    try {
      expect(f.source.count).toBe(records().length);
      for (const r of records()) {
        if (r.malformed) {
          expect(() => f.source.node!(r.index, '')).toThrow(expect.objectContaining({ code: 'SYNTAX_ERROR', location: expect.objectContaining({ record_index: r.index }) }));
          // value() says the same, not that the record is too long to read
          expect(() => f.source.value(r.index)).toThrow(expect.objectContaining({ code: 'SYNTAX_ERROR' }));
        } else {
          expect(f.source.node!(r.index, '')).toBeDefined();
          if (r.index === 1 || r.index === 4) expect(() => f.source.value(r.index)).toThrow(expect.objectContaining({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: expect.objectContaining({ name: 'maxRecordBytes' }) }));
          else expect(f.source.value(r.index)).toEqual(r.value);
        }
      }
    } finally {
      f.source.close();
    }
  });

  test.each([['this thread', () => engine({ maxRecordBytes: LIMIT })], ['worker threads', () => threadedEngine({ maxRecordBytes: LIMIT })]])('a scan on %s walks the well-formed ones and skips the malformed ones', async (_, make) => {
    const f = await open();
    try {
      const r = await make().run({ source: f.source, query: jp.compile('$[*].a'), addressing: 'file' });
      expect(r.nodes.map((n) => [n.path, n.value])).toEqual([['/1/a', 1], ['/3/a', 2], ['/5/a', 3]]);
      // the numbers hold no "a": the prefilter passes over them unread, so only record 0 is found malformed
      expect(r.firstSkipped.map((s) => [s.record_index, s.code])).toEqual([[0, 'SYNTAX_ERROR']]);
      expect(r.skipped).toBe(1);
      // a count of every record checks each: the three malformed ones are skipped, the four others counted
      const counted = await make().run({ source: f.source, query: jp.compile('$[*]'), addressing: 'file', limit: 0, countAll: true });
      expect(counted.total).toBe(records().length - bad().length);
      expect(counted.firstSkipped.map((s) => [s.record_index, s.code])).toEqual(bad().map((i) => [i, 'SYNTAX_ERROR']));
      expect(counted.skipped).toBe(bad().length);
    } finally {
      f.source.close();
    }
  });

  test('full validation counts them malformed', async () => {
    const f = await open();
    try {
      const report = await f.source.validate({ mode: 'full' });
      expect(report.firstMalformed.map((m) => m.recordIndex)).toEqual(bad());
      expect(report.malformedRecords).toBe(3);
      expect(report.recordsExamined).toBe(records().length);
    } finally {
      f.source.close();
    }
  });
});
