import * as fs from 'node:fs';
import * as path from 'node:path';
import type { QueryLanguage, RecordSource } from '../../../src/kernel/contracts';
import { DEFAULT_LIMITS } from '../../../src/kernel/config/defaults';
import { McpgwError } from '../../../src/kernel/errors';
import { parseExact } from '../../../src/engine/records/parse';
import { recordsToolkit } from '../../../src/engine/records';
import { engine, jsonpath } from '../../../test/helpers/query';

const CASES = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'cases');
let jp: QueryLanguage;
beforeAll(async () => {
  jp = await jsonpath();
});

const exact = (text: string) => parseExact(text, () => ({ byteOffset: 0, line: 1, column: 1, recordIndex: 0, maxDepth: 2000 }), 2000);
const doc = (id: string, file: string) => exact(fs.readFileSync(path.join(CASES, id, file), 'utf8'));
const values = (q: string, value: unknown) => jp.compile(q).evaluate(value).map((n) => n.value);
function compileError(q: string): McpgwError {
  try { jp.compile(q); } catch (e) { return e as McpgwError; }
  throw new Error(`${q} compiled`);
}

interface Check { query: string; expected: unknown }
function checksOf(id: string): Check[] {
  const c = JSON.parse(fs.readFileSync(path.join(CASES, id, 'case.json'), 'utf8'));
  return [{ query: c.query, expected: c.expected }, ...c.extra_checks];
}

/** One .json document opened the way the json format opens a top-level object: one record, the file's root. */
function documentSource(file: string): { source: RecordSource; close(): void } {
  const fd = fs.openSync(file, 'r');
  const st = fs.fstatSync(fd);
  const index = recordsToolkit.createIndex();
  index.push(0, 1);
  index.finish();
  const source = recordsToolkit.createSource({
    file: { realPath: file, displayPath: path.basename(file), fd, identity: { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, inode: st.ino, dev: st.dev } },
    format: 'json', rootType: 'object', rootIsSequence: false, index, end: st.size,
    framing: { isPadding: (b) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09 }, limits: DEFAULT_LIMITS,
  });
  return { source, close: () => fs.closeSync(fd) };
}

describe('field case C03: negative indexes and slices (RFC 9535 §2.3.3.2, §2.3.4.2.2)', () => {
  test.each(checksOf('C03').map((c) => [c.query, c]))('%s', (_q, c) => {
    expect(values(c.query, doc('C03', 'slices.json'))).toEqual(c.expected);
  });
  test('the same kind over a whole JSON Lines-like sequence: $[-2], $[-10:], $[::-1] stay exact', () => {
    const seq = [0, 1, 2, 3];
    expect(values('$[-2]', seq)).toEqual([2]);
    expect(values('$[-10:]', seq)).toEqual([0, 1, 2, 3]);
    expect(values('$[::-1]', seq)).toEqual([3, 2, 1, 0]);
    expect(jp.compile('$[-10:]').split!.range(4)).toEqual({ start: 0, end: 4, step: 1 });
    expect(jp.compile('$[-2]').split!.range(4)).toEqual({ start: 2, end: 3, step: 1 });
    expect(jp.compile('$[-9]').split!.range(4)).toEqual({ start: 0, end: 0, step: 1 });
    expect(jp.compile('$[::-1]').split).toBeUndefined(); // reverse order does not stream; small files are materialised
  });
});

describe('field case C04: member names with dots, commas, quotes, brackets, non-ASCII (RFC 9535 §2.3.1, §2.5.1.1)', () => {
  test.each(checksOf('C04').map((c) => [c.query, c]))('%s', (_q, c) => {
    if (typeof c.expected === 'string' && c.expected.startsWith('error')) {
      expect(compileError(c.query).code).toBe('QUERY_SYNTAX_ERROR');
      return;
    }
    expect(values(c.query, doc('C04', 'names.json'))).toEqual(c.expected);
  });
  test('node paths are RFC 6901 pointers with ~0/~1 escapes', () => {
    expect(jp.compile("$['a/b','m~n','a.b']").evaluate({ 'a/b': 1, 'm~n': 2, 'a.b': 3 }).map((n) => n.path)).toEqual(['/a~1b', '/m~0n', '/a.b']);
  });
});

describe('field case C05: no code runs, prototype names are data (RFC 9535 §2.1, §2.3.1.2, §4.1)', () => {
  test.each(checksOf('C05').map((c) => [c.query, c]))('%s', (_q, c) => {
    if (typeof c.expected === 'string' && c.expected.startsWith('error')) {
      const err = compileError(c.query);
      expect(err.code).toBe('QUERY_SYNTAX_ERROR');
      expect(typeof err.location?.position).toBe('number');
      return;
    }
    expect(values(c.query, doc('C05', 'security.json'))).toEqual(c.expected);
  });
  test('after all of it the process is alive and nothing was polluted', () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(values('$.toString', { a: 1 })).toEqual([]);
    expect(values('$.a.constructor', { a: {} })).toEqual([]);
  });
});

describe('field case C11: deep nesting answers or errors cleanly, never crashes', () => {
  test('deep_1000.json: $..x is [1] through the engine (whole-file addressing)', async () => {
    const { source, close } = documentSource(path.join(CASES, 'C11', 'deep_1000.json'));
    const r = await engine().run({ source, query: jp.compile('$..x', { maxDepth: 2000 }), addressing: 'file' });
    expect(r.nodes.map((n) => n.value)).toEqual([1]);
    close();
  });
  test('deep_100000.json: RESOURCE_LIMIT_EXCEEDED maxDepth, then the next query still answers', async () => {
    const { source, close } = documentSource(path.join(CASES, 'C11', 'deep_100000.json'));
    // the file holds no "x": the prefilter answers [] without parsing it
    expect((await engine().run({ source, query: jp.compile('$..x'), addressing: 'file' })).nodes).toEqual([]);
    // a query that must parse it: a structured depth error
    await expect(engine().run({ source, query: jp.compile('$..*'), addressing: 'file' })).rejects.toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxDepth', limit: 2000 } });
    // evaluating an already-parsed deep value directly is a clean error too, not a stack overflow
    const deep = JSON.parse(fs.readFileSync(path.join(CASES, 'C11', 'deep_100000.json'), 'utf8'));
    let err: unknown;
    try { jp.compile('$..x').evaluate(deep); } catch (e) { err = e; }
    expect(err).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED' });
    expect(values('$.a', { a: 1 })).toEqual([1]);
    close();
  });
});

describe('exact numbers (RFC 9535 §2.3.5.2.2 compares numbers by value)', () => {
  const rec = exact('{"id":9007199254740993,"small":1.0,"neg":-0,"f":0.1,"list":[9007199254740993]}');
  test('integers beyond 2^53 compare exactly; values keep their lexemes', () => {
    expect(values('$[?@.id == 9007199254740993]', [rec])).toHaveLength(1);
    expect(values('$[?@.id == 9007199254740992]', [rec])).toHaveLength(0);
    expect(values('$[?@.id != 9007199254740992]', [rec])).toHaveLength(1);
    expect(values('$[?@.id > 9007199254740992]', [rec])).toHaveLength(1);
    expect(values('$[?@.id < 9007199254740994]', [rec])).toHaveLength(1);
    expect(values('$[?@.id >= 9007199254740994]', [rec])).toHaveLength(0);
    expect(values('$[?@.list == $[0].list]', [rec])).toHaveLength(1);
    expect(JSON.stringify(values('$[0].id', [rec]))).toBe('[9007199254740993]');
    expect(JSON.stringify(values('$[0].small', [rec]))).toBe('[1.0]');
  });
  test('1.0 == 1, -0 == 0, 0.1 == 0.1; rawJSON internals are not members', () => {
    expect(values('$[?@.small == 1]', [rec])).toHaveLength(1);
    expect(values('$[?@.neg == 0]', [rec])).toHaveLength(1);
    expect(values('$[?@.f == 0.1]', [rec])).toHaveLength(1);
    expect(values('$.id.rawJSON', rec)).toEqual([]);
    expect(values('$.id.*', rec)).toEqual([]);
  });
  test('the fast filter path and json-p3 agree (function forces json-p3)', () => {
    for (const q of ['@.id == 9007199254740993', '@.id > 5 && @.small', '!@.missing', '@.small <= 1 || @.x == "y"']) {
      expect(values(`$[?${q}]`, [rec])).toEqual(values(`$[?(${q}) && length(@) > 0]`, [rec]));
    }
  });
});

describe('syntax errors and hints', () => {
  test('QUERY_SYNTAX_ERROR names the position and what was expected', () => {
    const e = compileError('$.a[?@.b ==]');
    expect(e.code).toBe('QUERY_SYNTAX_ERROR');
    expect(e.location!.position).toBeGreaterThan(3);
    expect(e.message).toMatch(/at character \d+: /);
    expect(compileError("$[?match(@.a, 1, 2)]").code).toBe('QUERY_SYNTAX_ERROR');
  });
  test('prefilter literals: string comparisons and names, both spellings kept by the engine', () => {
    expect(jp.compile('$[?@.status=="failed"]').requiredLiterals).toEqual(['"failed"']);
    expect(jp.compile('$[?@.a=="x" || @.b=="y"]').requiredLiterals).toEqual(['"x"', '"y"']);
    expect(jp.compile('$[?@.a=="x" || @.b > 1]').requiredLiterals).toBeUndefined();
    expect(jp.compile('$[?!(@.a=="x")]').requiredLiterals).toBeUndefined();
    expect(jp.compile('$[?@.a!="x"]').requiredLiterals).toBeUndefined();
    expect(jp.compile("$.trace_id").requiredLiterals).toEqual(['"trace_id"']);
    expect(jp.compile("$[?match(@.s, 'a.*')]").usesRegex).toBe(true);
  });
  test('match() and search() of a member against a literal select what the pattern says (RFC 9535 §2.4.6, §2.4.7)', () => {
    const records: unknown[] = [
      { status: 'failed' }, { status: 'FAILED' }, { status: 'faILed' }, { status: 'Failed ' }, { status: ' failed' }, { status: 'fail' },
      { status: 'FAİLED' }, { status: 'x\nfailed' }, { status: 'x\rfailed' }, { status: 1 }, { status: null },
      { status: ['failed'] }, { status: { a: 'failed' } }, {}, { user: { name: 'Ada' }, n: 2 }, { user: { name: 'bob' }, n: 3 }, { user: 'Ada', n: 4 },
    ];
    /** The records whose `pick(record)` is a string that `re` matches (an independent reading of the same patterns). */
    const oracle = (pick: (r: any) => unknown, re: RegExp) => records.filter((r) => { const v = pick(r); return typeof v === 'string' && re.test(v); });
    const status = (r: any) => r?.status;
    expect(values('$[?match(@.status, "[Ff][Aa][Ii][Ll][Ee][Dd]")]', records)).toEqual(oracle(status, /^[Ff][Aa][Ii][Ll][Ee][Dd]$/u));
    expect(values('$[?match(@.status, "[Ff][Aa][Ii][Ll][Ee][Dd]")]', records)).toHaveLength(3);
    expect(values('$[?search(@.status, "ai")]', records)).toEqual(oracle(status, /ai/u));
    // `.` is any character but CR and LF: "x\nfailed" and "x\rfailed" are not matched by ".*led", only searched
    expect(values('$[?match(@.status, ".*led")]', records)).toEqual(oracle(status, /^(?:(?![\r\n])\P{Cs})*led$/u));
    expect(values('$[?search(@.status, "^f")]', records)).toEqual(oracle(status, /^f/u));
    expect(values('$[?match(@.user.name, "[Aa].*")]', records)).toEqual(oracle((r) => r?.user?.name, /^[Aa].*$/u));
    expect(values('$[?!match(@.user.name, "[Aa].*") && @.n > 2]', records)).toEqual([records[15], records[16]]);
    expect(values('$[?match(@.status, "fail") || search(@.user.name, "o")]', records)).toEqual([records[5], records[15]]);
  });
  test('prefilter literals without case: a match() of a fixed pattern of ASCII letters in both cases', () => {
    const caseless = (q: string) => {
      const c = jp.compile(q);
      return c.requiredLiterals ? { exact: c.requiredLiterals } : c.requiredCaselessLiterals;
    };
    // the explorer's case-insensitive `$.status = "failed"`: the whole value, with its quotes
    expect(caseless('$[?match(@.status, "[Ff][Aa][Ii][Ll][Ee][Dd]")]')).toEqual(['"failed"']);
    // characters without case, escapes (\\. is "."; \\n a newline, JSON-encoded) and single letters join the run
    expect(caseless('$[?match(@.v, "[Ee]rr\\\\.[Xx]-1")]')).toEqual(['"err.x-1"']);
    expect(caseless('$[?match(@.v, "[Aa]\\\\n[Bb]")]')).toEqual(['"a\\nb"']);
    // a class with a non-ASCII member (KELVIN SIGN, LONG S) ends the run: its bytes differ from the letter's
    expect(caseless('$[?match(@.unit, "[Kk\u212A][Ee][Ll][Vv][Ii][Nn]")]')).toEqual(['elvin"']);
    expect(caseless('$[?match(@.w, "[Ss\u017F][Tt][Aa][Tt][Uu][Ss\u017F]")]')).toEqual(['tatu']);
    expect(caseless('$[?match(@.w, "[Ss\u017F]")]')).toBeUndefined();
    // dotless and dotted capital I have no simple folding to i: [Ii] is ASCII
    expect(caseless('$[?match(@.w, "[Ii][Ll][Ii][Kk\u212A]")]')).toEqual(['"ili']);
    // `.`, ranges, negated classes, \\p{…}: not one character; quantifiers: not a fixed pattern
    expect(caseless('$[?match(@.w, "[Aa].[Bb][Cc]")]')).toEqual(['bc"']);
    expect(caseless('$[?match(@.w, "[a-c][Xx]")]')).toEqual(['x"']);
    expect(caseless('$[?match(@.w, "[^a]\\\\p{Lu}")]')).toBeUndefined();
    expect(caseless('$[?match(@.w, "[Aa]+")]')).toBeUndefined();
    expect(caseless('$[?match(@.w, "[Aa][Bb]") || @.x == "Q"]')).toEqual(['"ab"', '"q"']);
    expect(caseless('$[?match(@.w, "[Aa][Bb]") && @.x == "Quux"]')).toEqual({ exact: ['"Quux"'] });
    expect(caseless('$[?!match(@.w, "[Aa][Bb]")]')).toBeUndefined();
    expect(caseless('$[?search(@.w, "[Aa][Bb]")]')).toBeUndefined();
  });
});
