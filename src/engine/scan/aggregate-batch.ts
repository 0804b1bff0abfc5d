/**
 * One batch of an aggregate, the same on the main thread and on worker threads: the byte prefilter and the
 * on-demand member reads of `where`, then for each record that counts one pass that checks it whole and notes the
 * grouped members ({@link readRecord}), and the group table update.
 */
import { isUtf8 } from 'node:buffer';
import type { CompiledQuery } from '../../kernel/contracts/query';
import type { SkippedRecord } from '../../kernel/contracts/scan';
import { McpgwError } from '../../kernel/errors';
import { parseExact, type ParseSite } from '../records/parse';
import { atomsOfRecord, atomsOfValue, findTops, newAtoms, OK, readRecord, slotPlan, type SlotPlan } from '../aggregate/extract';
import { addUnit, type Compiled, type TableData } from '../aggregate/table';
import { CompactTable } from '../aggregate/compact';
import type { Atoms } from '../aggregate/table';
import { FALLBACK, SimdRecordCheck } from '../aggregate/check-simd';
import { hasSurrogateEscape, parseRecord } from './fast-parse';
import { Occurrences, readMembers } from './members';
import { candidates, type BatchView, type Plan } from './plan';

/** How `where` is evaluated on a record. */
export interface WhereTest {
  as: 'filter' | 'select';
  query: CompiledQuery;
  /** filter: the per-record test of `$[?filter]` (its split), and the top-level members it reads (on demand). */
  test?: (record: unknown) => boolean;
  testReads?: readonly string[];
}

/** What a thread needs to aggregate batches. */
export interface BatchContext {
  compiled: Compiled;
  plan: SlotPlan;
  where: WhereTest | null;
  /** The prefilter (`where`'s required literals), as the engine's plan holds it. */
  prefilter: Pick<Plan, 'literals' | 'slashEscape'> | null;
  atoms: Atoms;
  /** readRecord's check in WebAssembly SIMD for this plan, or null where it is not available (check-simd.ts). */
  simd: SimdRecordCheck | null;
  maxDepth: number;
  /** Records never evaluated (one a regular expression was stuck on in an earlier page: reported there). */
  skip: ReadonlySet<number>;
  /** Locates parse errors (the main thread knows lines; a worker thread reports the record index only). */
  site: (i: number) => ParseSite;
}

/** `simd`: the plan's record check made by the caller (a worker thread's, from the module the engine sent); default this thread's. */
export function batchContext(compiled: Compiled, where: WhereTest | null, maxDepth: number, skip: ReadonlySet<number>, site: (i: number) => ParseSite, simd?: SimdRecordCheck | null): BatchContext {
  const literals = where?.query.requiredLiterals?.length ? where.query.requiredLiterals.map((l) => Buffer.from(l, 'utf8')) : null;
  const plan = slotPlan(compiled.spec.slots, maxDepth);
  return {
    compiled, where, maxDepth, skip, site, plan,
    simd: plan.negative ? null : simd === undefined ? SimdRecordCheck.create(plan) : simd,
    prefilter: literals ? { literals, slashEscape: where!.query.requiredLiterals!.some((l) => l.includes('/')) } : null,
    atoms: newAtoms(compiled.spec.slots.length),
  };
}

/** Counts of one batch (or of a whole aggregate). */
export interface BatchStats {
  scanned: number;
  matched: number;
  units: number;
  skipped: number;
  firstSkipped: SkippedRecord[];
  /** Records counted whose grouped strings held lone surrogates (RFC 8259 §8.2), read as U+FFFD. */
  loneSurrogates: number;
}

export function newStats(): BatchStats {
  return { scanned: 0, matched: 0, units: 0, skipped: 0, firstSkipped: [], loneSurrogates: 0 };
}

export function addStats(a: BatchStats, b: BatchStats): void {
  a.scanned += b.scanned;
  a.matched += b.matched;
  a.units += b.units;
  a.skipped += b.skipped;
  a.loneSurrogates += b.loneSurrogates;
  for (const s of b.firstSkipped) if (a.firstSkipped.length < 5) a.firstSkipped.push(s);
}

/** Some grouped string of the record holds U+FFFD (read from a lone surrogate when its record escaped one). */
function groupedReplacement(atoms: Atoms): boolean {
  for (let slot = 0; slot < atoms.texts.length; slot++) if (atoms.texts[slot]!.includes('\ufffd')) return true;
  return false;
}

/** Records a skipped record (the first five with their message). */
export function skip(stats: BatchStats, record: number, err: McpgwError): void {
  stats.skipped++;
  if (stats.firstSkipped.length < 5) {
    const loc = err.location ?? {};
    stats.firstSkipped.push({
      record_index: record, code: err.code,
      ...(loc.line !== undefined ? { line: loc.line } : {}),
      ...(loc.byte_offset !== undefined ? { byte_offset: loc.byte_offset } : {}),
      message: err.message,
    });
  }
}

/** The parse of an array or object value inside a record already checked (exact numbers). */
export function exactParser(maxDepth: number): (text: string) => unknown {
  const site = () => ({ byteOffset: 0, line: 1, column: 1, recordIndex: -1, maxDepth });
  return (text) => parseExact(text, site, maxDepth);
}

/** Records already checked (checked.ts): `marks[i - first] === 1` for record i; set here for records found checked. */
export interface CheckedMarks {
  marks: Uint8Array;
  first: number;
}

/**
 * Aggregates records `view.first + k` for k in [fromK, toK) into `table`. `onRecord(i)` is called before each record
 * is evaluated (worker threads publish it, for the deadline's stuck-record check). `spans`: the view's spans as
 * `[s0, e0, s1, e1, …]` when the caller has them (read without a call per record). `checked`: records an earlier
 * aggregate found well-formed (their grouped members are found without checking them again), and where this one
 * marks those it finds so. `utf8`: whether the bytes from record fromK's start to record toK − 1's end are valid UTF-8,
 * when the caller knows (else checked here). Returns how many records the byte prefilter left to evaluate (all of
 * them without one).
 */
export function aggregateBatch(view: BatchView, fromK: number, toK: number, ctx: BatchContext, table: TableData | CompactTable, stats: BatchStats, parse: (text: string) => unknown, onRecord?: (i: number) => void, spans?: Float64Array, checked?: CheckedMarks | null, utf8?: boolean): number {
  const b = view.bytes;
  stats.scanned += toK - fromK;
  const list = ctx.prefilter ? candidates(view, ctx.prefilter as Plan, fromK, toK) : null;
  if (toK <= fromK) return 0;
  // Valid UTF-8 is checked once for the stretch when most records are read, else per record.
  const dense = list === null || list.length > (toK - fromK) / 8;
  const utf8Ok = utf8 ?? (dense ? isUtf8(b.subarray(view.span(fromK)[0], view.span(toK - 1)[1])) : false);
  // The SIMD check reads a copy of the stretch in its own memory: copied when a record first needs the check (never
  // when every record is already checked), and only when most records are read.
  const simd = dense ? ctx.simd : null;
  let loaded = 0; // 1: the stretch is in simd's memory; -1: it could not be (too long)
  const occ = new Occurrences();
  const where = ctx.where;
  const n = list ? list.length : toK - fromK;
  for (let j = 0; j < n; j++) {
    const k = list ? list[j]! : fromK + j;
    const i = view.first + k;
    if (ctx.skip.size > 0 && ctx.skip.has(i)) continue;
    onRecord?.(i);
    let s: number, e: number;
    if (spans) { s = spans[2 * k]!; e = spans[2 * k + 1]!; } else [s, e] = view.span(k);
    let value: unknown = undefined;
    const known = checked ? checked.marks[i - checked.first] === 1 : false;
    try {
      view.checkFraming?.(k);
      if (!known && !utf8Ok && !isUtf8(b.subarray(s, e))) {
        parseRecord(b.toString('utf8', s, e), ctx.maxDepth, () => ctx.site(i)); // names the bad byte
        throw new McpgwError('SYNTAX_ERROR', `Record ${i} is not valid UTF-8.`, { location: { record_index: i } });
      }
      if (where) {
        let pass: boolean | undefined;
        if (where.as === 'filter' && where.test && where.testReads) {
          const stub = readMembers(b, s, e, where.testReads, ctx.maxDepth, occ);
          if (stub !== undefined) pass = where.test(stub);
        }
        if (pass === undefined) {
          value = parseRecord(b.toString('utf8', s, e), ctx.maxDepth, () => ctx.site(i));
          pass = where.as === 'select' ? where.query.evaluate(value).length > 0
            : where.test ? where.test(value) : where.query.evaluate([value]).length > 0;
        }
        if (!pass) continue;
      }
      let st = OK;
      if (value === undefined && !(known && findTops(b, s, e, ctx.plan))) {
        if (simd && loaded === 0) loaded = simd.load(b, view.span(fromK)[0], view.span(toK - 1)[1]) ? 1 : -1;
        st = loaded === 1 ? simd!.check(s, e, ctx.plan) : FALLBACK;
        if (st === FALLBACK) st = readRecord(b, s, e, ctx.plan);
        // Valid UTF-8 (checked above), well-formed, each wanted name once at most: the next aggregate need not check.
        if (st === OK && checked && !ctx.plan.dup) checked.marks[i - checked.first] = 1;
      }
      const replaced = ctx.atoms.replaced;
      if (st === OK && value === undefined && !ctx.plan.negative) {
        atomsOfRecord(b, s, e, ctx.plan, ctx.atoms, parse);
        if (ctx.atoms.replaced !== replaced) stats.loneSurrogates++;
      } else {
        // Malformed or too deep by the byte check (the parser then gives the error and its place; should it accept
        // the record, the parser decides), parsed already, or a negative index: from the parsed value.
        value ??= parseRecord(b.toString('utf8', s, e), ctx.maxDepth, () => ctx.site(i));
        atomsOfValue(value, ctx.plan.paths, ctx.atoms);
        // the parse made its lone surrogates U+FFFD: said when a grouped string shows one and the record escaped one
        if (hasSurrogateEscape(b.toString('latin1', s, e)) && groupedReplacement(ctx.atoms)) stats.loneSurrogates++;
      }
    } catch (err) {
      if (err instanceof McpgwError && (err.code === 'SYNTAX_ERROR' || (err.code === 'RESOURCE_LIMIT_EXCEEDED' && err.limit?.name === 'maxDepth'))) {
        skip(stats, i, err);
        continue;
      }
      throw err;
    }
    if (table instanceof CompactTable) table.add(i, ctx.atoms);
    else addUnit(table, ctx.compiled, i, ctx.atoms);
    stats.matched++;
    stats.units++;
  }
  return n;
}
