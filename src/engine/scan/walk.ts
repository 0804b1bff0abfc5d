/**
 * Evaluation of a query over one record too large to parse whole (a big single document, a record over
 * maxRecordBytes), through lazy nodes (`RecordSource.node`) and the query's segments (`CompiledQuery.segments`,
 * RFC 9535 §2.5):
 * - a value of at most PIECE_BYTES is parsed and the rest of the query evaluated on it in memory (`rest(k)`);
 * - above that, a child segment descends only into the members its selectors name (name, index, slice, pointer
 *   token) or walks the children (wildcard, filter: a filter parses only what it tests, reading just the members it
 *   names when it says which), and a descendant segment applies its selectors to the node's children and then walks
 *   each child's subtree, in document order (a node before its descendants, as json-p3 and §2.5.2.2);
 * - the elements of a large array are streamed as a sequence of records through the scan engine itself (an
 *   ElementSource), so byte prefilters, on-demand member reads, worker threads and deadlines apply inside documents.
 * Nothing but container indexes and the parts in hand is held: memory stays bounded whatever the document's size.
 *
 * Resuming: every unit carries the trail that leads to it (positions in each enumeration on the way down, then the
 * nested scan's own position), so a page resumes where the last one stopped without walking the prefix again.
 */
import { isUtf8 } from 'node:buffer';
import type { LazyNode } from '../../kernel/contracts/format';
import type { CompiledQuery, EvaluateOptions, QueryNode, QuerySegment, SegmentSelector } from '../../kernel/contracts/query';
import type { ScanNode, ScanPosition, ScanQueryOptions, ScanResult } from '../../kernel/contracts/scan';
import { McpgwError } from '../../kernel/errors';
import { firstMember, internalsOf, lastMember, memberName } from '../records/lazy';
import { decodeUtf8 } from '../records/parse';
import { escapeToken } from '../paths/pointer';
import type { IndexedRecordSource } from '../records/source';
import type { Collector } from './engine';
import { readMembers } from './members';

/** Values at most this long (and at most maxRecordBytes) are parsed and evaluated in memory. */
export const PIECE_BYTES = 1024 * 1024;
/** A walk lets the event loop run at least this often, ms on its clock (between positions of an enumeration). */
export const YIELD_MS = 15;
/** Children fetched per read window while a container is walked. */
const WINDOW = 256;
/** An array with at least this many elements is streamed as a sequence (a nested scan) when a segment walks it. */
const STREAM_MIN = 64;

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/**
 * A resume trail: `first` is the position to start this enumeration at, `below` the trail for the level under it
 * (null: from its start). A trail that ends at this level (a stop at a position not yet entered) starts every level
 * under it from its start.
 */
const first = (resume: readonly number[] | null) => (resume && resume.length ? resume[0]! : 0);
const below = (resume: readonly number[] | null) => (resume && resume.length > 1 ? resume.slice(1) : null);

/** What a walk needs from the engine. */
export interface WalkHost {
  /**
   * Runs a nested scan (the elements of a large array as records) without taking another scan slot, in the walk's
   * page: `advanced` says the page has advanced already, so an element the deadline stops first is retried by the
   * next page rather than skipped (only a page that begins at an element skips it, as a page finishes a record).
   */
  subScan(opts: ScanQueryOptions, advanced: boolean): Promise<ScanResult>;
  maxRecordBytes: number;
  maxDepth: number;
  /** Limits.maxNodes: each evaluation the walk runs (a piece in memory, a filter test) is bounded by it. */
  maxNodes?: number;
  /** Values at most this long are parsed and evaluated in memory (default PIECE_BYTES; never above maxRecordBytes). */
  pieceBytes?: number;
  /** Arrays with at least this many elements are streamed as a nested scan (default STREAM_MIN). */
  streamMin?: number;
  /** The clock deadlines are on (default `Date.now`). */
  now?: () => number;
  /** Limits.requestTimeoutMs, ms: named by the error for a value that a page beginning at it cannot evaluate in time. */
  requestTimeoutMs?: number;
}

/** What RecordWalk.bounded returns for an evaluation the deadline stopped. */
const DEADLINE: unique symbol = Symbol('deadline');

/** Trail `a` leads to `b` or is `b`: a walk at `a` has not yet passed `b`. */
const onTheWayTo = (a: readonly number[], b: readonly number[]) => a.length <= b.length && a.every((x, i) => x === b[i]);

/** How a walk ended: went through, the record is done early (`unit: records`), the scan stops, or the deadline passed. */
export type WalkEnd = 'done' | 'record' | 'scan' | 'deadline';

/** The node at a JSON Pointer step: an escaped member name or an index. */
const step = (key: string | undefined, index: number | undefined) => '/' + (key !== undefined ? escapeToken(key) : String(index));

/**
 * Walks `query` over one record's root node, handing each unit to the collector. `resume` continues from a position
 * of this record (`at` the trail, `node` the units already returned).
 */
export class RecordWalk {
  private readonly cur: number[] = [];
  private emitted = 0;
  private readonly unitBase: number;
  private end: WalkEnd = 'done';
  /** Where a deadline stopped the walk. */
  stopAt: ScanPosition | null = null;
  /** The walk's clock (WalkHost.now), and when it last let the event loop run. */
  private readonly now: () => number;
  private lastYield: number;
  private readonly piece: number;
  private readonly streamMin: number;
  private readonly segments: readonly QuerySegment[];

  constructor(
    private readonly host: WalkHost,
    private readonly opts: ScanQueryOptions,
    private readonly collector: Collector,
    private readonly source: IndexedRecordSource,
    private readonly record: number,
    /** Prefix of every path (`""`, or `/<record>` in a sequence addressed as a whole). */
    private readonly prefix: string,
    private readonly query: CompiledQuery,
    private readonly firstOnly: boolean,
    private readonly resume?: ScanPosition,
  ) {
    this.unitBase = resume?.node ?? 0;
    this.piece = Math.min(host.pieceBytes ?? PIECE_BYTES, host.maxRecordBytes);
    this.streamMin = host.streamMin ?? STREAM_MIN;
    this.segments = query.segments!;
    this.now = host.now ?? Date.now;
    this.lastYield = this.now();
  }

  /**
   * True when this page has advanced to `at`: a unit handed over, or (resumed) `at` past the resume position, or (from
   * the start) an evaluation finished.
   */
  private advanced(at: readonly number[]): boolean {
    if (this.emitted > 0) return true;
    return this.resume ? !onTheWayTo(at, this.resume.at ?? []) : this.evaluations > 0;
  }

  /** Evaluations (pieces in memory, filter tests) this page finished. */
  private evaluations = 0;

  /**
   * One evaluation bounded by the deadline (a piece in memory, a filter's test) of the value at `path`, `bytes` long,
   * with `cur` at its position. Past the deadline (before it, once the page has advanced; or inside it) it returns
   * DEADLINE and the walk stops there (`stopAt`): the next page evaluates it again from the start. A resumed page
   * that has not advanced (a whole page could not finish this value) would never advance: RESOURCE_LIMIT_EXCEEDED
   * naming requestTimeoutMs instead.
   */
  private bounded<T>(run: () => T, path: string, bytes: number): T | typeof DEADLINE {
    const deadline = this.opts.deadline;
    const stopHere = (): typeof DEADLINE => {
      this.stopAt = { record: this.record, node: this.unitBase + this.emitted, at: this.cur.slice() };
      this.stop('deadline');
      return DEADLINE;
    };
    if (deadline !== undefined && (this.host.now ?? Date.now)() > deadline && this.advanced(this.cur)) return stopHere();
    try {
      const r = run();
      this.evaluations++;
      return r;
    } catch (err) {
      if (!(err instanceof McpgwError) || err.code !== 'RESOURCE_LIMIT_EXCEEDED' || err.limit?.name !== 'requestTimeoutMs') throw err;
      if (this.resume && !this.advanced(this.cur)) {
        const ms = this.host.requestTimeoutMs;
        throw new McpgwError('RESOURCE_LIMIT_EXCEEDED',
          `The query could not finish evaluating the value at ${JSON.stringify(this.prefix + path)} (${bytes} bytes) before the request deadline${ms !== undefined ? ` (requestTimeoutMs ${ms})` : ''}, on a page that began at it, and was stopped.`, {
            limit: { name: 'requestTimeoutMs', limit: ms ?? 0 },
            location: { path: this.prefix + path, record_index: this.record },
            hint: 'Each page has requestTimeoutMs to evaluate a value of this size whole: raise limits.requestTimeoutMs, or narrow the query so it reads less of this value (names instead of wildcards, fewer descendant segments).',
          });
      }
      return stopHere();
    }
  }

  /** Walks from the record's root. */
  async run(root: LazyNode): Promise<WalkEnd> {
    const at = this.resume?.at ?? null;
    await this.apply(0, root, '', at && at.length ? at : null);
    return this.end;
  }

  /** Units handed over so far (for `unit: records` accounting). */
  get units(): number {
    return this.emitted;
  }

  private stop(end: WalkEnd): false {
    if (this.end === 'done') this.end = end;
    return false;
  }

  /**
   * Called at each position of an enumeration, with `cur` holding the position about to be processed: checks the
   * signal and the deadline once the page has advanced (then records the position to continue from), and lets the event loop run (other
   * requests, cancellations) once YIELD_MS have passed on the walk's clock since it last did. Every position is
   * checked: one position may cost a filter test or a piece evaluated in memory, so counting positions bounds nothing.
   */
  private async tick(): Promise<boolean> {
    if (this.opts.signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
    const now = this.now();
    // a page that has not advanced yet goes on (as `bounded` does): a page always gets past something
    if (this.opts.deadline !== undefined && now > this.opts.deadline && this.advanced(this.cur)) {
      this.stopAt = { record: this.record, node: this.unitBase + this.emitted, at: this.cur.slice() };
      return this.stop('deadline');
    }
    if (now - this.lastYield >= YIELD_MS) {
      await this.collector.flush();
      await new Promise<void>((r) => setImmediate(r));
      this.lastYield = this.now();
      if (this.opts.signal?.aborted) throw new McpgwError('CANCELLED', 'The request was cancelled.');
    }
    return true;
  }

  /** Hands one unit to the collector. */
  private emit(node: QueryNode): boolean {
    const unit = this.unitBase + this.emitted++;
    node.path = this.prefix + node.path;
    const go = this.collector.takeWalked(this.record, node, unit, () => this.cur.slice());
    if (!go) return this.stop('scan');
    if (this.firstOnly) return this.stop('record');
    return true;
  }

  /** Segments `k…` applied to `n` (at `path` inside the record). */
  private async apply(k: number, n: LazyNode, path: string, resume: number[] | null): Promise<boolean> {
    if (resume && resume.length === 0) resume = null;
    if (k === this.segments.length) return this.emit(lazyUnit(path, n));
    if (n.byteLength <= this.piece) return this.inMemory(k, n, path, resume);
    const seg = this.segments[k]!;
    if (!seg.descendant) return this.child(k, seg, n, path, resume);
    // A descendant segment: its selectors on n's children (phase 0), then each child's subtree (phase 1).
    if (!resume || resume[0] === 0) {
      this.cur.push(0);
      const go = await this.child(k, seg, n, path, below(resume));
      this.cur.pop();
      if (!go) return false;
      resume = null;
    }
    this.cur.push(1);
    const go = await this.descend(k, n, path, below(resume));
    this.cur.pop();
    return go;
  }

  /** A value small enough to parse: segments `k…` evaluated on it in memory (`rest(k)`). */
  private async inMemory(k: number, n: LazyNode, path: string, resume: number[] | null): Promise<boolean> {
    const nodes = this.bounded(() => this.query.rest!(k).evaluate(n.value(), this.bounds()), path, n.byteLength);
    if (nodes === DEADLINE) return false;
    for (let j = first(resume); j < nodes.length; j++) {
      this.cur.push(j);
      const x = nodes[j]!;
      const go = this.emit({ path: path + x.path, value: x.value });
      this.cur.pop();
      if (!go) return false;
    }
    return true;
  }

  /** A child segment's selectors, in order, on n's children. */
  private async child(k: number, seg: QuerySegment, n: LazyNode, path: string, resume: number[] | null): Promise<boolean> {
    if (n.type !== 'object' && n.type !== 'array') return true;
    for (let j = first(resume); j < seg.selectors.length; j++) {
      this.cur.push(j);
      const go = await this.select(k, seg, seg.selectors[j]!, n, path, below(resume));
      this.cur.pop();
      if (!go) return false;
      resume = null;
    }
    return true;
  }

  /** One selector on n's children; each selected child gets segments `k+1…`. */
  private async select(k: number, seg: QuerySegment, sel: SegmentSelector, n: LazyNode, path: string, resume: number[] | null): Promise<boolean> {
    const count = n.childCount ?? 0;
    const isArray = n.type === 'array';
    if (isArray && !seg.descendant && seg.selectors.length === 1 && count >= this.streamMin
      && (sel.kind === 'wildcard' || sel.kind === 'filter' || (sel.kind === 'slice' && (sel.step ?? 1) >= 1))) {
      const q = this.query.rest!(k);
      const elements = q.split ? this.source.elements(n) : null;
      if (elements) return this.nested(elements, q, 'file', path, resume);
    }
    const kids = new Children(n);
    const one = async (m: number): Promise<boolean> => {
      const c = kids.get(m);
      this.cur.push(0);
      const go = await this.apply(k + 1, c.node, path + step(c.key, c.index), below(resume));
      this.cur.pop();
      return go;
    };
    switch (sel.kind) {
      case 'name':
      case 'token': {
        const name = sel.kind === 'name' ? sel.name : sel.token;
        let m = -1;
        if (!isArray) m = memberIndex(n, name);
        else if (sel.kind === 'token' && ARRAY_INDEX.test(name) && Number(name) < count) m = Number(name);
        return m === -1 ? true : one(m);
      }
      case 'index': {
        if (!isArray) return true;
        const m = sel.index < 0 ? count + sel.index : sel.index;
        return m < 0 || m >= count ? true : one(m);
      }
      case 'slice': {
        if (!isArray) return true;
        const { start, end, step: by } = sliceBounds(count, sel);
        if (by === 0) return true;
        // positions q = 0, 1, … of the slice's enumeration (RFC 9535 §2.3.4.2.2)
        for (let q = first(resume); ; q++) {
          const m = start + q * by;
          if (by > 0 ? m >= end : m <= end) break;
          this.cur.push(q);
          if (!(await this.tick())) { this.cur.pop(); return false; }
          const c = kids.get(m);
          const go = await this.apply(k + 1, c.node, path + step(c.key, c.index), below(resume));
          this.cur.pop();
          if (!go) return false;
          resume = null;
        }
        return true;
      }
      case 'wildcard':
      case 'filter': {
        for (let m = first(resume); m < count; m++) {
          this.cur.push(m);
          if (!(await this.tick())) { this.cur.pop(); return false; }
          const c = shownAt(n, kids.get(m), m);
          if (!c) { this.cur.pop(); resume = null; continue; } // a repeated name, shown at its first position
          if (sel.kind === 'filter') {
            const pass = this.bounded(() => this.test(sel, c.node), path + step(c.key, c.index), c.node.byteLength);
            if (pass === DEADLINE) { this.cur.pop(); return false; }
            if (!pass) { this.cur.pop(); resume = null; continue; }
          }
          const go = await this.apply(k + 1, c.node, path + step(c.key, c.index), below(resume));
          this.cur.pop();
          if (!go) return false;
          resume = null;
        }
        return true;
      }
    }
  }

  /** Phase 1 of a descendant segment: segments `k…` again on each child's subtree, in document order. */
  private async descend(k: number, n: LazyNode, path: string, resume: number[] | null): Promise<boolean> {
    if (n.type !== 'object' && n.type !== 'array') return true;
    const count = n.childCount ?? 0;
    if (n.type === 'array' && count >= this.streamMin) {
      // every element is the root of the same query: a nested scan, one record per element
      const elements = this.source.elements(n);
      if (elements) return this.nested(elements, this.query.rest!(k), 'record', path, resume);
    }
    const kids = new Children(n);
    for (let m = first(resume); m < count; m++) {
      this.cur.push(m);
      if (!(await this.tick())) { this.cur.pop(); return false; }
      const c = shownAt(n, kids.get(m), m);
      if (!c) { this.cur.pop(); resume = null; continue; }
      const go = await this.apply(k, c.node, path + step(c.key, c.index), below(resume));
      this.cur.pop();
      if (!go) return false;
      resume = null;
    }
    return true;
  }

  /** `@` = the child for a filter selector (see testInParts). */
  private test(sel: Extract<SegmentSelector, { kind: 'filter' }>, c: LazyNode): boolean {
    const bounds = this.bounds();
    return testInParts((v) => sel.test(v, bounds), sel.testReads, c, this.host, this.piece, this.record);
  }

  /** The bounds of one evaluation: Limits.maxNodes and the request deadline. */
  private bounds(): EvaluateOptions {
    return {
      ...(this.host.maxNodes !== undefined ? { maxNodes: this.host.maxNodes } : {}),
      ...(this.opts.deadline !== undefined ? { deadline: this.opts.deadline, ...(this.host.now ? { now: this.host.now } : {}), ...(this.host.requestTimeoutMs !== undefined ? { requestTimeoutMs: this.host.requestTimeoutMs } : {}) } : {}),
    };
  }

  /**
   * The elements of a large array as a sequence of records, scanned by the engine into this page: `file` addressing
   * with the query whose first segment picks elements (its split), or `record` addressing with a query each element
   * is the root of. The nested scan's positions continue this walk's trail.
   */
  private async nested(elements: IndexedRecordSource, q: CompiledQuery, addressing: 'file' | 'record', path: string, resume: number[] | null): Promise<boolean> {
    const c = this.collector;
    const room = c.pageRoom === Number.POSITIVE_INFINITY ? undefined : c.pageRoom;
    const countOnly = room === 0;
    const limit = this.firstOnly ? 1 : room;
    if (limit === 0 && !this.opts.countAll) return this.stop('scan');
    const trail = this.cur.slice();
    let forwarded = 0;
    /** Records this page passed over before the nested scan began (its nodes' counts are its own). */
    const skippedBefore = c.skipped;
    const unparsedBefore = c.unparsed;
    const advanced = this.advanced(this.cur);
    const r = await this.host.subScan({
      source: elements,
      query: q,
      addressing,
      unit: 'nodes',
      ...(resume && resume.length >= 2 ? { resume: { record: resume[0]!, node: resume[1]!, ...(resume.length > 2 ? { at: resume.slice(2) } : {}) } } : {}),
      ...(limit !== undefined ? { limit } : {}),
      countAll: !!this.opts.countAll && !this.firstOnly,
      ...(this.opts.signal ? { signal: this.opts.signal } : {}),
      ...(this.opts.deadline !== undefined ? { deadline: this.opts.deadline } : {}),
      sink: async (nodes: ScanNode[]) => {
        for (const x of nodes) {
          const pos = x.position ?? { record: x.record, node: 0 };
          x.path = path + (addressing === 'record' ? '/' + x.record : '') + x.path;
          const unit = this.unitBase + this.emitted++;
          forwarded++;
          x.path = this.prefix + x.path;
          c.takeWalked(this.record, x, unit, () => [...trail, pos.record, pos.node, ...(pos.at ?? [])], skippedBefore + (x.skippedBefore ?? 0), unparsedBefore + (x.unparsedBefore ?? 0));
        }
        await c.flush();
        return c.ended ? 0 : nodes.length; // the consumer ended the page: the nested scan stops too
      },
    }, advanced);
    // units the nested scan counted past what it handed over (its total runs from its resume position to the end)
    if (r.total !== undefined) c.addCount(Math.max(0, r.total - forwarded));
    c.addSkipped(r.skipped, r.firstSkipped);
    c.addUnparsed(r.unparsed ?? 0);
    if (this.firstOnly && forwarded > 0) return this.stop(countOnly || c.pageRoom > 0 || this.opts.countAll ? 'record' : 'scan');
    const mapped = (p: ScanPosition) => ({ record: this.record, node: this.unitBase + this.emitted, at: [...trail, p.record, p.node, ...(p.at ?? [])] });
    if (!r.complete) {
      this.stopAt = r.next ? mapped(r.next) : { record: this.record, node: this.unitBase + this.emitted, at: trail };
      return this.stop('deadline');
    }
    if (r.next && !countOnly) {
      c.setNext(mapped(r.next));
      if (!this.opts.countAll) return this.stop('scan');
    }
    return true;
  }
}

/**
 * A filter's `test` on the value of lazy node `c`: parses only what the filter reads when it names top-level members
 * (`testReads`: read from the bytes of a small object, or member by member through lazy nodes from a large one; an
 * array or a scalar has none of them, so it is not read), else the value whole (over maxRecordBytes: RESOURCE_LIMIT_EXCEEDED naming the limit).
 */
export function testInParts(test: (v: unknown) => boolean, testReads: readonly string[] | undefined, c: LazyNode, host: Pick<WalkHost, 'maxRecordBytes' | 'maxDepth'>, piece = Math.min(PIECE_BYTES, host.maxRecordBytes), record?: number): boolean {
  if (testReads && c.type === 'object') {
    if (c.byteLength <= piece && c.bytes) {
      const b = c.bytes();
      if (!isUtf8(b)) decodeUtf8(b, c.byteOffset, record !== undefined ? { record_index: record } : {});
      const stub = readMembers(b, 0, b.length, testReads, host.maxDepth);
      if (stub !== undefined) return test(stub);
    } else if (c.byteLength > piece) {
      const stub = Object.create(null) as Record<string, unknown>;
      for (const name of testReads) {
        const m = memberIndex(c, name);
        if (m !== -1) Object.defineProperty(stub, name, { value: c.children!(m, m + 1)[0]!.node.value(), enumerable: true, writable: true, configurable: true });
      }
      return test(stub);
    }
  } else if (testReads && c.type !== 'object') {
    // Reading only `@.name…`: every such path is Nothing on an array or a scalar (§2.3.5.1) as on an object without
    // those members; the value itself (perhaps over maxRecordBytes) is not needed.
    return test(Object.create(null));
  }
  return test(c.value());
}

/** A unit for a node reached through lazy nodes: its value parsed on first access. */
export const walkedUnit = (path: string, n: LazyNode): QueryNode => lazyUnit(path, n);

function lazyUnit(path: string, n: LazyNode): QueryNode {
  let parsed = false;
  let value: unknown;
  const unit = { path, node: n } as QueryNode & { node: LazyNode };
  Object.defineProperty(unit, 'value', {
    enumerable: true,
    configurable: true,
    get() {
      if (!parsed) { value = n.value(); parsed = true; }
      return value;
    },
    set(v: unknown) { value = v; parsed = true; },
  });
  return unit;
}

/**
 * Child `m` of container `n` as queries see it: an element as it is; a member named once as it is; a repeated name at
 * its first position with the value of its last member (the one that wins, as JSON.parse gives it), and null at its
 * other positions.
 */
function shownAt(n: LazyNode, c: { key?: string; index?: number; node: LazyNode }, m: number): { key?: string; index?: number; node: LazyNode } | null {
  if (c.key === undefined) return c;
  const last = memberIndex(n, c.key); // first: it indexes the names, so firstIndex knows when none repeats
  if (firstIndex(n, c.key) !== m) return null;
  return last === m ? c : { key: c.key, node: n.children!(last, last + 1)[0]!.node };
}

/** Index of the first member of object node `n` named `name`, or -1. */
function firstIndex(n: LazyNode, name: string): number {
  const inner = internalsOf(n);
  if (inner) return firstMember(inner.ctx, inner.container(), name, inner.held);
  const count = n.childCount ?? 0;
  for (let m = 0; m < count; m += WINDOW) for (const c of n.children!(m, Math.min(count, m + WINDOW))) if (c.key === name) return c.index ?? m;
  return -1;
}

/** Index of the member of object node `n` named `name` that wins (the last of repeated names), or -1. */
function memberIndex(n: LazyNode, name: string): number {
  const inner = internalsOf(n);
  if (inner) return lastMember(inner.ctx, inner.container(), name, inner.held);
  let found = -1;
  const count = n.childCount ?? 0;
  for (let m = 0; m < count; m += WINDOW) for (const c of n.children!(m, Math.min(count, m + WINDOW))) if (c.key === name) found = c.index ?? m;
  return found;
}

/** RFC 9535 §2.3.4.2.2: the normalized bounds of a slice over `len` elements. */
export function sliceBounds(len: number, sel: { start?: number; end?: number; step?: number }): { start: number; end: number; step: number } {
  const step = sel.step ?? 1;
  if (step === 0) return { start: 0, end: 0, step: 0 };
  const norm = (i: number) => (i >= 0 ? i : len + i);
  if (step > 0) {
    const lower = Math.min(Math.max(norm(sel.start ?? 0), 0), len);
    const upper = Math.min(Math.max(norm(sel.end ?? len), 0), len);
    return { start: lower, end: Math.max(lower, upper), step };
  }
  const upper = Math.min(Math.max(norm(sel.start ?? len - 1), -1), len - 1);
  const lower = Math.min(Math.max(norm(sel.end ?? -len - 1), -1), len - 1);
  return { start: upper, end: Math.min(upper, lower), step };
}

/** Children of a container fetched in windows (one grouped read each), by index. */
class Children {
  private lo = 0;
  private list: { key?: string; index?: number; node: LazyNode }[] = [];
  constructor(private readonly n: LazyNode) {}

  get(m: number): { key?: string; index?: number; node: LazyNode } {
    if (m < this.lo || m >= this.lo + this.list.length) {
      const count = this.n.childCount ?? 0;
      // a window ending at m when walking backwards (m below the window), else starting at m
      const from = m < this.lo ? Math.max(0, m - WINDOW + 1) : m;
      this.lo = from;
      this.list = this.n.children!(from, Math.min(count, from + WINDOW));
    }
    const c = this.list[m - this.lo]!;
    return c.key === undefined && c.index === undefined ? { ...c, index: m } : c;
  }
}

export { memberName };
