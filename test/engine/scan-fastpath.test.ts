/**
 * Property test: the engine's fast paths (byte prefilter, on-demand member reads, the plain-JSON.parse shortcut,
 * the fast filter evaluator, worker threads) return exactly the node list of a plain full parse evaluated whole, on
 * random records with escaped spellings (\u escapes, \/), non-ASCII text and exact numbers (big integers, 1.0, 1e3, -0).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import jsonl from '../../plugins/format-jsonl/src/index';
import type { Format, QueryLanguage } from '../../src/kernel/contracts';
import { parseExact } from '../../src/engine/records/parse';
import { fileService, formatsOf } from '../helpers/formats';
import { engine, jsonpath, sharedThreads, threadedEngine } from '../helpers/query';

let dir: string;
let formats: Format[];
let jp: QueryLanguage;
/** The file's engine threads: a thread a scan left clean serves the next scan. */
const threads = sharedThreads();
afterAll(() => threads.close());
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-fast-'));
  formats = await formatsOf(jsonl);
  jp = await jsonpath();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A JSON string literal for `s`, each character spelled plainly or as \uXXXX (and / as \/) at random. */
const spelled = (s: string, escapes: boolean[]) => {
  let out = '"';
  [...s].forEach((ch, i) => {
    const esc = escapes[i % Math.max(1, escapes.length)];
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (ch === '/' && esc) out += '\\/';
    else if (esc && ch.length === 1) out += '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');
    else if (ch < ' ') out += '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');
    else out += ch;
  });
  return out + '"';
};

const WORDS = ['failed', 'ok', 'a/b', 'fäiled', '日本', 'x"y', 'failed ', 'FAILED', ''];
const NUMBERS = ['0', '-0', '1', '1.0', '100', '101', '1e3', '99.5', '100.00', '9007199254740993', '9007199254740992', '-12345678901234567891', '0.1', '0.0000001', '123456789012345'];
const word = fc.constantFrom(...WORDS);
const numberLexeme = fc.constantFrom(...NUMBERS);
const escapes = fc.array(fc.boolean(), { minLength: 1, maxLength: 4 });
const scalar = fc.oneof(
  fc.tuple(word, escapes).map(([w, e]) => spelled(w, e)),
  numberLexeme,
  fc.constantFrom('true', 'false', 'null'),
);
const key = fc.tuple(fc.constantFrom('status', 'n', 'id', 'k', 'tags', 'x'), escapes).map(([k, e]) => spelled(k, e));
const member = fc.tuple(key, fc.oneof({ weight: 4, arbitrary: scalar }, { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }).map((a) => `[${a.join(',')}]`) }, { weight: 1, arbitrary: fc.tuple(key, scalar).map(([k, v]) => `{${k}:${v}}`) }));
const record = fc.array(member, { maxLength: 6 }).map((ms) => `{${ms.map(([k, v]) => `${k}:${v}`).join(',')}}`);

const QUERIES = [
  '$[?@.status=="failed"]',
  '$[?@.status=="a/b"].n',
  '$[?@.status=="fäiled" || @.k=="日本"]',
  '$[?@.n > 100]',
  '$[?@.n == 1]',
  '$[?@.id == 9007199254740993]',
  '$[?@.id == 9007199254740992].id',
  '$[?@.x.status == "ok"]',
  '$[?@.tags[0] == "ok"]',
  '$..status',
  '$[*].id',
  '$[?@.k]',
  '$[?match(@.status, "[Ff][Aa][Ii][Ll][Ee][Dd]")]',
  '$[?search(@.k, "日") || match(@.x.status, "o.")]',
];

async function check(lines: string[], threaded: boolean): Promise<void> {
  const name = `p${Math.random().toString(36).slice(2)}.jsonl`;
  fs.writeFileSync(path.join(dir, name), lines.join('\n') + '\n');
  const f = await fileService(dir, formats).open(name);
  const all = lines.map((l) => parseExact(l, () => ({ byteOffset: 0, line: 1, column: 1, recordIndex: 0, maxDepth: 2000 }), 2000));
  try {
    for (const q of threaded ? QUERIES.filter((_q, i) => i % 3 === 0) : QUERIES) {
      const expected = jp.compile(q).evaluate(all).map((n) => [n.path, JSON.stringify(n.value)]);
      const run = threaded ? threadedEngine({}, 1, 0, threads) : engine();
      const got = await run.run({ source: f.source, query: jp.compile(q), addressing: 'file' });
      expect([q, got.nodes.map((n) => [n.path, JSON.stringify(n.value)])]).toEqual([q, expected]);
      expect(got.skipped).toBe(0);
    }
  } finally {
    f.close();
    fs.rmSync(path.join(dir, name));
  }
}

describe('fast paths agree with a plain full parse', () => {
  test('single-threaded: prefilter, on-demand reads, fast filters, plain parse shortcut', async () => {
    await fc.assert(fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 25 }), (lines) => check(lines, false)), { numRuns: 150 });
  });
  /**
   * Every word as a status, plainly and with escapes, at the top and nested, and every number as n and id: each query
   * the threads run meets records it selects and records it rules out, whatever the random runs draw (a few records).
   */
  const EVERY = [
    ...WORDS.flatMap((w, i) => [false, true].map((esc) => `{"status":${spelled(w, [esc])},"n":${NUMBERS[i % NUMBERS.length]},"id":${NUMBERS[(i + 9) % NUMBERS.length]},"x":{"status":${spelled(w, [esc])}}}`)),
    ...NUMBERS.map((n, i) => `{"n":${n},"id":${n},"k":"日本","tags":[${spelled(WORDS[i % WORDS.length]!, [false])}]}`),
  ];
  test('worker threads', async () => {
    await fc.assert(fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 40 }), (lines) => check(lines, true)), { numRuns: 3, examples: [[EVERY]] });
  }, 180000);
});

describe('the plain-parse shortcut never misses a lexeme a double cannot hold', () => {
  test('mayNeedExact(text) whenever String(Number(lexeme)) !== lexeme, in every position', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { mayNeedExact } = require('../../src/engine/scan/fast-parse') as typeof import('../../src/engine/scan/fast-parse');
    const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
    const lexeme = fc.tuple(fc.boolean(), fc.oneof(fc.constant('0'), fc.tuple(fc.constantFrom(...'123456789'), digits(0, 22)).map(([a, b]) => a + b)),
      fc.option(digits(1, 20)), fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 3))))
      .map(([neg, int, frac, exp]) => `${neg ? '-' : ''}${int}${frac !== null ? '.' + frac : ''}${exp !== null ? exp.join('') : ''}`);
    fc.assert(fc.property(lexeme, fc.constantFrom('%', '{"a":%}', '[1,%]', '{"a":[%, 2]}', '{"b":"x", "a":\n%\n}'), (lex, shape) => {
      const text = shape.replace('%', lex);
      if (String(Number(lex)) !== lex) expect([lex, mayNeedExact(text)]).toEqual([lex, true]);
    }), { numRuns: 3000 });
  });
});
