/**
 * Property tests: every shortcut agrees with the full parse, for every legal spelling of the same JSON and for lines
 * that are not one JSON value. Shortcuts: the engine's byte prefilter and on-demand member reads (pages and counts,
 * main thread and worker threads), the member walker itself, the structural scanner that frames the records of a
 * top-level array, and the explorer's text matcher (byte prefilter and token walk).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import jsonFormat from '../../format-json/src/index';
import jsonl from '../../format-jsonl/src/index';
import type { Format, QueryLanguage } from '../../../src/kernel/contracts';
import { JsonScanError, JsonStructureScanner } from '../../../src/engine/records/json-scan';
import { parseExact } from '../../../src/engine/records/parse';
import { readMembers } from '../../../src/engine/scan/members';
import { parseKeepingLexemes, TextMatcher } from '../src/search/text-matcher';
import { mergeRepeatedNames, objectsRepeatingNames } from '../src/json/scan';
import { fileService, formatsOf } from '../../../test/helpers/formats';
import { engine, jsonpath, threadedEngine } from '../../../test/helpers/query';
import { engineThreads } from '../../../src/engine/scan/engine-threads';

let dir: string;
let formats: Format[];
let jp: QueryLanguage;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-answers-fast-'));
  formats = [...(await formatsOf(jsonl)), ...(await formatsOf(jsonFormat))];
  jp = await jsonpath();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const site = () => ({ byteOffset: 0, line: 1, column: 1, recordIndex: 0, maxDepth: 2000 });
/** The full parse: the value, or null for text that is not one JSON value. */
const full = (text: string): { v: unknown } | null => {
  try { return { v: parseExact(text, site, 2000) }; } catch { return null; }
};

/** A JSON string literal for `s`: each character plain, `\uXXXX`, or (for `/`) `\/`, at random. */
const spelled = (s: string, escapes: boolean[]) => {
  let out = '"';
  [...s].forEach((ch, i) => {
    const esc = escapes[i % Math.max(1, escapes.length)];
    if (ch === '"' || ch === '\\') out += esc ? '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0') : '\\' + ch;
    else if (ch === '/' && esc) out += i % 2 ? '\\/' : '\\u002f';
    else if (esc && ch.length === 1) out += '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');
    else if (ch < ' ') out += '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');
    else out += ch;
  });
  return out + '"';
};

/** Blanks inside a line (a JSON Lines record holds no newline). */
const ws = fc.constantFrom('', '', ' ', '\t', ' \t ');
const escapes = fc.array(fc.boolean(), { minLength: 1, maxLength: 4 });
const word = fc.constantFrom('failed', 'ok', 'a/b', 'Straße', 'σ', 'x"y', '𝄞', '');
const numberLexeme = fc.constantFrom('0', '-0', '1', '2', '1.0', '2.0e0', '20e-1', '1e3', '1E2', '99.5', '9007199254740993', '0.1');
const scalar = fc.oneof(fc.tuple(word, escapes).map(([w, e]) => spelled(w, e)), numberLexeme, fc.constantFrom('true', 'false', 'null'));
/** Member names: plain or escaped spellings of the same few names, `a/b` and `a` among them. */
const key = fc.tuple(fc.constantFrom('id', 'status', 'a/b', 'a', 'tags', 'x'), escapes).map(([k, e]) => spelled(k, e));
const value = fc.oneof({ weight: 5, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }).map((a) => `[${a.join(',')}]`) },
  { weight: 1, arbitrary: fc.tuple(key, scalar).map(([k, v]) => `{${k}:${v}}`) });
/** An object; names may repeat (the last value wins, as in the full parse). */
const object = fc.tuple(fc.array(fc.tuple(key, value, ws, ws), { maxLength: 6 }), ws)
  .map(([ms, w]) => `{${w}${ms.map(([k, v, a, b]) => `${k}${a}:${b}${v}`).join(`,${w}`)}${w}}`);
/** Text that is one object followed by more data (`{…} {…}`, `{…}, {…}`, `{…}garbage`): never one JSON value. */
const more = fc.tuple(object, object, fc.constantFrom(' ', ', ', '', 'garbage', ']', '}', ' 1')).map(([a, b, sep]) => (/^[a-z\]}]|^ 1$/.test(sep) ? a + sep : a + sep + b));
/** A line: one object, or one object followed by more data, or a cut object. */
const line = fc.oneof({ weight: 3, arbitrary: object }, { weight: 1, arbitrary: more }, { weight: 1, arbitrary: object.map((o) => o.slice(0, Math.max(1, o.length - 1))) });

const QUERIES = [
  '$[?@.id == 2]', '$[?@.id == 2.0].status', '$[?@.status == "failed"]', '$[?@["a/b"] == "ok"]', '$[?@["a/b"]]',
  '$[?@.a == 1 || @.status == "σ"]', '$[?@.id > 1 && @.x]', '$[?!@.id]', '$[*]["a/b"]', '$..a',
];

/** One engine of each kind for the whole file: a server's engine serves call after call (its threads kept idle between scans). */
let single: ReturnType<typeof engine> | undefined;
let pooled: ReturnType<typeof threadedEngine> | undefined;
let threads: ReturnType<typeof engineThreads> | undefined;
afterAll(() => threads?.close());

/** Each query compiled once for the full parse's answer (the engine's runs below compile their own, as a call does). */
const references = new Map<string, ReturnType<QueryLanguage['compile']>>();
const referenceQuery = (q: string) => {
  let c = references.get(q);
  if (!c) references.set(q, (c = jp.compile(q)));
  return c;
};

async function agree(lines: string[], threaded: boolean): Promise<void> {
  const name = `p${Math.random().toString(36).slice(2)}.jsonl`;
  fs.writeFileSync(path.join(dir, name), lines.join('\n') + '\n');
  const f = await fileService(dir, formats).open(name, { format: 'jsonl' });
  // The answer the full parse gives: every record that is one JSON value, evaluated whole; the others are skipped.
  const parsed = lines.map(full);
  try {
    for (const q of threaded ? QUERIES.filter((_q, i) => i % 3 === 0) : QUERIES) {
      const expected: string[] = [];
      const records = new Set<number>();
      const reference = referenceQuery(q);
      parsed.forEach((p, i) => {
        if (!p) return;
        for (const n of reference.evaluate([p.v])) {
          expected.push(`/${i}${n.path.slice(2)}=${JSON.stringify(n.value)}`);
          records.add(i);
        }
      });
      const run = () => (threaded ? (pooled ??= threadedEngine({}, 1, 0, (threads = engineThreads({ keep: 1 })))) : (single ??= engine()));
      const whole = await run().run({ source: f.source, query: jp.compile(q), addressing: 'file' });
      expect([q, whole.nodes.map((n) => `${n.path}=${JSON.stringify(n.value)}`)]).toEqual([q, expected]);
      // A page of one record and the count past it (records counted without their values being read).
      const page = await run().run({ source: f.source, query: jp.compile(q), addressing: 'file', unit: 'records', limit: 1, countAll: true });
      expect([q, page.total, page.nodes.map((n) => n.record)]).toEqual([q, records.size, [...records].slice(0, 1)]);
      expect([q, page.next?.record ?? null]).toEqual([q, [...records][1] ?? null]);
    }
  } finally {
    f.close();
    fs.rmSync(path.join(dir, name));
  }
}

describe('the scan engine agrees with the full parse', () => {
  test('main thread: byte prefilter, on-demand member reads, fast filters; pages, counts and next positions', async () => {
    await fc.assert(fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 12 }), (lines) => agree(lines, false)), { numRuns: 200 });
  });
  test('worker threads', async () => {
    await fc.assert(fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 30 }), (lines) => agree(lines, true)), { numRuns: 3 });
  }, 180_000);
  test('C23 lines and escaped names, written out', async () => {
    await agree(['{"id":1,"s":"ok"}', '{"id":1,"s":"x"} {"id":2,"s":"y"}', '{"id":2,"s":"ok"}', '{"id":1}, {"id":2}', '{"id":3,"s":"ok"}garbage'], false);
    await agree(['{"a\\/b":"ok"}', '{"a/b":"no","a\\/b":"ok"}', '{"a\\u002fb":"ok","id":2}', '{"\\u0061":1}', '{"id":2,"id":1}'], false);
  });
});

describe('the member walker agrees with the full parse', () => {
  test('readMembers gives the full parse\'s members (last duplicate wins) or declines; never another value', () => {
    const names = [['id'], ['a/b'], ['a', 'id'], ['status', 'x', 'a/b']];
    fc.assert(fc.property(line, fc.constantFrom(...names), (text, wanted) => {
      const b = Buffer.from(text);
      const got = readMembers(b, 0, b.length, wanted, 2000);
      const p = full(text);
      if (got === undefined || !p) return; // declined (the caller parses), or not one value: the engine then parses
      const obj = p.v as Record<string, unknown>;
      const want = Object.fromEntries(wanted.filter((n) => Object.prototype.hasOwnProperty.call(obj, n) && (obj[n] === null || typeof obj[n] !== 'object')).map((n) => [n, obj[n]]));
      const gotPlain = Object.fromEntries(Object.entries(got).filter(([, v]) => v === null || typeof v !== 'object'));
      expect([text, JSON.stringify(gotPlain, Object.keys(want).sort())]).toEqual([text, JSON.stringify(want, Object.keys(want).sort())]);
    }), { numRuns: 5000 });
  });
});

describe('the structural scanner agrees with the full parse', () => {
  const scanOk = (text: string): boolean => {
    const b = Buffer.from(text);
    const s = new JsonStructureScanner({ captureDepth: 1 });
    try {
      s.feed(b, b.length, 0);
      s.finish(b.length);
      return true;
    } catch (err) {
      if (err instanceof JsonScanError) return false;
      throw err;
    }
  };
  test('text the full parse accepts is framed; one value followed by more data never is', () => {
    fc.assert(fc.property(object, (text) => expect([text, full(text) !== null, scanOk(text)]).toEqual([text, true, true])), { numRuns: 2000 });
    fc.assert(fc.property(more, (text) => expect([text, full(text), scanOk(text)]).toEqual([text, null, false])), { numRuns: 2000 });
    for (const t of ['{"id":1} {"id":2}', '{"id":1}, {"id":2}', '{"id":1}garbage', '{"a":1}}', '[1] 2', '"a" "b"', '1 2']) expect([t, scanOk(t)]).toEqual([t, false]);
  });

  test('a top-level array file: the records are exactly the full parse\'s elements', async () => {
    await fc.assert(fc.asyncProperty(fc.array(object, { minLength: 0, maxLength: 8 }), ws, async (objs, w) => {
      const text = `${w}[${w}${objs.join(`${w},${w}`)}${w}]${w}`;
      const name = `a${Math.random().toString(36).slice(2)}.json`;
      fs.writeFileSync(path.join(dir, name), text);
      const f = await fileService(dir, formats).open(name);
      try {
        const elements = (full(text)!.v as unknown[]);
        expect(f.source.count).toBe(elements.length);
        for (let i = 0; i < elements.length; i++) expect(JSON.stringify(f.source.value(i))).toBe(JSON.stringify(elements[i]));
      } finally {
        f.close();
        fs.rmSync(path.join(dir, name));
      }
    }), { numRuns: 100 });
  });
});

describe('the text matcher agrees with a search of the fully parsed record', () => {
  /** Member names and string values of the parsed record (last duplicate wins), numbers and literals by lexeme. */
  function tokens(text: string): string[] {
    const out: string[] = [];
    const lexemes: string[] = [];
    JSON.parse(text, (_k, v, ctx?: { source?: string }) => { if ((v === null || typeof v === 'number' || typeof v === 'boolean') && ctx?.source) lexemes.push(ctx.source); return v; });
    const walk = (v: unknown) => {
      if (typeof v === 'string') out.push(v);
      else if (Array.isArray(v)) v.forEach(walk);
      else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) { out.push(k); walk(x); }
    };
    walk(JSON.parse(text));
    return [...out, ...lexemes];
  }
  test('candidates() and match() find exactly the records a decoded search finds (duplicates: the surviving member)', () => {
    const needle = fc.constantFrom('1.0', 'e3', 'fail', 'OK', 'a/b', 'STRASSE', 'straße', 'Σ', 'x"y', '𝄞', '2', 'true', 'null', 'A', '.0');
    fc.assert(fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), needle, fc.boolean(), (lines, q, matchCase) => {
      const bytes = Buffer.from(lines.join('\n') + '\n');
      const spans: [number, number][] = [];
      let at = 0;
      for (const l of lines) { const n = Buffer.byteLength(l); spans.push([at, at + n]); at += n + 1; }
      const batch = {
        first: 0, count: lines.length, bytes, span: (k: number) => spans[k]!,
        recordAt: (o: number) => spans.findIndex(([s, e]) => o >= s && o < e),
        text: (k: number) => lines[k]!,
      };
      const m = new TextMatcher(q, matchCase);
      const found: number[] = [];
      m.candidates(batch as never, (k) => { if (full(lines[k]!) && m.match(lines[k]!, parseKeepingLexemes(lines[k]!))) found.push(k); });
      const re = new RegExp(q.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), matchCase ? 'u' : 'iu');
      const expected = lines.map((l, k) => (full(l) && tokens(l).some((t) => re.test(t)) ? k : -1)).filter((k) => k >= 0);
      expect([lines, q, matchCase, found]).toEqual([lines, q, matchCase, expected]);
    }), { numRuns: 3000 });
  });
});

describe('record text shows what the parsed record holds', () => {
  test('mergeRepeatedNames: the full parse of the text, names once at their first position, lexemes kept', () => {
    const nested = fc.tuple(object, object, key).map(([a, b, k]) => `{${k}:${a},"z":[${b},${a}],${k}:${b}}`);
    fc.assert(fc.property(fc.oneof(object, nested), (text) => {
      const merged = mergeRepeatedNames(text);
      const p = parseExact(text, site, 2000);
      const q = parseExact(merged, site, 2000);
      // Same value, same key order (JSON.stringify keeps both), and no name repeated any more.
      expect([text, JSON.stringify(q)]).toEqual([text, JSON.stringify(p)]);
      expect(objectsRepeatingNames(merged)).toEqual([]);
      if (objectsRepeatingNames(text).length === 0) expect(merged).toBe(text);
    }), { numRuns: 3000 });
  });
});
