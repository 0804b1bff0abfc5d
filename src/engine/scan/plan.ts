/**
 * What a scan evaluates on each record, shared by the main thread and worker threads: the record range, the
 * per-record predicate and inner query of a {@link SequenceSplit}, the prefilter literals, and how node paths are
 * prefixed in each addressing mode.
 */
import { isUtf8 } from 'node:buffer';
import type { CompiledQuery, EvaluateOptions, QueryNode } from '../../kernel/contracts/query';
import { McpgwError } from '../../kernel/errors';
import { firstInvalidUtf8 } from '../records/parse';
import type { ParseSite } from '../records/parse';
import { parseRecord } from './fast-parse';
import { Occurrences, readMembers } from './members';
import { caselessFinder, indexOfBytes } from '../bytes/bytes';

export interface Plan {
  /** `record`: record is `$`, paths inside it. `document`: record 0 is the file's root. `split`: sequence root. */
  kind: 'record' | 'document' | 'split';
  /** Records to visit: `start, start + step, …` below `end`. */
  start: number;
  end: number;
  step: number;
  /** The query evaluated on each record (record/document), or the split's inner query (null: the record itself). */
  query: CompiledQuery | null;
  test?: (record: unknown, options?: EvaluateOptions) => boolean;
  /** Top-level members `test` reads (on-demand reading). */
  testReads?: readonly string[];
  /** Prefilter: canonical encodings, one of which a candidate record contains. */
  literals: Buffer[] | null;
  /** The literals are compared ignoring ASCII letter case (they are written in lower case). */
  fold?: boolean;
  /** Also keep records containing `\/` (a literal has `/`). */
  slashEscape: boolean;
  maxDepth: number;
  /** Nodes one evaluation may produce or walk (Limits.maxNodes). */
  maxNodes: number;
  /** ms since the epoch: an evaluation running past it stops (absent on worker threads, which are stopped instead). */
  deadline?: number;
  /** The clock `deadline` is on (absent on worker threads). */
  now?: () => number;
  /** Limits.requestTimeoutMs, for an evaluation's deadline error (EvaluateOptions.requestTimeoutMs). */
  requestTimeoutMs?: number;
  /** Units per record: all nodes, or the first only. */
  firstOnly: boolean;
}

/**
 * Record bytes handed to evaluation: `bytes` hold records `first … first + count - 1`; `span(k)` gives record
 * `first + k`'s `[start, end)` in `bytes`, `recordAt(offset)` the `k` whose span holds a byte (or -1).
 */
export interface BatchView {
  first: number;
  count: number;
  bytes: Buffer;
  span(k: number): readonly [number, number];
  recordAt(offset: number): number;
  /** File offset of `bytes[0]`. */
  base: number;
  /** The format's framing check of record `first + k` (RecordBatch.checkFraming), when it has one. @throws SYNTAX_ERROR */
  checkFraming?(k: number): void;
}

export interface RecordOutcome {
  record: number;
  nodes?: QueryNode[];
  /**
   * The nodes' values are parsed on first access (a record selected by an on-demand filter): reading them may throw
   * SYNTAX_ERROR when the rest of the record is malformed. The collector reads them for the page it returns.
   */
  lazy?: boolean;
  /**
   * The filter, tested on the members it reads on demand, ruled the record out without parsing the rest of it: it
   * selects nothing, and was not checked to be well-formed (counted in ScanResult.unparsed). No nodes, no error.
   */
  unparsed?: true;
  /** The record could not be read (malformed, invalid UTF-8, too deep). */
  error?: McpgwError;
}

const BACKSLASH_U = Buffer.from('\\u');
const BACKSLASH_SLASH = Buffer.from('\\/');

/**
 * The candidate records of a batch, in order (batch-relative `k`), or null when every record in range is one.
 * A record is a candidate when it contains one of the literals (ignoring ASCII case when `plan.fold`), or a `\u` escape (or `\/` when a literal has `/`),
 * through which it could spell the literal differently.
 */
export function candidates(b: BatchView, plan: Plan, fromK: number, toK: number): number[] | null {
  if (!plan.literals) return null;
  if (toK <= fromK) return [];
  const lo = b.span(fromK)[0], hi = b.span(toK - 1)[1];
  const marks = new Uint8Array(toK - fromK);
  const needles = [...plan.literals, BACKSLASH_U, ...(plan.slashEscape ? [BACKSLASH_SLASH] : [])];
  const folded = plan.fold ? plan.literals.length : 0;
  let any = false;
  for (let n = 0; n < needles.length; n++) {
    const needle = needles[n]!;
    const find = n < folded ? caselessFinder(b.bytes, needle) : (from: number) => indexOfBytes(b.bytes, needle, from);
    let pos = find(lo);
    while (pos !== -1 && pos < hi) {
      const k = b.recordAt(pos);
      if (k < fromK || k >= toK) break;
      const [s, e] = b.span(k);
      if (pos >= s && pos + needle.length <= e) { marks[k - fromK] = 1; any = true; }
      pos = find(Math.max(pos + 1, e));
    }
  }
  const out: number[] = [];
  if (!any) return out;
  for (let i = 0; i < marks.length; i++) if (marks[i]) out.push(fromK + i);
  return out;
}

/**
 * Which records of a batch its framing check rejects (`marks[k] === 1`), sent to worker threads with the spans; null
 * when the format has no check or every record passes.
 */
export function framingFaults(batch: { count: number; checkFraming?(k: number): void }): Uint8Array | null {
  if (!batch.checkFraming) return null;
  let marks: Uint8Array | null = null;
  for (let k = 0; k < batch.count; k++) {
    try {
      batch.checkFraming(k);
    } catch (err) {
      if (!(err instanceof McpgwError) || err.code !== 'SYNTAX_ERROR') throw err;
      (marks ??= new Uint8Array(batch.count))[k] = 1;
    }
  }
  return marks;
}

/**
 * The spans `[s0, e0, s1, e1, …]` of `count` records from their extents (`extents[k]` to `extents[k + 1]`, in `bytes`:
 * KernelBatch.extentsInto) with the `padding` bytes (a 256-entry table, 1 for a padding byte) trimmed from both ends,
 * as RecordBatch.span gives them; written into `out` (a new array when it is shorter than 2 × count), which it returns.
 */
export function trimmedSpans(extents: Float64Array, count: number, bytes: Uint8Array, padding: Uint8Array, out: Float64Array): Float64Array {
  if (out.length < 2 * count) out = new Float64Array(Math.max(2 * count, 2 * out.length));
  let s = extents[0]!;
  for (let k = 0; k < count; k++) {
    const next = extents[k + 1]!;
    let e = next;
    while (s < e && padding[bytes[s]!] === 1) s++;
    while (e > s && padding[bytes[e - 1]!] === 1) e--;
    out[2 * k] = s;
    out[2 * k + 1] = e;
    s = next;
  }
  return out;
}

/**
 * A BatchView over spans held in a Float64Array (`[s0, e0, s1, e1, …]`), as sent to worker threads; `faults`: the
 * records the framing check rejects (framingFaults), whose error the engine re-reads with its location on its thread.
 */
export function spansView(first: number, count: number, bytes: Buffer, spans: Float64Array, faults?: Uint8Array | null): BatchView {
  return {
    first, count, bytes, base: 0,
    ...(faults ? { checkFraming(k: number) {
      if (faults[k] === 1) throw new McpgwError('SYNTAX_ERROR', `Record ${first + k} is malformed: its framing is not valid for the format.`, { location: { record_index: first + k } });
    } } : {}),
    span: (k) => [spans[2 * k]!, spans[2 * k + 1]!],
    recordAt(offset) {
      let lo = 0, hi = count - 1;
      if (count === 0 || offset < spans[0]!) return -1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (spans[2 * mid]! <= offset) lo = mid; else hi = mid - 1;
      }
      return lo;
    },
  };
}

const occurrences = new WeakMap<BatchView, Occurrences>();

/** Whether record `i` is one the plan visits. */
export function inRange(plan: Plan, i: number): boolean {
  return i >= plan.start && i < plan.end && (plan.step === 1 || (i - plan.start) % plan.step === 0);
}

/** How many records of `from … to - 1` are in the plan's range (inRange). */
export function inRangeCount(plan: Pick<Plan, 'start' | 'end' | 'step'>, from: number, to: number): number {
  const a = Math.max(from, plan.start), b = Math.min(to, plan.end);
  if (b <= a) return 0;
  if (plan.step === 1) return b - a;
  // indexes start + m·step with a ≤ index < b
  const first = Math.ceil((a - plan.start) / plan.step), last = Math.ceil((b - plan.start) / plan.step);
  return Math.max(0, last - first);
}

/**
 * Evaluates record `k` of the batch. `site` locates parse errors. Returns null when the record selects nothing, and
 * `{record, unparsed: true}` when it selects nothing by the members an on-demand filter read (the rest not parsed).
 * `wantValues` false: the nodes will only be counted (their values may be left out).
 */
export function evaluateRecord(b: BatchView, k: number, plan: Plan, utf8Ok: boolean, site: (i: number) => ParseSite, wantValues = true): RecordOutcome | null {
  const i = b.first + k;
  const [s, e] = b.span(k);
  const bounds = evaluateOptions(plan);
  try {
    b.checkFraming?.(k);
    if (!utf8Ok && !isUtf8(b.bytes.subarray(s, e))) throw utf8Fault(b.bytes.subarray(s, e), i, site(i));
    if (plan.kind === 'split' && plan.test && plan.testReads) {
      // On demand: read only the members the filter reads; parse the record only when it passes.
      let occ = occurrences.get(b);
      if (!occ) occurrences.set(b, (occ = new Occurrences()));
      const stub = readMembers(b.bytes, s, e, plan.testReads, plan.maxDepth, occ);
      if (stub !== undefined) {
        if (!plan.test(stub, bounds)) return { record: i, unparsed: true };
        if (!plan.query) {
          const text = b.bytes.toString('utf8', s, e);
          if (!wantValues) {
            // Counted only: still a match only if the whole record is one well-formed value (the member walk reads
            // a few members; `{"id":1} {"id":2}` has a phantom `id` 2 that the full parse rejects).
            parseRecord(text, plan.maxDepth, () => site(i));
            return { record: i, nodes: [{ path: '/' + i, value: undefined }] };
          }
          return { record: i, lazy: true, nodes: [lazyNode('/' + i, text, () => parseRecord(text, plan.maxDepth, () => site(i)))] };
        }
      }
    }
    const text = b.bytes.toString('utf8', s, e);
    const value = parseRecord(text, plan.maxDepth, () => site(i));
    let nodes: QueryNode[];
    if (plan.kind === 'split') {
      if (plan.test && !plan.test(value, bounds)) return null;
      const prefix = '/' + i;
      if (!plan.query) nodes = [{ path: prefix, value }];
      else {
        nodes = plan.query.evaluate(value, bounds);
        for (const n of nodes) n.path = prefix + n.path;
      }
    } else {
      nodes = plan.query!.evaluate(value, bounds);
    }
    if (nodes.length === 0) return null;
    if (plan.firstOnly && nodes.length > 1) nodes = [nodes[0]!];
    return { record: i, nodes };
  } catch (err) {
    if (err instanceof McpgwError && (err.code === 'SYNTAX_ERROR' || (err.code === 'RESOURCE_LIMIT_EXCEEDED' && isRecordLimit(err.limit?.name)))) {
      return { record: i, error: err };
    }
    throw err;
  }
}

/**
 * The error for record `i`'s invalid UTF-8: the file offset of the first bad byte, its line and column (characters,
 * 1-based), counted from where the record starts (`at`) — batch offsets are not file offsets.
 */
export function utf8Fault(bytes: Uint8Array, i: number, at: ParseSite): McpgwError {
  const rel = firstInvalidUtf8(bytes);
  const before = Buffer.from(bytes.buffer, bytes.byteOffset, rel);
  let lines = 0;
  for (let k = before.indexOf(10); k !== -1; k = before.indexOf(10, k + 1)) lines++;
  const nl = before.lastIndexOf(10);
  const line = at.line + lines;
  const column = nl === -1 ? at.column + before.toString('utf8').length : before.subarray(nl + 1).toString('utf8').length + 1;
  const byteOffset = at.byteOffset + rel;
  return new McpgwError('SYNTAX_ERROR', `Record ${i}: invalid UTF-8 at byte ${byteOffset} (line ${line}, column ${column}).`, {
    location: { byte_offset: byteOffset, line, column, record_index: i },
    hint: 'The file is not valid UTF-8 there; JSON text must be UTF-8 (RFC 8259 §8.1).',
  });
}

/** Limits that stop one record's evaluation (the record is reported, the scan goes on or stops at the deadline). */
const isRecordLimit = (name: string | undefined) => name === 'maxDepth' || name === 'maxNodes' || name === 'requestTimeoutMs';

/** The bounds of one evaluation under `plan`. */
export function evaluateOptions(plan: Plan): EvaluateOptions {
  return plan.deadline !== undefined
    ? { maxNodes: plan.maxNodes, deadline: plan.deadline, ...(plan.now ? { now: plan.now } : {}), ...(plan.requestTimeoutMs !== undefined ? { requestTimeoutMs: plan.requestTimeoutMs } : {}) }
    : { maxNodes: plan.maxNodes };
}

/** The raw JSON text of a node whose value is parsed on first access (the CLI prints it as is). */
export const NODE_TEXT = Symbol.for('mcpgw.scan.nodeText');

/** A node whose `value` is `parse()`d on first access; `[NODE_TEXT]` holds its JSON text. */
export function lazyNode(path: string, text: string, parse: () => unknown): QueryNode {
  let parsed = false;
  let value: unknown;
  const node = { path } as QueryNode;
  Object.defineProperty(node, 'value', {
    enumerable: true,
    configurable: true,
    get() {
      if (!parsed) { value = parse(); parsed = true; }
      return value;
    },
    set(v: unknown) { value = v; parsed = true; },
  });
  Object.defineProperty(node, NODE_TEXT, { value: text, enumerable: false });
  return node;
}
