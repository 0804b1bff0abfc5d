/**
 * The record check in WebAssembly SIMD against the one in JavaScript (readRecord) and against JSONTestSuite: the same
 * verdict (OK, MALFORMED, TOO_DEEP), the same member spans and repeated-name flag on every OK record, on generated
 * texts and their mutations, on every test_parsing file, and at the edges of a stretch (a record never read past its
 * end, however the caller's bytes go on).
 */
import * as fs from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { MALFORMED, OK, readRecord, slotPlan, TOO_DEEP, type SlotPlan } from '../../src/engine/aggregate/extract';
import { FALLBACK, MAX_STRETCH_BYTES, SimdRecordCheck } from '../../src/engine/aggregate/check-simd';
import { genValue, mutate, NAMES, rng } from '../helpers/json-gen';
import { sharedPath, skipMissing } from '../helpers/shared';

/** Both checks of b[s, e) (the stretch [lo, hi) loaded): [verdict, spans, dup] of each; FALLBACK goes to readRecord. */
function both(check: SimdRecordCheck, plan: SlotPlan, b: Buffer, s: number, e: number, lo = s, hi = e) {
  const js = readRecord(b, s, e, plan);
  const jsOut = [js, js === OK ? [...plan.spans] : null, js === OK ? plan.dup : null];
  const loaded = check.load(b, lo, hi);
  if (loaded !== true) expect(loaded).toBe(true);
  let st = check.check(s, e, plan);
  const fellBack = st === FALLBACK;
  if (fellBack) st = readRecord(b, s, e, plan);
  return { js: jsOut, simd: [st, st === OK ? [...plan.spans] : null, st === OK ? plan.dup : null], fellBack };
}

/**
 * expect([text, got]).toEqual([text, want]) for the generated cases: the same failure, but compared as JSON first (the
 * outcomes are arrays of numbers, booleans and null), so that thousands of agreeing cases do not each pay for jest's
 * deep equality.
 */
function agree(text: string, got: unknown, want: unknown): void {
  if (JSON.stringify(got) !== JSON.stringify(want)) expect([text, got]).toEqual([text, want]);
}

const stringTops = (maxDepth: number) => slotPlan([['status'], ['a'], ['user', 'a'], ['st"x'], ['é'], ['__proto__'], [''], ['b/c'], ['01'], ['user']], maxDepth);

describe('the record check in WebAssembly SIMD', () => {
  const plan = stringTops(50);
  const check = SimdRecordCheck.create(plan)!;

  test('is available here (Node 22 has WebAssembly SIMD), and not for plans with negative indexes', () => {
    expect(check).not.toBeNull();
    expect(SimdRecordCheck.create(slotPlan([['a'], [-1]], 50))).toBeNull();
  });

  test('a top that is an index ("0" as a pointer gives it, or 0) is the member "0" of an object record; an array record falls back', () => {
    for (const tops of [[['a'], ['0'], ['status']], [['a'], [0], ['status']]]) {
      const p = slotPlan(tops, 50);
      const c = SimdRecordCheck.create(p)!;
      expect(c).not.toBeNull();
      // The values at tops a, 0 and status, as text, by both checks; and whether the SIMD one fell back.
      const one = (text: string) => {
        const b = Buffer.from(text);
        const out = both(c, p, b, 0, b.length);
        expect(out.simd).toEqual(out.js);
        const spans = out.js[1] as number[];
        // an object record's members are the tops' spans, an array record's elements the indexes' (after the tops)
        const array = text.trim().startsWith('[');
        const at = (w: number) => (array ? (p.slotIndex[w]! < 0 ? -1 : p.tops.length + p.slotIndex[w]!) : p.slotTop[w]!);
        return { values: [0, 1, 2].map((w) => (at(w) < 0 || spans[2 * at(w)]! < 0 ? null : text.slice(spans[2 * at(w)], spans[2 * at(w) + 1]))), dup: out.js[2], fellBack: out.fellBack };
      };
      expect(one('{"0":[1,2],"a":"x","0":3}')).toEqual({ values: ['"x"', '3', null], dup: true, fellBack: false });
      expect(one('{"0":[1,2],"a":"x","\\u0030":3}')).toEqual({ values: ['"x"', '3', null], dup: true, fellBack: true }); // an escaped name: readRecord
      expect(one('{"a":1,"0":{"b":2}}')).toEqual({ values: ['1', '{"b":2}', null], dup: false, fellBack: false });
      expect(one(' [7,{"a":1}]')).toEqual({ values: [null, '7', null], dup: false, fellBack: true });
      const r = rng(23);
      for (let n = 0; n < 5000; n++) {
        let text = genValue(r, 0);
        if (r() < 0.3) text = `{"0":${text},"status":${genValue(r, 1)}}`;
        if (r() < 0.5) text = mutate(r, text);
        const b = Buffer.from(text);
        const out = both(c, p, b, 0, b.length);
        agree(text, out.simd, out.js);
      }
    }
  });

  test('RFC 9535 selectors as tops: a name selector {name: "0"} is the member "0" only, an index selector {index: 0} element 0 only', () => {
    const p = slotPlan([['a'], [{ name: '0' }], [{ index: 0 }], [{ index: 1 }, 'b']], 50);
    expect([p.tops, p.indexes]).toEqual([['a', '0'], [0, 1]]);
    const c = SimdRecordCheck.create(p)!;
    expect(c).not.toBeNull();
    const r = rng(29);
    for (let n = 0; n < 3000; n++) {
      let text = genValue(r, 0);
      if (r() < 0.3) text = r() < 0.5 ? `{"0":${text},"a":${genValue(r, 1)}}` : `[${text},{"b":${genValue(r, 1)}}]`;
      if (r() < 0.3) text = mutate(r, text);
      const b = Buffer.from(text);
      const out = both(c, p, b, 0, b.length);
      agree(text, out.simd, out.js);
      if (out.js[0] === OK) {
        const spans = out.js[1] as number[];
        // an object record fills no element span, an array record no member span
        const v = JSON.parse(text) as unknown;
        const filled = (k: number) => spans[2 * k]! >= 0;
        if (Array.isArray(v)) expect([text, filled(0), filled(1), filled(2), filled(3)]).toEqual([text, false, false, v.length > 0, v.length > 1]);
        else if (v !== null && typeof v === 'object') expect([text, filled(1), filled(2), filled(3)]).toEqual([text, '0' in v, false, false]);
      }
    }
  });

  test('its module is compiled once per names and bound, and a copy posted to another thread checks as the original', async () => {
    const m = SimdRecordCheck.module(plan)!;
    expect(m).toBeInstanceOf(WebAssembly.Module);
    expect(SimdRecordCheck.module(stringTops(50))).toBe(m); // an equal plan: the same module
    expect(SimdRecordCheck.module(stringTops(49))).not.toBe(m); // another bound: another module
    expect(SimdRecordCheck.module(slotPlan([['a'], [-1]], 50))).toBeNull();
    // What a worker thread gets: the module through postMessage (a structured clone of it).
    const { port1, port2 } = new MessageChannel();
    const got = new Promise<unknown>((resolve) => { port2.onmessage = (ev) => resolve(ev.data); });
    port1.postMessage(m);
    const copy = await got;
    port1.close();
    expect(Object.prototype.toString.call(copy)).toBe('[object WebAssembly.Module]'); // of the thread's own realm
    expect(copy).not.toBe(m);
    const posted = SimdRecordCheck.create(plan, copy as never)!;
    const r = rng(23);
    for (let n = 0; n < 3000; n++) {
      const text = r() < 0.5 ? mutate(r, genValue(r, 0)) : `{"status":${genValue(r, 1)},"a":1}`;
      const b = Buffer.from(text);
      const mine = both(check, plan, b, 0, b.length);
      agree(text, both(posted, plan, b, 0, b.length).simd, mine.simd);
    }
  });

  test('agrees with readRecord on 30,000 generated texts and mutations: verdict, member spans, repeated names', () => {
    const r = rng(19);
    let ok = 0, bad = 0, fallback = 0;
    for (let n = 0; n < 30000; n++) {
      let text = genValue(r, 0);
      if (r() < 0.3) text = `{${JSON.stringify(NAMES[Math.floor(r() * NAMES.length)])}:${text},"status":${genValue(r, 1)}}`;
      if (r() < 0.5) text = mutate(r, text);
      if (r() < 0.2) text = ` ${text}\t`;
      // Records inside a longer buffer, the stretch loaded with neighbours (as a batch of JSON Lines is).
      const b = Buffer.from(`{"x":1}\n${text}\n"tail"`);
      const s = 8, e = b.length - 7;
      const out = both(check, plan, b, s, e, 0, b.length);
      agree(text, out.simd, out.js);
      if (out.fellBack) fallback++;
      if (out.js[0] === OK) ok++; else bad++;
    }
    expect(ok).toBeGreaterThan(8000);
    expect(bad).toBeGreaterThan(8000);
    expect(fallback).toBeGreaterThan(100); // a top-level name with an escape is read by readRecord
    expect(fallback).toBeLessThan(ok / 2);
  });

  test('nesting: TOO_DEEP past the bound, also inside a member; a bracket too many or too few is MALFORMED', () => {
    for (const [text, want] of [
      ['['.repeat(51) + ']'.repeat(51), TOO_DEEP], ['['.repeat(50) + ']'.repeat(50), OK], [`{"a":${'['.repeat(49)}${']'.repeat(49)}}`, OK],
      [`{"a":${'['.repeat(50)}${']'.repeat(50)}}`, TOO_DEEP], ['[[]', MALFORMED], ['[]]', MALFORMED], ['{"a":[}', MALFORMED], ['[{]}', MALFORMED],
    ] as const) {
      const b = Buffer.from(text);
      expect([text, both(check, plan, b, 0, b.length).simd[0]]).toEqual([text, want]);
    }
  });

  test('the members: spans of the last of a repeated name, dup set; a name with an escape falls back', () => {
    const b = Buffer.from('{"status":1,"a":[2,{"status":3}],"status" : "x" , "user":{"a":4}}');
    expect(check.load(b, 0, b.length)).toBe(true);
    expect(check.check(0, b.length, plan)).toBe(OK);
    const at = (w: string) => { const k = plan.tops.indexOf(w); return b.toString('utf8', plan.spans[2 * k], plan.spans[2 * k + 1]); };
    expect([at('status'), at('a'), at('user'), plan.dup]).toEqual(['"x"', '[2,{"status":3}]', '{"a":4}', true]);
    const c = Buffer.from('{"st\\"x":1,"\\u0061":2}');
    expect(check.load(c, 0, c.length)).toBe(true);
    expect(check.check(0, c.length, plan)).toBe(FALLBACK);
    const d = Buffer.from('{"x":{"\\u0061":1},"a":2}'); // escapes below the top level do not matter
    expect(check.load(d, 0, d.length)).toBe(true);
    expect(check.check(0, d.length, plan)).toBe(OK);
    expect(plan.dup).toBe(false);
  });

  test('never reads past the end of a record, whatever bytes follow it in the caller\'s buffer or in memory', () => {
    for (const [text, next] of [['"abc', '"'], ['{"a":"x', '"}'], ['[1,2', ']'], ['-', '1'], ['1.', '5'], ['1e', '5'], ['tru', 'e'], ['"\\', 'n"'], ['"\\u00', 'e9"'], ['{"a":1', '}']]) {
      // long strings too: the 16-byte steps cross the end
      for (const pad of ['', 'x'.repeat(13), 'y'.repeat(40)]) {
        const t = text.startsWith('"') || text.startsWith('{"a":"') ? text.replace(/^("|\{"a":")/, `$1${pad}`) : text;
        const b = Buffer.from(t + next);
        const out = both(check, plan, b, 0, t.length, 0, t.length);
        expect([t, out.simd[0]]).toEqual([t, MALFORMED]);
        const wide = both(check, plan, b, 0, t.length, 0, b.length); // the stretch holds the next bytes
        expect([t, wide.simd[0]]).toEqual([t, MALFORMED]);
      }
    }
  });

  test('a stretch of many records anywhere in the caller\'s buffer; memory grows for a long one; over the bound it is refused', () => {
    const r = rng(5);
    const records: string[] = [];
    let size = 0;
    // 1 MiB: the memory (a page past its layout at first) grows to hold it
    while (size < 1024 * 1024) { const t = genValue(r, 0); records.push(t); size += t.length + 1; }
    const b = Buffer.from('junk\n' + records.join('\n') + '\n');
    expect(check.load(b, 5, b.length - 1)).toBe(true);
    let s = 5, agree = 0;
    for (const t of records) {
      const e = s + Buffer.byteLength(t);
      const js = readRecord(b, s, e, plan);
      let st = check.check(s, e, plan);
      if (st === FALLBACK) st = readRecord(b, s, e, plan);
      if (st === js) agree++;
      s = e + 1;
    }
    expect(agree).toBe(records.length);
    const big = Buffer.alloc(MAX_STRETCH_BYTES + 2, 0x20);
    expect(check.load(big, 0, big.length)).toBe(false);
  });

  test('a stretch on a SharedArrayBuffer, at every alignment: the verdicts, spans and repeated-name flags of readRecord', () => {
    const r = rng(11);
    const records: string[] = [];
    for (let k = 0; k < 400; k++) records.push(k % 5 === 0 ? mutate(r, genValue(r, 0)) : genValue(r, 0));
    const text = Buffer.from(records.join('\n'));
    for (let at = 0; at < 16; at++) {
      // the same bytes at offset `at` of a shared buffer, and a stretch that starts inside it (the records from the second)
      const b = Buffer.from(new SharedArrayBuffer(text.length + 32), 3, text.length + 29);
      text.copy(b, at);
      const lo = at + Buffer.byteLength(records[0]!) + 1;
      expect(check.load(b, lo, at + text.length)).toBe(true);
      let s = lo;
      for (const t of records.slice(1)) {
        const e = s + Buffer.byteLength(t);
        const js = readRecord(b, s, e, plan);
        const jsOut = [js, js === OK ? [...plan.spans] : null, js === OK ? plan.dup : null];
        let st = check.check(s, e, plan);
        if (st === FALLBACK) st = readRecord(b, s, e, plan);
        agree(`${at}:${s}`, [st, st === OK ? [...plan.spans] : null, st === OK ? plan.dup : null], jsOut);
        s = e + 1;
      }
    }
  });
});

const dir = sharedPath('conformance/JSONTestSuite/test_parsing');
if (!dir) skipMissing('conformance/JSONTestSuite/test_parsing');
(dir ? describe : () => undefined)('the SIMD record check and JSONTestSuite', () => {
  const plan = stringTops(2000); // the default nesting bound
  const check = SimdRecordCheck.create(plan)!;
  const files = dir ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort() : [];
  /** A record is checked when its bytes are UTF-8 (checked per batch) and the check says OK. */
  const accepts = (b: Buffer) => {
    if (!check.load(b, 0, b.length)) throw new Error('not loaded');
    let st = check.check(0, b.length, plan);
    if (st === FALLBACK) st = readRecord(b, 0, b.length, plan);
    return isUtf8(b) && st === OK;
  };

  test('accepts every y_ file, rejects every n_ file, and decides every i_ file as readRecord does', () => {
    const wrong: string[] = [];
    for (const f of files) {
      const b = fs.readFileSync(`${dir}/${f}`);
      const got = accepts(b);
      const want = f.startsWith('y_') ? true : f.startsWith('n_') ? false : isUtf8(b) && readRecord(b, 0, b.length, plan) === OK;
      if (got !== want) wrong.push(f);
    }
    expect(files.length).toBe(318);
    expect(wrong).toEqual([]);
  });
});
