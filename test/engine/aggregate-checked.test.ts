/**
 * Records an aggregate found well-formed are read by the next one over the same names without being checked again
 * (src/engine/scan/checked.ts, findTops). Repeated aggregates must give the same answer as the first and as JSON.parse
 * read independently here — every malformed record still skipped and reported, every call — and the shortcut must
 * find exactly the members the full check finds.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import jsonl from '../../plugins/format-jsonl/src/index';
import type { AggregateOptions, AggregateResult, Format, RecordSource } from '../../src/kernel/contracts';
import { findTops, OK, readRecord, slotPlan } from '../../src/engine/aggregate/extract';
import { checkedKey, checkedMarks } from '../../src/engine/scan/checked';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { fileService, formatsOf } from '../helpers/formats';
import { aggregateEngine, engine } from '../helpers/query';

let dir: string;
let formats: Format[];
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-checked-'));
  formats = await formatsOf(jsonl);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Lines as bytes: most records plain, then every spelling and fault that a shortcut could get wrong. */
function lines(): Buffer[] {
  const out: Buffer[] = [];
  const statuses = ['ok', 'failed', 'Ünïcode', '😀', 'a"b'];
  for (let i = 0; i < 3000; i++) {
    const st = JSON.stringify(statuses[i % statuses.length]);
    const kind = i % 50;
    let text: string | Buffer;
    if (kind === 1) text = `{"id":${i},"st\\u0061tus":${st}}`; // the name spelled with an escape
    else if (kind === 2) text = `{"id":${i},"status":"decoy","x":1,"status":${st}}`; // repeated: the last one counts
    else if (kind === 3) text = `{"a":{"status":"inner"},"msg":"x \\"status\\": \\"fake\\"","status":${st}}`; // nested, and inside a string
    else if (kind === 4) text = `{"id":${i},"status":${st}} {"x":1}`; // more data after the value: malformed
    else if (kind === 5) text = `{"id":${i},"status":"tab\there"}`; // a raw control character in a string: malformed
    else if (kind === 6) text = Buffer.concat([Buffer.from(`{"id":${i},"status":"bad `), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]); // invalid UTF-8
    else if (kind === 7) text = `{"id":${i},"deep":${'['.repeat(DEFAULT_LIMITS.maxDepth + 5)}${']'.repeat(DEFAULT_LIMITS.maxDepth + 5)},"status":${st}}`; // past the nesting bound
    else if (kind === 8) text = `{"id":${i}}`; // missing
    else if (kind === 9) text = `{"id":${i},"status":null}`;
    else if (kind === 10) text = `{"id":${i},"status":${st},"stätus":"x","STATUS":"y"}`; // near names
    else if (kind === 11) text = `{ "id" : ${i} , "status" : ${st} }`; // whitespace everywhere
    else if (kind === 12) text = `[${st}]`; // not an object
    else text = `{"id":${i},"ts":"2025-01-01T00:00:00Z","status":${st},"msg":"caf\\u00e9 ${'x'.repeat(i % 300)}","n":${i}.5e1}`;
    out.push(Buffer.isBuffer(text) ? text : Buffer.from(text));
  }
  return out;
}

/** Expected counts by status, read here: a strict UTF-8 decode and JSON.parse (last member wins), depth bounded. */
function expected(): { counts: Map<string, number>; malformed: number[] } {
  const counts = new Map<string, number>();
  const malformed: number[] = [];
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const depth = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v as object).map(depth)) : 0);
  lines().forEach((b, i) => {
    let v: unknown;
    try { v = JSON.parse(utf8.decode(b)); } catch { malformed.push(i); return; }
    if (depth(v) > DEFAULT_LIMITS.maxDepth) { malformed.push(i); return; }
    const st = v !== null && typeof v === 'object' && !Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, 'status') ? JSON.stringify((v as Record<string, unknown>).status) : 'missing';
    counts.set(st, (counts.get(st) ?? 0) + 1);
  });
  return { counts, malformed };
}

const groupsOf = (r: AggregateResult) => new Map(r.groups.map((g) => [g.missing.includes(0) ? 'missing' : JSON.stringify(g.key[0]), g.count]));
const spec = (source: RecordSource): AggregateOptions => ({ source, dimensions: [{ kind: 'value', path: ['status'] }], metrics: [], order: { by: 'count', desc: true } });

describe.each([['this thread', () => engine()], ['worker threads', () => aggregateEngine()]] as const)('repeated aggregates on %s', (name, make) => {
  test('the second and third answers equal the first and the independent count; malformed records are reported every time', async () => {
    fs.writeFileSync(path.join(dir, `${name}.jsonl`), Buffer.concat(lines().flatMap((b) => [b, Buffer.from('\n')])));
    const source = (await fileService(dir, formats).open(`${name}.jsonl`)).source;
    const eng = make();
    const want = expected();
    expect(want.malformed.length).toBe(240); // kinds 4, 5, 6, 7
    const answers: AggregateResult[] = [];
    for (let run = 0; run < 3; run++) answers.push(await eng.aggregate(spec(source)));
    for (const r of answers) {
      expect(groupsOf(r)).toEqual(want.counts);
      expect(r.skipped).toBe(want.malformed.length);
      expect(r.firstSkipped.map((s) => s.record_index)).toEqual(want.malformed.slice(0, 5));
      expect(r.recordsMatched).toBe(3000 - want.malformed.length);
    }
    expect(groupsOf(answers[0]!).get('"decoy"')).toBeUndefined();
    // Marked: exactly the well-formed records whose status is not repeated, but the last (a growing file may continue it).
    const marks = checkedMarks(source, checkedKey(['status'], DEFAULT_LIMITS.maxDepth))!;
    const bad = new Set(want.malformed);
    const marked = [...marks.keys()].filter((i) => marks[i] === 1);
    expect(marked).toEqual([...Array(2999).keys()].filter((i) => !bad.has(i) && i % 50 !== 2));
  });

  test('a file that grew: its last record was continued by the appended bytes and is checked again', async () => {
    const file = path.join(dir, `growing-${name}.jsonl`);
    fs.writeFileSync(file, '{"status":"a"}\n{"status":"b"}\n{"status":"c"}'); // the last line not ended yet
    const source = (await fileService(dir, formats).open(`growing-${name}.jsonl`)).source;
    const eng = make();
    const before = await eng.aggregate(spec(source));
    expect(groupsOf(before)).toEqual(new Map([['"a"', 1], ['"b"', 1], ['"c"', 1]]));
    fs.appendFileSync(file, ',"status":"d"}\n'); // the last line becomes {"status":"c"},"status":"d"}: malformed
    const st = fs.statSync(file);
    expect(source.grow!({ size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, inode: st.ino, dev: st.dev })).toBe(true);
    for (let run = 0; run < 2; run++) {
      const after = await eng.aggregate(spec(source));
      expect(groupsOf(after)).toEqual(new Map([['"a"', 1], ['"b"', 1]]));
      expect(after.skipped).toBe(1);
      expect(after.firstSkipped.map((x) => x.record_index)).toEqual([2]);
    }
    expect([...checkedMarks(source, checkedKey(['status'], DEFAULT_LIMITS.maxDepth))!]).toEqual([1, 1]);
  });
});

describe('findTops, the shortcut for checked records', () => {
  test('finds the spans the full check finds, for records with each wanted name once (property)', () => {
    const key = fc.constantFrom('status', 'st\\u0061tus', 'a', 'stat', 'statuses', 'ü', 'id', 'x\\"y');
    const scalar = fc.oneof(fc.constant('null'), fc.constant('true'), fc.integer().map(String), fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)), fc.string().map((s) => JSON.stringify(s)));
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('v'), { maxLength: 3 }).map((a) => `[${a.join(' , ')}]`), fc.array(fc.tuple(key, tie('v')), { maxLength: 3 }).map((m) => `{${m.map(([k, x]) => `"${k}":${x}`).join(',')}}`)),
    })).v as fc.Arbitrary<string>;
    const ws = fc.constantFrom('', ' ', '\n\t ');
    fc.assert(fc.property(fc.array(fc.tuple(key, value, ws), { maxLength: 6 }), fc.constantFrom(['status'], ['a', 'status'], ['id']), (members, tops) => {
      const text = `{${members.map(([k, v, w]) => `${w}"${k}"${w}:${w}${v}${w}`).join(',')}}`;
      const b = Buffer.from(`xx${text}yy`);
      const plan = slotPlan(tops.map((t) => [t]), 64);
      const st = readRecord(b, 2, b.length - 2, plan);
      if (st !== OK || plan.dup) return; // the shortcut is only for records marked checked
      const full = [...plan.spans];
      expect(findTops(b, 2, b.length - 2, plan)).toBe(true);
      expect([...plan.spans]).toEqual(full);
    }), { numRuns: 3000 });
  });
});
