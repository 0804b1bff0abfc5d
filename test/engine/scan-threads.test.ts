/**
 * Which scans start worker threads: the decision, not its timing. A query whose regular expression may backtrack runs
 * on a thread the engine can stop; every other query is judged by the bytes it scans — the explorer's case-insensitive
 * predicates too (`$.name = "alice"` becomes a match() of a fixed pattern, which cannot backtrack).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import jsonl from '../../plugins/format-jsonl/src/index';
import { isFixedSequence } from '../../plugins/query-jsonpath/src/fixed-pattern';
import { caseInsensitivePattern, translatePredicate } from '../../plugins/tools-explore/src/search/predicate';
import type { Format, QueryLanguage } from '../../src/kernel/contracts';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { QueryScanEngine, ThreadPool, WORKER_MIN_BYTES } from '../../src/engine/scan';
import { fileService, formatsOf } from '../helpers/formats';
import { jsonpath } from '../helpers/query';

let dir: string;
let formats: Format[];
let jp: QueryLanguage;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-threads-'));
  formats = await formatsOf(jsonl);
  jp = await jsonpath();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const pool = () => new ThreadPool({ pluginOf: (n) => (n === 'jsonpath' ? { entry: require.resolve('../../plugins/query-jsonpath/dist/index.js'), options: {} } : undefined), threads: 1 });
const predicate = (q: string, matchCase = false) => jp.compile(`$[?${translatePredicate(q, matchCase).filter}]`);

describe('isFixedSequence', () => {
  test('fixed sequences of atoms: characters, escapes, classes, dots', () => {
    for (const p of ['', 'abc', '[aA][lL]', '\\.x\\*', '\\p{Lu}\\P{L}[^\\p{N}]', '[]a]', '[a-z].b', '[Σςσ][$]']) expect([p, isFixedSequence(p)]).toEqual([p, true]);
    for (const p of ['a*', 'a+', 'a?', 'a{2}', 'a|b', '(a)', '(?:a)', '^a', 'a$', '[ab', '\\', '\\p{Lu', '(a|a)(a|a)b']) expect([p, isFixedSequence(p)]).toEqual([p, false]);
  });

  test('every case-insensitive predicate pattern is one, whatever the string', () => {
    fc.assert(fc.property(fc.string({ unit: fc.oneof(fc.constantFrom(...'*+?{}|()^$[]\\.-ΣσςKkKßẞ'), fc.integer({ min: 0, max: 0x10ffff }).filter((cp) => cp < 0xd800 || cp > 0xdfff).map((cp) => String.fromCodePoint(cp))), maxLength: 12 }), (s) => {
      expect([s, isFixedSequence(caseInsensitivePattern(s))]).toEqual([s, true]);
    }), { numRuns: 3000 });
  });
});

describe('worker threads: judged by bytes unless a regular expression may backtrack', () => {
  test('CompiledQuery.usesRegex: set for backtracking patterns, search() and computed patterns; unset for a fixed match()', () => {
    expect(predicate('$.name = "alice"').text).toContain('match(@.name, "[Aa][Ll][Ii][Cc][Ee]")');
    expect(predicate('$.name = "alice"').usesRegex).toBeUndefined();
    expect(predicate('$.name != "Σοφία" && $.age > 3').usesRegex).toBeUndefined();
    expect(jp.compile("$[?match(@.s, '[aA][bB]\\\\.c')]").usesRegex).toBeUndefined();
    expect(jp.compile("$[?match(@.s, 'a.*')]").usesRegex).toBe(true);
    expect(jp.compile("$[?match(@.s, '(a|a)(a|a)b')]").usesRegex).toBe(true);
    expect(jp.compile("$[?search(@.s, 'ab')]").usesRegex).toBe(true);
    expect(jp.compile('$[?match(@.s, @.p)]').usesRegex).toBe(true);
    expect(jp.compile("$[?match(@.s, 'ab') || search(@.t, 'a+')]").usesRegex).toBe(true);
  });

  test('ThreadPool.wanted: a 500-record file with a case-insensitive predicate stays on the main thread', () => {
    const p = pool();
    const bytes = 500 * 120;
    expect(p.wanted(bytes, predicate('$.name = "alice"'))).toBe(false);
    expect(p.wanted(bytes, predicate('$.name = "alice"', true))).toBe(false);
    expect(p.wanted(bytes, jp.compile("$[?match(@.name, 'a.*')]"))).toBe(true);
    // a big file: its bytes are prefiltered without case for "alice" on the main thread, as for an exact comparison
    expect(predicate('$.name = "alice"').requiredCaselessLiterals).toEqual(['"alice"']);
    expect(p.wanted(WORKER_MIN_BYTES, predicate('$.name = "alice"'))).toBe(false);
    // big files still go to threads for a query the prefilter cannot narrow: "k" folds with U+212A KELVIN SIGN, whose
    // bytes are not a letter's, so its pattern names no literal
    expect(predicate('$.name = "k"').requiredCaselessLiterals).toBeUndefined();
    expect(p.wanted(WORKER_MIN_BYTES, predicate('$.name = "k"'))).toBe(true);
  });

  test('the engine starts no thread for it (and the answer is the same)', async () => {
    const lines = Array.from({ length: 500 }, (_, i) => JSON.stringify({ id: i, name: ['Alice', 'bob', 'ALICE', 'alicia'][i % 4] }));
    fs.writeFileSync(path.join(dir, 'people.jsonl'), lines.join('\n') + '\n');
    const opened = await fileService(dir, formats).open('people.jsonl');
    try {
      const p = pool();
      const run = jest.spyOn(p, 'run');
      const engine = new QueryScanEngine({ limits: () => DEFAULT_LIMITS, workers: p });
      const r = await engine.run({ source: opened.source, query: predicate('$.name = "alice"'), addressing: 'file' });
      expect(run).not.toHaveBeenCalled();
      expect(r.nodes.map((n) => n.record)).toEqual(Array.from({ length: 500 }, (_, i) => i).filter((i) => i % 4 === 0 || i % 4 === 2));
      const slow = await engine.run({ source: opened.source, query: jp.compile("$[?match(@.name, 'a.*')]"), addressing: 'file' });
      expect(run).toHaveBeenCalledTimes(1); // a pattern that may backtrack still runs on a thread it can stop
      expect(slow.nodes.map((n) => n.record)).toEqual(Array.from({ length: 500 }, (_, i) => i).filter((i) => i % 4 === 3));
    } finally {
      opened.close();
    }
  });
});
