/**
 * The record check of {@link readRecord} in WebAssembly with 128-bit SIMD: the same decision (one well-formed JSON
 * value, RFC 8259 §2–7 grammar, no deeper than the bound; UTF-8 is checked apart, per batch) and the same top-level
 * member spans, at several times the speed — string content (most of a record's bytes) is crossed 16 bytes per step,
 * looking for the quote, the backslash and control characters (RFC 8259 §7) at once. The module is assembled here
 * for one plan (its names are compared as constants, its nesting bound is a constant), from its instructions below,
 * with no build step or dependency; where WebAssembly SIMD is missing the caller keeps {@link readRecord}.
 *
 * Memory: bytes [0, 256) a class per byte (whitespace, hex digit, escape letter), then the spans of the wanted names
 * (two int32 each), the nesting stack (one byte a level), then the bytes being checked (a stretch of records copied
 * in by {@link SimdRecordCheck.load}, padded so that a 16-byte load at any position before its end stays inside).
 *
 * ```wat
 * (func (export "check") (param $s i32) (param $e i32) (result i32)
 *   ;; the grammar walk of readRecord over bytes [s, e), bounds checked at every byte it reads, strings by
 *   ;; i8x16.bitmask((v == '"') | (v == '\\') | (v <u 0x20)) and i32.ctz; at depth 1 each name without a backslash
 *   ;; is compared with the plan's names; a name with one returns FALLBACK (readRecord decodes it).
 *   ;; result: OK | MALFORMED | TOO_DEEP | FALLBACK, plus DUP (4) when a wanted name occurred twice.
 * )
 * ```
 */
import { MALFORMED, OK, TOO_DEEP, type SlotPlan } from './extract';
import { leb128, sleb128, wasmModule } from '../bytes/wasm';

/** The check could not decide with the plan's names (a top-level name holds an escape): use readRecord. */
export const FALLBACK = 3;

/** The few WebAssembly JS API members used here (the project's TypeScript libraries do not declare them). */
declare namespace WebAssembly {
  class Module { constructor(bytes: Uint8Array); }
  class Memory { readonly buffer: ArrayBuffer; grow(pages: number): number; }
  class Instance { constructor(module: Module, imports: Record<string, Record<string, unknown>>); readonly exports: Record<string, unknown>; }
  function validate(bytes: Uint8Array): boolean;
}

// ---------------------------------------------------------------- encoding (WebAssembly core 2.0, §5)
const leb = leb128, sleb = sleb128;

/** Instructions with named labels: a structured block is an object, a branch names its target. */
type Ins = number | Ins[] | { block: string; body: Ins[] } | { loop: string; body: Ins[] } | { if: Ins[] } | { br: string } | { brIf: string };

const BLOCK = 0x02, LOOP = 0x03, IF = 0x04, END = 0x0b, BR = 0x0c, BR_IF = 0x0d, RETURN = 0x0f, VOID = 0x40;

/** Flattens `code` to bytes, turning label names into branch depths (§5.4.1). */
function emit(code: Ins, labels: string[], out: number[]): void {
  if (typeof code === 'number') { out.push(code); return; }
  if (Array.isArray(code)) { for (const c of code) emit(c, labels, out); return; }
  if ('block' in code || 'loop' in code) {
    const label = 'block' in code ? code.block : code.loop;
    out.push('block' in code ? BLOCK : LOOP, VOID);
    labels.push(label);
    emit(code.body, labels, out);
    labels.pop();
    out.push(END);
    return;
  }
  if ('if' in code) {
    out.push(IF, VOID);
    labels.push('');
    emit(code.if, labels, out);
    labels.pop();
    out.push(END);
    return;
  }
  const target = 'br' in code ? code.br : code.brIf;
  const at = labels.lastIndexOf(target);
  if (at < 0) throw new Error(`no label ${target}`);
  out.push('br' in code ? BR : BR_IF, ...leb(labels.length - 1 - at));
}

// Opcodes (§5.4).
const LOCAL_GET = 0x20, LOCAL_SET = 0x21, LOCAL_TEE = 0x22;
const I32_LOAD = 0x28, I32_LOAD8_U = 0x2d, I32_STORE = 0x36, I32_STORE8 = 0x3a, I32_CONST = 0x41;
const I32_EQZ = 0x45, I32_EQ = 0x46, I32_NE = 0x47, I32_LT_S = 0x48, I32_LT_U = 0x49, I32_GT_U = 0x4b, I32_GE_U = 0x4f;
const I32_CTZ = 0x68, I32_ADD = 0x6a, I32_SUB = 0x6b, I32_AND = 0x71, I32_OR = 0x72, I32_SHL = 0x74;
const T_I32 = 0x7f, T_V128 = 0x7b;
const simd = (op: number, ...imm: number[]): number[] => [0xfd, ...leb(op), ...imm];
const V128_LOAD = 0x00, I8X16_SPLAT = 0x0f, I8X16_EQ = 0x23, I8X16_LT_U = 0x26, V128_OR = 0x50, I8X16_BITMASK = 0x64;

/** Byte classes in memory [0, 256). */
const C_WS = 1, C_HEX = 2, C_ESCAPE = 4;
const TABLE = new Uint8Array(256);
for (const c of ' \n\r\t') TABLE[c.charCodeAt(0)] |= C_WS;
for (const c of '0123456789abcdefABCDEF') TABLE[c.charCodeAt(0)] |= C_HEX;
for (const c of '"\\/bfnrt') TABLE[c.charCodeAt(0)] |= C_ESCAPE;

/** Longest top-level name (UTF-8 bytes) compared in the module; a plan with a longer one keeps readRecord. */
const MAX_NAME_BYTES = 256;
/** Largest stretch of records copied into a module's memory at once; longer ones are checked by readRecord. */
export const MAX_STRETCH_BYTES = 8 * 1024 * 1024;
const PAGE = 65536;
/** Bytes after a stretch that a 16-byte load may touch. */
const PAD = 32;

interface Layout { spans: number; stack: number; input: number }

function layoutOf(names: number, maxDepth: number): Layout {
  const spans = 256;
  const stack = spans + 8 * names;
  const input = Math.ceil((stack + maxDepth + 2) / 16) * 16;
  return { spans, stack, input };
}

/** The module for names `keys` (their UTF-8, without quotes) and nesting bound `maxDepth`. */
function checkModule(keys: readonly Buffer[], maxDepth: number, layout: Layout): Uint8Array {
  // parameters, then locals
  const s = 0, e = 1, p = 2, depth = 3, c = 4, cur = 5, curStart = 6, q = 7, m = 8, esc = 9, ks = 10, dup = 11, d = 12;
  const vq = 13, vb = 14, vsp = 15, v = 16;
  const get = (i: number): number[] => [LOCAL_GET, i], set = (i: number): number[] => [LOCAL_SET, i], tee = (i: number): number[] => [LOCAL_TEE, i];
  const i32 = (n: number): number[] => [I32_CONST, ...sleb(n)];
  const ld8 = (offset = 0): number[] => [I32_LOAD8_U, 0, ...leb(offset)];
  const ld32 = (offset = 0): number[] => [I32_LOAD, 0, ...leb(offset)];
  const st32 = (offset = 0): number[] => [I32_STORE, 0, ...leb(offset)];
  const st8 = (offset = 0): number[] => [I32_STORE8, 0, ...leb(offset)];
  const ret = (code: number): Ins => [...i32(code), RETURN];
  const inc = (x: number, by = 1): number[] => [...get(x), ...i32(by), I32_ADD, ...set(x)];
  /** Malformed when p >= e. */
  const needByte: Ins = [...get(p), ...get(e), I32_GE_U, { if: [ret(MALFORMED)] }];
  let n = 0;
  const fresh = (what: string): string => `${what}${n++}`;
  const skipWs = (): Ins => {
    const done = fresh('wsdone'), again = fresh('ws');
    return { block: done, body: [{ loop: again, body: [
      ...get(p), ...get(e), I32_GE_U, { brIf: done },
      ...get(p), ...ld8(), ...ld8(0), ...i32(C_WS), I32_AND, I32_EQZ, { brIf: done },
      ...inc(p), { br: again },
    ] }] };
  };
  /** The string at p (its opening quote): p after its closing quote, esc = 1 when it holds an escape. */
  const readString = (): Ins => {
    const done = fresh('sdone'), again = fresh('s');
    return [...i32(0), ...set(esc), ...inc(p), { block: done, body: [{ loop: again, body: [
      ...get(p), ...simd(V128_LOAD, 0, 0), ...tee(v), ...get(vq), ...simd(I8X16_EQ),
      ...get(v), ...get(vb), ...simd(I8X16_EQ), ...simd(V128_OR),
      ...get(v), ...get(vsp), ...simd(I8X16_LT_U), ...simd(V128_OR),
      ...simd(I8X16_BITMASK), ...tee(m), I32_EQZ,
      { if: [...get(p), ...i32(16), I32_ADD, ...tee(p), ...get(e), I32_GE_U, { if: [ret(MALFORMED)] }, { br: again }] },
      ...get(p), ...get(m), I32_CTZ, I32_ADD, ...tee(q), ...get(e), I32_GE_U, { if: [ret(MALFORMED)] },
      ...get(q), ...ld8(), ...tee(c), ...i32(0x22), I32_EQ, { if: [...get(q), ...i32(1), I32_ADD, ...set(p), { br: done }] },
      ...get(c), ...i32(0x5c), I32_NE, { if: [ret(MALFORMED)] }, // a control character
      ...i32(1), ...set(esc),
      ...get(q), ...i32(1), I32_ADD, ...get(e), I32_GE_U, { if: [ret(MALFORMED)] },
      ...get(q), ...ld8(1), ...tee(d), ...i32(0x75), I32_EQ,
      { if: [
        ...get(q), ...i32(5), I32_ADD, ...get(e), I32_GE_U, { if: [ret(MALFORMED)] },
        ...get(q), ...ld8(2), ...ld8(0), ...get(q), ...ld8(3), ...ld8(0), I32_AND, ...get(q), ...ld8(4), ...ld8(0), I32_AND,
        ...get(q), ...ld8(5), ...ld8(0), I32_AND, ...i32(C_HEX), I32_AND, I32_EQZ, { if: [ret(MALFORMED)] },
        ...get(q), ...i32(6), I32_ADD, ...set(p), { br: again },
      ] },
      ...get(d), ...ld8(0), ...i32(C_ESCAPE), I32_AND, I32_EQZ, { if: [ret(MALFORMED)] },
      ...get(q), ...i32(2), I32_ADD, ...set(p), { br: again },
    ] }] }];
  };
  /** At depth 1, after a name read from ks to p: cur = the index of the wanted name it spells, or -1. */
  const matchName = (): Ins => {
    if (keys.length === 0) return [];
    const found = fresh('found');
    const tries: Ins[] = keys.map((k, w) => {
      const next = fresh('next');
      // The length, then each byte: a difference branches out of this try.
      const body: Ins[] = [...get(p), ...get(ks), I32_SUB, ...i32(k.length + 2), I32_NE, { brIf: next }];
      for (let j = 0; j < k.length; j++) body.push(...get(ks), ...ld8(1 + j), ...i32(k[j]!), I32_NE, { brIf: next });
      body.push(...i32(w), ...set(cur), { br: found });
      return { block: next, body };
    });
    return [
      ...i32(-1), ...set(cur),
      ...get(esc), { if: [ret(FALLBACK)] },
      { block: found, body: tries },
    ];
  };
  /** A name then its colon, at p (object content, after `{` or `,`). */
  const member = (): Ins => [
    ...needByte, ...get(p), ...ld8(), ...i32(0x22), I32_NE, { if: [ret(MALFORMED)] },
    ...get(p), ...set(ks),
    readString(),
    ...get(depth), ...i32(1), I32_EQ, { if: [matchName()] },
    skipWs(),
    ...needByte, ...get(p), ...ld8(), ...i32(0x3a), I32_NE, { if: [ret(MALFORMED)] },
    ...inc(p),
  ];
  const open = (bracket: number, close: number, kind: number, after: string, value: string): Ins => [
    ...get(depth), ...i32(1), I32_ADD, ...i32(maxDepth), I32_GT_U, { if: [ret(TOO_DEEP)] },
    ...inc(p), skipWs(),
    ...get(p), ...get(e), I32_LT_U, { if: [...get(p), ...ld8(), ...i32(close), I32_EQ, { if: [...inc(p), { br: after }] }] },
    ...inc(depth), ...get(depth), ...i32(kind), ...st8(layout.stack),
    ...(bracket === 0x7b ? [member()] : []),
    { br: value },
  ];
  const digits = (): Ins => {
    const done = fresh('ddone'), again = fresh('d');
    return { block: done, body: [{ loop: again, body: [
      ...get(p), ...get(e), I32_GE_U, { brIf: done },
      ...get(p), ...ld8(), ...i32(0x30), I32_SUB, ...i32(10), I32_GE_U, { brIf: done },
      ...inc(p), { br: again },
    ] }] };
  };
  const literal = (word: string, after: string): Ins => {
    const w = Buffer.from(word, 'latin1');
    const head = w.readInt32LE(0);
    return [
      ...get(p), ...ld32(), ...i32(head), I32_NE, { if: [ret(MALFORMED)] },
      ...(w.length === 5 ? [...get(p), ...ld8(4), ...i32(w[4]!), I32_NE, { if: [ret(MALFORMED)] }] : []),
      ...inc(p, w.length),
      ...get(p), ...get(e), I32_GT_U, { if: [ret(MALFORMED)] },
      { br: after },
    ];
  };
  const number = (): Ins => [
    ...get(c), ...i32(0x2d), I32_EQ, { if: [...inc(p)] },
    ...needByte,
    ...get(p), ...ld8(), ...tee(c), ...i32(0x30), I32_NE,
    { if: [
      ...get(c), ...i32(0x31), I32_SUB, ...i32(9), I32_GE_U, { if: [ret(MALFORMED)] },
      digits(),
    ] },
    ...get(c), ...i32(0x30), I32_EQ, { if: [...inc(p)] },
    // fraction
    ...get(p), ...get(e), I32_LT_U, { if: [...get(p), ...ld8(), ...i32(0x2e), I32_EQ, { if: [
      ...inc(p), ...get(p), ...set(q), digits(), ...get(p), ...get(q), I32_EQ, { if: [ret(MALFORMED)] },
    ] }] },
    // exponent
    ...get(p), ...get(e), I32_LT_U, { if: [...get(p), ...ld8(), ...i32(0x20), I32_OR, ...i32(0x65), I32_EQ, { if: [
      ...inc(p),
      ...get(p), ...get(e), I32_LT_U, { if: [...get(p), ...ld8(), ...tee(c), ...i32(0x2b), I32_EQ, ...get(c), ...i32(0x2d), I32_EQ, I32_OR, { if: [...inc(p)] }] },
      ...get(p), ...set(q), digits(), ...get(p), ...get(q), I32_EQ, { if: [ret(MALFORMED)] },
    ] }] },
  ];
  const stackAt = (kind: number): number[] => [...get(depth), ...ld8(layout.stack), ...i32(kind), I32_EQ];
  const body: Ins = [
    ...i32(0x22), ...simd(I8X16_SPLAT), ...set(vq),
    ...i32(0x5c), ...simd(I8X16_SPLAT), ...set(vb),
    ...i32(0x20), ...simd(I8X16_SPLAT), ...set(vsp),
    ...keys.flatMap((_, w) => [...i32(layout.spans + 8 * w), ...i32(-1), ...st32(), ...i32(layout.spans + 8 * w + 4), ...i32(-1), ...st32()]),
    ...get(s), ...set(p), ...i32(-1), ...set(cur),
    { loop: 'value', body: [
      { block: 'after', body: [
        skipWs(),
        ...needByte,
        ...get(depth), ...i32(1), I32_EQ, { if: [...get(p), ...set(curStart)] },
        ...get(p), ...ld8(), ...set(c),
        ...get(c), ...i32(0x7b), I32_EQ, { if: [open(0x7b, 0x7d, 1, 'after', 'value')] },
        ...get(c), ...i32(0x5b), I32_EQ, { if: [open(0x5b, 0x5d, 2, 'after', 'value')] },
        ...get(c), ...i32(0x22), I32_EQ, { if: [readString(), { br: 'after' }] },
        ...get(c), ...i32(0x74), I32_EQ, { if: [literal('true', 'after')] },
        ...get(c), ...i32(0x66), I32_EQ, { if: [literal('false', 'after')] },
        ...get(c), ...i32(0x6e), I32_EQ, { if: [literal('null', 'after')] },
        number(),
      ] },
      // A value ended at p: close containers and find the next value.
      { loop: 'close', body: [
        ...get(depth), ...i32(1), I32_EQ, ...get(cur), ...i32(0), I32_LT_S, I32_EQZ, I32_AND,
        { if: [
          ...get(cur), ...i32(3), I32_SHL, ...ld32(layout.spans), ...i32(-1), I32_NE, { if: [...i32(1), ...set(dup)] },
          ...get(cur), ...i32(3), I32_SHL, ...get(curStart), ...st32(layout.spans),
          ...get(cur), ...i32(3), I32_SHL, ...get(p), ...st32(layout.spans + 4),
          ...i32(-1), ...set(cur),
        ] },
        skipWs(),
        ...get(depth), I32_EQZ, { if: [
          ...get(p), ...get(e), I32_EQ, { if: [...get(dup), ...i32(2), I32_SHL, RETURN] },
          ret(MALFORMED),
        ] },
        ...needByte,
        ...get(p), ...ld8(), ...tee(c), ...i32(0x2c), I32_EQ, { if: [
          ...inc(p),
          ...stackAt(1), { if: [skipWs(), member()] },
          { br: 'value' },
        ] },
        ...get(c), ...i32(0x7d), I32_EQ, ...stackAt(1), I32_AND, ...get(c), ...i32(0x5d), I32_EQ, ...stackAt(2), I32_AND, I32_OR,
        { if: [...get(depth), ...i32(1), I32_SUB, ...set(depth), ...inc(p), { br: 'close' }] },
        ret(MALFORMED),
      ] },
    ] },
    ...i32(MALFORMED),
  ];
  const code: number[] = [];
  emit(body, [], code);
  code.push(END);
  const pages = Math.ceil((layout.input + PAD) / PAGE) + 1;
  // (i32 i32) → i32 over its own memory, grown by load()
  return wasmModule({ name: 'check', params: [T_I32, T_I32], result: T_I32, locals: [[11, T_I32], [4, T_V128]], body: code, memory: { export: 'memory', pages } });
}

let simdAvailable: boolean | undefined;

/** Compiled modules kept per thread, by names and nesting bound. */
export const MODULES_KEPT = 8;
const modules = new Map<string, WebAssembly.Module | null>();

/**
 * readRecord's check for one plan in WebAssembly SIMD. Use: {@link load} a stretch of records, then {@link check}
 * each (positions in the caller's buffer). Created only where WebAssembly SIMD is available and the plan has no
 * negative index. The plan's `tops` are the member names of an object record; an array record, whose elements a
 * first token may select (`plan.indexes`), is left to readRecord (FALLBACK) when there are such.
 */
export class SimdRecordCheck {
  private readonly run: (s: number, e: number) => number;
  private readonly memory: WebAssembly.Memory;
  private readonly layout: Layout;
  private spans: Int32Array;
  private bytes: Uint8Array;
  /** Position in the module's memory of the caller's byte 0 of the stretch loaded. */
  private shift = 0;
  private lo = 0;
  private hi = -1;
  /** Some top is an array index: array records fall back. */
  private readonly indexes: boolean;

  private constructor(module: WebAssembly.Module, layout: Layout, private readonly names: number, plan: SlotPlan) {
    this.indexes = plan.indexes.length > 0;
    this.layout = layout;
    const instance = new WebAssembly.Instance(module, {});
    this.run = instance.exports.check as (s: number, e: number) => number;
    this.memory = instance.exports.memory as WebAssembly.Memory;
    new Uint8Array(this.memory.buffer, 0, 256).set(TABLE);
    this.spans = new Int32Array(this.memory.buffer, layout.spans, 2 * names);
    this.bytes = new Uint8Array(this.memory.buffer);
  }

  /**
   * The compiled module of `plan`'s check, or null (no WebAssembly SIMD, a negative index or an over-long name among
   * its tops). Compiled once per set of names and nesting bound in a thread (the last {@link MODULES_KEPT} are kept); a
   * module is posted to worker threads with their job (a WebAssembly.Module crosses `postMessage`), so a thread
   * instantiates it instead of assembling and compiling its own.
   */
  static module(plan: SlotPlan): WebAssembly.Module | null {
    if (plan.negative) return null;
    const key = JSON.stringify([plan.tops, plan.maxDepth]);
    if (modules.has(key)) {
      const kept = modules.get(key)!;
      modules.delete(key); // most recent last
      modules.set(key, kept);
      return kept;
    }
    let module: WebAssembly.Module | null = null;
    const keys = plan.tops.map((t) => Buffer.from(JSON.stringify(t)).subarray(1, -1));
    if (keys.every((k) => k.length <= MAX_NAME_BYTES) && simdAvailable !== false && typeof WebAssembly === 'object') {
      try {
        const bytes = checkModule(keys, plan.maxDepth, layoutOf(keys.length, plan.maxDepth));
        simdAvailable = WebAssembly.validate(bytes);
        if (simdAvailable) module = new WebAssembly.Module(bytes);
      } catch {
        module = null;
      }
    }
    modules.set(key, module);
    if (modules.size > MODULES_KEPT) modules.delete(modules.keys().next().value!);
    return module;
  }

  /**
   * The check for `plan`, or null (as {@link module}). `module`: the plan's module compiled elsewhere (by the thread
   * that posted it); default this thread's own.
   */
  static create(plan: SlotPlan, module?: WebAssembly.Module | null): SimdRecordCheck | null {
    const m = module === undefined ? SimdRecordCheck.module(plan) : module;
    if (!m || plan.negative) return null;
    try {
      return new SimdRecordCheck(m, layoutOf(plan.tops.length, plan.maxDepth), plan.tops.length, plan);
    } catch {
      return null;
    }
  }

  /**
   * Copies `b[lo, hi)` (whole records) into the module's memory for {@link check}; false when the stretch is longer
   * than {@link MAX_STRETCH_BYTES} (nothing is loaded).
   */
  load(b: Uint8Array, lo: number, hi: number): boolean {
    const length = hi - lo;
    if (length > MAX_STRETCH_BYTES) { this.hi = -1; return false; }
    // The bytes go where they have the same alignment (mod 8) as in `b`: a copy out of a SharedArrayBuffer (a batch
    // shared with this thread, aggregate-threads.ts) is word by word only then, byte by byte else (~10× slower).
    const input = this.layout.input + ((b.byteOffset + lo - this.layout.input) & 7);
    const need = input + length + PAD;
    if (need > this.memory.buffer.byteLength) {
      this.memory.grow(Math.ceil((need - this.memory.buffer.byteLength) / PAGE));
      this.spans = new Int32Array(this.memory.buffer, this.layout.spans, 2 * this.names);
      this.bytes = new Uint8Array(this.memory.buffer);
    }
    this.bytes.set(b.subarray(lo, hi), input);
    this.bytes.fill(0, input + length, input + length + PAD);
    this.shift = input - lo;
    this.lo = lo;
    this.hi = hi;
    return true;
  }

  /** Whether `[s, e)` lies in the stretch loaded. */
  holds(s: number, e: number): boolean {
    return s >= this.lo && e <= this.hi;
  }

  /**
   * readRecord(b, s, e, plan) for a record of the stretch loaded: OK, MALFORMED or TOO_DEEP, with `plan.spans` and
   * `plan.dup` filled as readRecord fills them on OK; or FALLBACK (then call readRecord).
   */
  check(s: number, e: number, plan: SlotPlan): number {
    const shift = this.shift;
    if (this.indexes) {
      let p = s + shift;
      const end = e + shift, bytes = this.bytes;
      while (p < end && (bytes[p] === 0x20 || bytes[p] === 0x0a || bytes[p] === 0x0d || bytes[p] === 0x09)) p++;
      if (bytes[p] === 0x5b) return FALLBACK;
    }
    const r = this.run(s + shift, e + shift);
    const st = r & 3;
    if (st !== OK) return st;
    plan.dup = (r & 4) !== 0;
    const from = this.spans, to = plan.spans;
    for (let k = 0; k < from.length; k++) {
      const x = from[k]!;
      to[k] = x < 0 ? -1 : x - shift;
    }
    return OK;
  }
}
