/**
 * A group table in typed arrays, for tables of very many groups (a worker thread's whole table, and the parts it hands
 * over): each group's canonical key (table.ts `canonical`, the key of a TableData group) as UTF-16 code units in one
 * arena (one byte a unit when every unit of the key is below 256), found through an open-addressing hash table of
 * group numbers, with its count and first record in Float64Arrays. What cannot be derived from the key is kept beside
 * it as before: the key parts as first seen when they differ from the key's text (numbers keep their lexeme, arrays
 * and objects their text) and the metric states (exact sums, extremes). A group costs ~40–60 bytes instead of a Map
 * entry, a key string and objects (~470 bytes of heap). Plain data crosses threads: {@link CompactTable.take} makes
 * the groups of one hash part a {@link CompactData} whose arrays are transferred, not copied.
 * Not for count_distinct (its exact sets turn into sketches under the bound: TableData does that).
 */
import type { Atoms, Compiled, Group, MetricState, Part, TableData } from './table';
import { addMetrics, GROUP_BYTES, keyPart, keyTexts, keyTypes, mergeMetrics, metricGrowth, newMetric, newTable, PART_BYTES, T_BUCKET_NUMBER, T_BUCKET_TIME, T_FALSE, T_MISSING, T_NULL, T_NUMBER, T_STRING, T_TRUE, T_UNBUCKETABLE, canonical } from './table';
import { numeralKey } from '../numbers/compare';

/** The first unit of a type's canonical key (table.ts `canonical`); arrays and objects 'j'. */
const PREFIX: number[] = [];
PREFIX[T_MISSING] = 0x6d; PREFIX[T_NULL] = 0x7a; PREFIX[T_FALSE] = 0x66; PREFIX[T_TRUE] = 0x74; PREFIX[T_NUMBER] = 0x6e;
PREFIX[T_STRING] = 0x73; PREFIX[T_UNBUCKETABLE] = 0x75; PREFIX[T_BUCKET_NUMBER] = 0x62; PREFIX[T_BUCKET_TIME] = 0x62;
const J = 0x6a;
/** Types whose key part is derived from the key (its text after the prefix, or empty): no Part kept beside it. */
const DERIVED = new Uint8Array(16);
for (const t of [T_MISSING, T_NULL, T_FALSE, T_TRUE, T_STRING, T_UNBUCKETABLE, T_BUCKET_TIME]) DERIVED[t] = 1;

/** Whether an aggregate of this spec can keep its groups in a CompactTable (no exact distinct sets). */
export function compactable(c: Compiled): boolean {
  return !c.spec.partition && c.spec.metrics.every((m) => m.kind !== 'count_distinct');
}

/** A CompactTable as plain data (structured-cloneable; its typed arrays transferable). */
export interface CompactData {
  compact: true;
  n: number;
  hashes: Int32Array;
  /** Where each key starts in `narrow` (≥ 0) or, as −1 − start, in `wide`. */
  starts: Int32Array;
  lengths: Int32Array;
  /** The type of the first key part (single-dimension keys whose part is derived from the key). */
  types: Uint8Array;
  counts: Float64Array;
  firsts: Float64Array;
  narrow: Uint8Array;
  wide: Uint16Array;
  /** Per group: its parts when they are not derived from the key, else null or absent (past its end, or a hole). */
  parts: (Part[] | null)[];
  /** Per group: its metric states; null without metrics. */
  metrics: MetricState[][] | null;
  estimate: number;
  side: number;
}

const FNV = 0x811c9dc5, PRIME = 0x01000193;

/** The key of the unit add() last looked at: its first unit (−1: none, the key is `keyText` alone) and its text. */
let keyPrefix = -1;
let keyText = '';
/** Or (merge, take): the key of group `fromGroup` of table `fromTable`, copied unit by unit, never made a string. */
let fromTable: CompactTable | null = null;
let fromGroup = 0;
/** Or (receive): the key `fromUnits[fromAt, fromAt + fromLength)` of hash `fromHash`, from another thread's outbox. */
let fromUnits: Uint16Array | null = null;
let fromAt = 0, fromLength = 0, fromHash = 0;

/** Keys bound for the thread that holds their part: their hashes, lengths, records and units (UTF-16). */
export interface OutboxData {
  outbox: true;
  n: number;
  used: number;
  hashes: Int32Array;
  lengths: Int32Array;
  records: Float64Array;
  /** The key's type (its part is derived from the key: {@link DERIVED}). */
  types: Uint8Array;
  units: Uint16Array;
}
/** An outbox is sent when it holds this many keys, or this many units. */
const OUT_KEYS = 1024, OUT_UNITS = 16384;
/** Outboxes a table makes at most (sent ones come back and are used again). */
const OUT_MAX = 32;

function newOutbox(): OutboxData {
  return { outbox: true, n: 0, used: 0, hashes: new Int32Array(OUT_KEYS), lengths: new Int32Array(OUT_KEYS), records: new Float64Array(OUT_KEYS), types: new Uint8Array(OUT_KEYS), units: new Uint16Array(OUT_UNITS) };
}

/** The buffers of an outbox (sent and sent back by transfer: a handful of outboxes serve a whole aggregate). */
export function outboxTransfer(o: OutboxData): ArrayBuffer[] {
  return [o.hashes.buffer as ArrayBuffer, o.lengths.buffer as ArrayBuffer, o.records.buffer as ArrayBuffer, o.types.buffer as ArrayBuffer, o.units.buffer as ArrayBuffer];
}

/** The slot of hash `h` in a table of `mask + 1` slots (FNV's low bits mixed with its high ones). */
function slotOf(h: number, mask: number): number {
  return (Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) ^ (h >>> 7)) & mask;
}

export class CompactTable {
  n = 0;
  private cap: number;
  hashes: Int32Array;
  starts: Int32Array;
  lengths: Int32Array;
  types: Uint8Array;
  counts: Float64Array;
  firsts: Float64Array;
  narrow: Uint8Array;
  private narrowUsed = 0;
  wide: Uint16Array;
  private wideUsed = 0;
  private slots: Int32Array;
  parts: (Part[] | null)[] = [];
  metrics: MetricState[][] | null;
  /** The estimate TableData would make of these groups (GROUP_BYTES…): the bounds that decide how an answer is made. */
  estimate = 0;
  /** Estimated bytes of what is kept beside the arrays (parts, metric states). */
  side = 0;
  /**
   * Of `estimate`, the groups of this table's own keys (all of them without a split): every other table of the job
   * holds none of them but units kept back (an outbox too many), so the sum over the threads is at most the estimate
   * of the job's distinct groups.
   */
  owned = 0;

  /** `inPlace`: arrays grow in place (see RESERVE); else they are copied. */
  constructor(private readonly c: Compiled, cap = 1024, private readonly inPlace = true) {
    this.cap = cap;
    this.hashes = growable(Int32Array, cap, inPlace);
    this.starts = growable(Int32Array, cap, inPlace);
    this.lengths = growable(Int32Array, cap, inPlace);
    this.types = growable(Uint8Array, cap, inPlace);
    this.counts = growable(Float64Array, cap, inPlace);
    this.firsts = growable(Float64Array, cap, inPlace);
    this.narrow = growable(Uint8Array, cap * 16, inPlace);
    this.wide = new Uint16Array(0);
    let s = 16;
    while (s < 2 * cap) s *= 2;
    this.slots = growable(Int32Array, s, inPlace);
    this.metrics = c.spec.metrics.length > 0 ? [] : null;
  }

  /** Bytes held: the arrays, and what is kept beside them (estimated). */
  get bytes(): number {
    return this.cap * 29 + this.narrow.length + 2 * this.wide.length + 4 * this.slots.length + this.side;
  }

  /** Adds one unit of record `record` (atoms as addUnit takes them). */
  add(record: number, atoms: Atoms): void {
    const c = this.c;
    fromTable = null;
    fromUnits = null;
    const dims = c.spec.dimensions;
    if (dims.length === 1) {
      const s = dims[0]!.slot;
      keyPart(c, 0, atoms.types[s]!, atoms.texts[s]!);
      const t = keyTypes[0]!;
      keyPrefix = PREFIX[t] ?? J;
      keyText = t === T_NUMBER || t === T_BUCKET_NUMBER ? numeralKey(keyTexts[0]!) : t === T_STRING || t === T_BUCKET_TIME || t >= 6 && t <= 7 ? keyTexts[0]! : '';
    } else {
      let key = '';
      for (let d = 0; d < dims.length; d++) {
        const s = dims[d]!.slot;
        keyPart(c, d, atoms.types[s]!, atoms.texts[s]!);
        const k = canonical(keyTypes[d]!, keyTexts[d]!);
        key += k.length + ':' + k;
      }
      keyPrefix = -1;
      keyText = key;
    }
    if (this.owners > 1 && this.metrics === null && dims.length === 1 && DERIVED[keyTypes[0]!] === 1) {
      // Keys of another thread's part go to it (their groups are held there only), unless too long for an outbox.
      this.hashKey();
      this.hashed = true;
      const owner = this.hash % this.owners;
      if (owner !== this.me) this.hashed = false;
      if (owner !== this.me && keyText.length < OUT_UNITS / 4 && this.forward(owner, record)) return;
    }
    let g = this.find();
    if (g < 0) {
      const before = this.estimate;
      g = this.insert(record);
      let parts: Part[] | null = null;
      if (dims.length > 1 || !DERIVED[keyTypes[0]!]) {
        parts = [];
        for (let d = 0; d < dims.length; d++) {
          const p: Part = { t: keyTypes[d]!, x: keyTexts[d]!, r: record };
          if (p.t === 6 || p.t === 7) p.raw = atoms.raws[dims[d]!.slot]!;
          parts.push(p);
        }
      }
      this.setSide(g, parts, this.metrics ? c.spec.metrics.map((m) => newMetric(m.kind)) : null);
      if (this.owners === 1 || this.hash % this.owners === this.me) this.owned += this.estimate - before;
    }
    this.counts[g] = this.counts[g]! + 1;
    if (this.metrics) {
      addMetrics(this.metrics[g]!, c, record, atoms);
      if (metricGrowth.all !== 0) { this.estimate += metricGrowth.all; this.side += metricGrowth.all; }
    }
  }

  /** The hash of the key find() last looked for; `hashed`: already set for the key in keyPrefix/keyText. */
  private hash = 0;
  private hashed = false;

  /** The group of the key in keyPrefix/keyText (or, with `fromTable`, group `fromGroup` of it), or −1 (its hash left in `hash`). */
  private find(): number {
    if (fromTable !== null) return this.findFrom(fromTable, fromGroup);
    if (fromUnits !== null) return this.findUnits(fromUnits, fromAt, fromLength, fromHash);
    if (!this.hashed) this.hashKey();
    this.hashed = false;
    const h = this.hash;
    const full = keyText.length + (keyPrefix >= 0 ? 1 : 0);
    const mask = this.slots.length - 1;
    const hi = h | 0;
    for (let s = slotOf(h, mask); ; s = (s + 1) & mask) {
      const g = this.slots[s]! - 1;
      if (g < 0) return -1;
      if (this.hashes[g] === hi && this.lengths[g] === full && this.sameKey(g)) return g;
    }
  }

  private sameKey(g: number): boolean {
    const start = this.starts[g]!;
    const text = keyText;
    const off = keyPrefix >= 0 ? 1 : 0;
    if (start >= 0) {
      const a = this.narrow;
      if (off && a[start] !== keyPrefix) return false;
      for (let i = 0; i < text.length; i++) if (a[start + off + i] !== text.charCodeAt(i)) return false;
    } else {
      const a = this.wide, w = -1 - start;
      if (off && a[w] !== keyPrefix) return false;
      for (let i = 0; i < text.length; i++) if (a[w + off + i] !== text.charCodeAt(i)) return false;
    }
    return true;
  }

  /** Sets `hash` to the hash of the key in keyPrefix/keyText (FNV-1a of its units: table.ts partOfKey's). */
  private hashKey(): void {
    let h = FNV;
    if (keyPrefix >= 0) h = Math.imul(h ^ keyPrefix, PRIME) >>> 0;
    const text = keyText;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), PRIME) >>> 0;
    this.hash = h;
  }

  /** The group of the key `units[at, at + len)` whose hash is `h`, or −1 (its hash left in `hash`). */
  private findUnits(units: Uint16Array, at: number, len: number, h: number): number {
    this.hash = h >>> 0;
    const mask = this.slots.length - 1;
    for (let s = slotOf(h >>> 0, mask); ; s = (s + 1) & mask) {
      const g = this.slots[s]! - 1;
      if (g < 0) return -1;
      if (this.hashes[g] === (h | 0) && this.lengths[g] === len && this.sameUnits(g, units, at, len)) return g;
    }
  }

  private sameUnits(g: number, units: Uint16Array, at: number, len: number): boolean {
    const x = this.starts[g]!;
    if (x >= 0) {
      const p = this.narrow;
      for (let i = 0; i < len; i++) if (p[x + i] !== units[at + i]) return false;
    } else {
      const p = this.wide, w = -1 - x;
      for (let i = 0; i < len; i++) if (p[w + i] !== units[at + i]) return false;
    }
    return true;
  }

  /**
   * Writes the key in keyPrefix/keyText (hash in `hash`) of a unit of record `record` into the outbox of thread
   * `owner`; false when OUT_MAX outboxes are out already (the other thread is behind: the unit is counted here, and
   * its group is merged with the other thread's at the hand-over, as without a split).
   */
  private forward(owner: number, record: number): boolean {
    const full = keyText.length + (keyPrefix >= 0 ? 1 : 0);
    let o = this.outboxes[owner] ?? null;
    if (o !== null && (o.n === OUT_KEYS || o.used + full > OUT_UNITS)) { this.send!(owner, o); this.outboxes[owner] = o = null; }
    if (o === null) {
      o = this.spare.pop() ?? null;
      if (o === null) {
        if (this.made >= OUT_MAX) return false;
        this.made++;
        o = newOutbox();
      }
      this.outboxes[owner] = o;
    }
    const i = o.n++;
    o.hashes[i] = this.hash | 0;
    o.lengths[i] = full;
    o.records[i] = record;
    o.types[i] = keyTypes[0]!;
    let at = o.used;
    if (keyPrefix >= 0) o.units[at++] = keyPrefix;
    for (let k = 0; k < keyText.length; k++) o.units[at + k] = keyText.charCodeAt(k);
    o.used += full;
    return true;
  }

  /**
   * Threads split the keys (count-only aggregates of one dimension): this table holds the keys whose hash modulo
   * `owners` is `me`, and sends the others to their thread in outboxes (`send`; a spent outbox comes back through
   * {@link recycle}). Set before the first unit.
   */
  splitKeys(owners: number, me: number, send: (owner: number, o: OutboxData) => void): void {
    this.owners = owners;
    this.me = me;
    this.send = send;
  }

  /** Sends every outbox that holds keys (before the table is handed over: the other threads then count them). */
  sendAll(): void {
    for (let owner = 0; owner < this.outboxes.length; owner++) {
      const o = this.outboxes[owner];
      if (o && o.n > 0) { this.send!(owner, o); this.outboxes[owner] = null; }
    }
  }

  /** An outbox this thread sent, back from the thread that counted its keys: used again. */
  recycle(o: OutboxData): void {
    o.n = 0;
    o.used = 0;
    this.spare.push(o); // kept: outboxes dropped waited for a collection this thread seldom runs
  }

  /** Counts the keys of an outbox another thread sent (keys of this thread's part). */
  receive(o: OutboxData): void {
    try {
      fromUnits = o.units;
      let at = 0;
      for (let i = 0; i < o.n; i++) {
        const len = o.lengths[i]!;
        fromAt = at; fromLength = len; fromHash = o.hashes[i]!;
        at += len;
        this.addGroup(null, 1, o.records[i]!, null, o.types[i]!, null);
      }
    } finally {
      fromUnits = null;
    }
  }

  private owners = 1;
  private me = 0;
  private send: ((owner: number, o: OutboxData) => void) | null = null;
  private outboxes: (OutboxData | null)[] = [];
  private spare: OutboxData[] = [];
  /** Outboxes made (each ~50 KB; at most OUT_MAX). */
  private made = 0;

  /** The group of the key of group `bg` of table `b`, or −1 (its hash left in `hash`). */
  private findFrom(b: CompactTable, bg: number): number {
    const h = b.hashes[bg]!, len = b.lengths[bg]!;
    this.hash = h >>> 0;
    const mask = this.slots.length - 1;
    for (let s = slotOf(h >>> 0, mask); ; s = (s + 1) & mask) {
      const g = this.slots[s]! - 1;
      if (g < 0) return -1;
      if (this.hashes[g] === h && this.lengths[g] === len && this.sameAs(g, b, bg, len)) return g;
    }
  }

  private sameAs(g: number, b: CompactTable, bg: number, len: number): boolean {
    const x = this.starts[g]!, y = b.starts[bg]!;
    if ((x >= 0) !== (y >= 0)) return false; // a key is narrow or wide by its own units
    if (x >= 0) {
      const p = this.narrow, q = b.narrow;
      for (let i = 0; i < len; i++) if (p[x + i] !== q[y + i]) return false;
    } else {
      const p = this.wide, q = b.wide, xw = -1 - x, yw = -1 - y;
      for (let i = 0; i < len; i++) if (p[xw + i] !== q[yw + i]) return false;
    }
    return true;
  }

  /** A new group of the key in keyPrefix/keyText (or of group `fromGroup` of `fromTable`), first seen in `record`. */
  private insert(record: number): number {
    if (this.n === this.cap) this.grow();
    const g = this.n++;
    if (fromUnits !== null) {
      const u = fromUnits, full = fromLength;
      let narrow = true;
      for (let i = 0; i < full; i++) if (u[fromAt + i]! > 0xff) { narrow = false; break; }
      if (narrow) {
        if (this.narrowUsed + full > this.narrow.length) this.narrow = grown(this.narrow, this.narrowUsed + full, this.inPlace);
        const a = this.narrow, at = this.narrowUsed;
        for (let i = 0; i < full; i++) a[at + i] = u[fromAt + i]!;
        this.starts[g] = at;
        this.narrowUsed += full;
      } else {
        if (this.wideUsed + full > this.wide.length) this.wide = grown(this.wide, this.wideUsed + full, this.inPlace);
        this.wide.set(u.subarray(fromAt, fromAt + full), this.wideUsed);
        this.starts[g] = -1 - this.wideUsed;
        this.wideUsed += full;
      }
      return this.inserted(g, full, record);
    }
    if (fromTable !== null) {
      const b = fromTable, y = b.starts[fromGroup]!, full = b.lengths[fromGroup]!;
      if (y >= 0) {
        if (this.narrowUsed + full > this.narrow.length) this.narrow = grown(this.narrow, this.narrowUsed + full, this.inPlace);
        this.narrow.set(b.narrow.subarray(y, y + full), this.narrowUsed);
        this.starts[g] = this.narrowUsed;
        this.narrowUsed += full;
      } else {
        if (this.wideUsed + full > this.wide.length) this.wide = grown(this.wide, this.wideUsed + full, this.inPlace);
        this.wide.set(b.wide.subarray(-1 - y, -1 - y + full), this.wideUsed);
        this.starts[g] = -1 - this.wideUsed;
        this.wideUsed += full;
      }
      return this.inserted(g, full, record);
    }
    const text = keyText;
    const off = keyPrefix >= 0 ? 1 : 0;
    const full = text.length + off;
    let narrow = true;
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) { narrow = false; break; }
    if (narrow) {
      if (this.narrowUsed + full > this.narrow.length) this.narrow = grown(this.narrow, this.narrowUsed + full, this.inPlace);
      const a = this.narrow, at = this.narrowUsed;
      if (off) a[at] = keyPrefix;
      for (let i = 0; i < text.length; i++) a[at + off + i] = text.charCodeAt(i);
      this.starts[g] = at;
      this.narrowUsed += full;
    } else {
      if (this.wideUsed + full > this.wide.length) this.wide = grown(this.wide, this.wideUsed + full, this.inPlace);
      const a = this.wide, at = this.wideUsed;
      if (off) a[at] = keyPrefix;
      for (let i = 0; i < text.length; i++) a[at + off + i] = text.charCodeAt(i);
      this.starts[g] = -1 - at;
      this.wideUsed += full;
    }
    return this.inserted(g, full, record);
  }

  /** The rest of a new group g whose key (`full` units) is in place. */
  private inserted(g: number, full: number, record: number): number {
    this.lengths[g] = full;
    this.hashes[g] = this.hash | 0;
    this.types[g] = keyPrefix >= 0 ? keyTypes[0]! : 0;
    this.counts[g] = 0;
    this.firsts[g] = record;
    if (2 * this.n > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(g);
    this.estimate += GROUP_BYTES + 2 * full;
    return g;
  }

  private setSide(g: number, parts: Part[] | null, metrics: MetricState[] | null): void {
    if (parts || g < this.parts.length) this.parts[g] = parts;
    let est = 0;
    if (parts) {
      for (const p of parts) est += PART_BYTES + 2 * p.x.length + (p.raw ? 2 * p.raw.length : 0);
      this.side += est;
    } else est = PART_BYTES + 2 * (this.lengths[g]! - 1);
    if (metrics) {
      this.metrics![g] = metrics;
      est += 64 * metrics.length;
      this.side += 64 * metrics.length;
    }
    this.estimate += est;
  }

  private place(g: number): void {
    const mask = this.slots.length - 1;
    let s = slotOf(this.hashes[g]! >>> 0, mask);
    while (this.slots[s] !== 0) s = (s + 1) & mask;
    this.slots[s] = g + 1;
  }

  private rehash(size: number): void {
    this.slots = resized(this.slots, size, this.inPlace);
    this.slots.fill(0);
    for (let g = 0; g < this.n; g++) this.place(g);
  }

  private grow(): void {
    const cap = Math.max(16, this.cap * 2);
    this.hashes = resized(this.hashes, cap, this.inPlace);
    this.starts = resized(this.starts, cap, this.inPlace);
    this.lengths = resized(this.lengths, cap, this.inPlace);
    this.types = resized(this.types, cap, this.inPlace);
    this.counts = resized(this.counts, cap, this.inPlace);
    this.firsts = resized(this.firsts, cap, this.inPlace);
    this.cap = cap;
  }

  /** The canonical key of group g (the key a TableData keeps it under). */
  key(g: number): string {
    const start = this.starts[g]!, len = this.lengths[g]!;
    if (start >= 0) return latin1(this.narrow, start, len);
    const w = -1 - start;
    return String.fromCharCode.apply(null, this.wide.subarray(w, w + len) as unknown as number[]);
  }

  /** Group g as a TableData group (made now: for finishing it, or for a table of objects). */
  group(g: number): Group {
    let parts = this.parts[g] ?? null;
    if (parts === null) {
      const t = this.types[g]!;
      const x = t === T_STRING || t === T_BUCKET_TIME ? this.key(g).slice(1) : '';
      parts = [{ t, x, r: this.firsts[g]! }];
    }
    const len = this.lengths[g]!;
    const m = this.metrics ? this.metrics[g]! : [];
    return { parts, count: this.counts[g]!, m, b: GROUP_BYTES + PART_BYTES + 4 * len + 64 * m.length, db: 0 };
  }

  /** Sets the key to find or insert to `key` (a canonical table key). */
  private static keyed(key: string): void {
    fromTable = null;
    fromUnits = null;
    keyPrefix = -1;
    keyText = key;
  }

  /** Adds a group (its key, count, first record, parts and metric states) of another table into this one. */
  private addGroup(key: string | null, count: number, first: number, parts: Part[] | null, type: number, metrics: MetricState[] | null): void {
    if (key !== null) CompactTable.keyed(key);
    let g = this.find();
    if (g < 0) {
      const before = this.estimate;
      g = this.insert(first);
      this.types[g] = type;
      this.setSide(g, parts, metrics);
      if (this.owners === 1 || this.hash % this.owners === this.me) this.owned += this.estimate - before;
      this.counts[g] = count;
      return;
    }
    this.counts[g] = this.counts[g]! + count;
    if (first < this.firsts[g]!) {
      // the key as first seen in file order (a number's lexeme, an array's text)
      this.firsts[g] = first;
      if (parts || g < this.parts.length) this.parts[g] = parts;
      this.types[g] = type;
    }
    if (metrics && this.metrics) {
      const grew = mergeMetrics(this.metrics[g]!, metrics, this.c);
      this.side += grew;
      this.estimate += grew;
    }
  }

  /** Merges `b` (a table of the same aggregate, over other records) into this one. */
  merge(b: CompactTable): void {
    try {
      fromUnits = null;
      fromTable = b;
      for (let g = 0; g < b.n; g++) {
        fromGroup = g;
        this.addGroup(null, b.counts[g]!, b.firsts[g]!, b.parts[g] ?? null, b.types[g]!, b.metrics ? b.metrics[g]! : null);
      }
    } finally {
      fromTable = null;
    }
  }

  /** Adds group `g` of table `b` (its key, count, first record, parts and metric states) to this one. */
  copy(b: CompactTable, g: number): void {
    try {
      fromUnits = null;
      fromTable = b;
      fromGroup = g;
      this.addGroup(null, b.counts[g]!, b.firsts[g]!, b.parts[g] ?? null, b.types[g]!, b.metrics ? b.metrics[g]! : null);
    } finally {
      fromTable = null;
    }
  }

  /** Merges the groups of a TableData (the groups this thread aggregated itself) into this one. */
  mergeTable(t: TableData): void {
    for (const [key, gr] of t.groups) this.addGroup(key, gr.count, gr.parts[0]?.r ?? 0, gr.parts, gr.parts[0]?.t ?? 0, this.metrics ? gr.m : null);
  }

  /**
   * The groups of hash part `part` of `parts` (table.ts partOfKey of their keys), as data to transfer: copied into
   * arrays of their size (the keys are distinct: no lookups), which leave with the message.
   */
  take(part: number, parts: number): CompactData {
    let n = 0, narrowUnits = 0, wideUnits = 0;
    for (let g = 0; g < this.n; g++) {
      if ((this.hashes[g]! >>> 0) % parts !== part) continue;
      n++;
      if (this.starts[g]! >= 0) narrowUnits += this.lengths[g]!; else wideUnits += this.lengths[g]!;
    }
    const d: CompactData = {
      compact: true, n,
      hashes: new Int32Array(n), starts: new Int32Array(n), lengths: new Int32Array(n), types: new Uint8Array(n),
      counts: new Float64Array(n), firsts: new Float64Array(n), narrow: new Uint8Array(narrowUnits), wide: new Uint16Array(wideUnits),
      parts: [], metrics: this.metrics ? [] : null, estimate: 0, side: 0,
    };
    let k = 0, nu = 0, wu = 0;
    for (let g = 0; g < this.n; g++) {
      if ((this.hashes[g]! >>> 0) % parts !== part) continue;
      const start = this.starts[g]!, len = this.lengths[g]!;
      if (start >= 0) {
        d.narrow.set(this.narrow.subarray(start, start + len), nu);
        d.starts[k] = nu;
        nu += len;
      } else {
        d.wide.set(this.wide.subarray(-1 - start, -1 - start + len), wu);
        d.starts[k] = -1 - wu;
        wu += len;
      }
      d.hashes[k] = this.hashes[g]!; d.lengths[k] = len; d.types[k] = this.types[g]!;
      d.counts[k] = this.counts[g]!; d.firsts[k] = this.firsts[g]!;
      const p = this.parts[g];
      if (p) { d.parts[k] = p; for (const x of p) d.side += PART_BYTES + 2 * x.x.length + (x.raw ? 2 * x.raw.length : 0); }
      const m = this.metrics?.[g];
      if (m) { d.metrics![k] = m; d.side += 64 * m.length; }
      d.estimate += GROUP_BYTES + PART_BYTES + 4 * len + 64 * (m ? m.length : 0);
      k++;
    }
    return d;
  }

  /** This table as plain data (its arrays cut to their use: transfer them). */
  data(): CompactData {
    const n = this.n;
    return {
      compact: true, n,
      hashes: this.hashes.slice(0, n), starts: this.starts.slice(0, n), lengths: this.lengths.slice(0, n),
      types: this.types.slice(0, n), counts: this.counts.slice(0, n), firsts: this.firsts.slice(0, n),
      narrow: this.narrow.slice(0, this.narrowUsed), wide: this.wide.slice(0, this.wideUsed),
      parts: this.parts,
      metrics: this.metrics, estimate: this.estimate, side: this.side,
    };
  }

  /** The buffers of `d` (for postMessage's transfer list). */
  static transfer(d: CompactData): ArrayBuffer[] {
    return [d.hashes, d.starts, d.lengths, d.types, d.counts, d.firsts, d.narrow, d.wide].map((a) => a.buffer as ArrayBuffer);
  }

  /** A table of data a thread sent. */
  static from(c: Compiled, d: CompactData): CompactTable {
    // Its arrays are taken as they are (transferred: no copy); the first new group grows them.
    const t = new CompactTable(c, 0);
    t.n = t.cap = d.n;
    t.hashes = d.hashes; t.starts = d.starts; t.lengths = d.lengths; t.types = d.types;
    t.counts = d.counts; t.firsts = d.firsts;
    t.narrow = d.narrow;
    t.narrowUsed = d.narrow.length;
    t.wide = d.wide;
    t.wideUsed = d.wide.length;
    t.parts = d.parts;
    t.metrics = d.metrics;
    t.estimate = d.estimate;
    t.side = d.side;
    let s = 16;
    while (s < 2 * d.n) s *= 2;
    t.rehash(s);
    return t;
  }

  /** The groups as a TableData (a Map of objects, as table.ts keeps them). */
  toTable(): TableData {
    const t = newTable();
    for (let g = 0; g < this.n; g++) {
      const gr = this.group(g);
      t.groups.set(this.key(g), gr);
    }
    t.bytes = this.estimate;
    return t;
  }

  /** Calls `f` with each group (made as it goes). */
  forEach(f: (g: Group) => void): void {
    for (let g = 0; g < this.n; g++) f(this.group(g));
  }
}

/** Whether a message's table is CompactData. */
export function isCompactData(x: unknown): x is CompactData {
  return typeof x === 'object' && x !== null && (x as { compact?: unknown }).compact === true;
}

function latin1(a: Uint8Array, start: number, len: number): string {
  return Buffer.from(a.buffer, a.byteOffset + start, len).toString('latin1');
}

type Typed = Int32Array | Uint8Array | Uint16Array | Float64Array;
type TypedClass<T extends Typed> = { new (buffer: ArrayBuffer): T; new (n: number): T; BYTES_PER_ELEMENT: number };

/**
 * Address space a growable array reserves (V8 commits its pages only as the array grows). Arrays are grown in place,
 * not copied: a thread's table allocates little else, so the collection that frees an array left behind by a copy
 * came late, and a table's old copies (as large as the table, all told) stayed resident until then.
 */
const RESERVE = 2 ** 31;
/** A resizable ArrayBuffer (ES2024; Node 20+). */
const Resizable = ArrayBuffer as unknown as new (bytes: number, options: { maxByteLength: number }) => ArrayBuffer & { resizable: boolean; maxByteLength: number; resize(bytes: number): void };

/** A typed array of `n` elements; `inPlace`: one that grows in place (length-tracking, on a resizable ArrayBuffer), where the system lets it reserve the address space. */
function growable<T extends Typed>(type: TypedClass<T>, n: number, inPlace: boolean): T {
  if (inPlace) {
    try {
      return new type(new Resizable(n * type.BYTES_PER_ELEMENT, { maxByteLength: RESERVE }));
    } catch {
      // no address space to reserve (a limit on virtual memory): arrays are copied as they grow
    }
  }
  return new type(n);
}

/** `a` with room for `cap` elements: grown in place when it can be, else copied. */
function resized<T extends Typed>(a: T, cap: number, inPlace: boolean): T {
  if (a.length >= cap) return a;
  const type = a.constructor as TypedClass<T>;
  const buffer = a.buffer as ArrayBuffer & { resizable?: boolean; maxByteLength?: number; resize?(bytes: number): void };
  const bytes = cap * type.BYTES_PER_ELEMENT;
  if (buffer.resizable && a.byteOffset === 0 && bytes <= buffer.maxByteLength!) {
    buffer.resize!(bytes);
    return a;
  }
  const b = growable(type, cap, inPlace);
  b.set(a);
  return b;
}

/** `a` grown to hold at least `need` (by half again, at least). */
function grown<T extends Typed>(a: T, need: number, inPlace: boolean): T {
  let cap = Math.max(1024, a.length);
  while (cap < need) cap = Math.ceil(cap * 1.5);
  return resized(a, cap, inPlace);
}
