/**
 * The vector side of semantic_search in WebAssembly 128-bit SIMD: int8 rows × a 16-bit fixed-point query, 16 products
 * per instruction pair, each group's best cosine kept on the way — the same int32 arithmetic as `bestCosines` (so the
 * same results), about 15 times faster than it on 100-d rows. The rows live in the module's memory, in one contiguous
 * block loaded once; the module is assembled here from its instructions (below, in WebAssembly text form), no build
 * step or dependency.
 *
 * ```wat
 * (func (export "score") (param $rows i32) (param $count i32) (param $chunks i32) (param $q i32) (param $factors i32)
 *                        (param $group i32) (param $best i32) (param $bestRow i32)
 *   ;; for each row r: if factors[r] ≠ 0 { dot = Σ over chunks of i32x4.dot_i16x8_s(extend(row bytes), q);
 *   ;;   cos = f64(dot) × f64(factors[r]) / 32767; g = group[r]; if cos > f64(best[g]) { best[g] = f32(cos); bestRow[g] = r } }
 *   ;; rows are `chunks` × 16 bytes (zero-padded); q is `chunks` × 16 int16.
 * )
 * ```
 */
import { leb128 as leb, sleb128 as sleb, wasmModule } from '../toolkit';

/** The few WebAssembly JS API members used here (the project's TypeScript libraries do not declare them). */
declare namespace WebAssembly {
  class Module { constructor(bytes: Uint8Array); }
  class Memory { constructor(descriptor: { initial: number; maximum?: number }); readonly buffer: ArrayBuffer; }
  class Instance { constructor(module: Module, imports: Record<string, Record<string, unknown>>); readonly exports: Record<string, unknown>; }
  function validate(bytes: Uint8Array): boolean;
}

/** Bytes a row takes in memory: the dimensions rounded up to a whole 16-byte chunk. */
export function strideOf(dim: number): number {
  return Math.ceil(dim / 16) * 16;
}

/** Fixed-point scale of the query (as `bestCosines`). */
const Q_SCALE = 32767;


// Opcodes (WebAssembly core 2.0, §5.4; SIMD instructions are 0xFD followed by their LEB128 number).
const BLOCK = 0x02, LOOP = 0x03, IF = 0x04, ELSE = 0x05, END = 0x0b, BR = 0x0c, BR_IF = 0x0d, VOID = 0x40;
const LOCAL_GET = 0x20, LOCAL_SET = 0x21, LOCAL_TEE = 0x22;
const I32_LOAD = 0x28, F32_LOAD = 0x2a, I32_STORE = 0x36, F32_STORE = 0x38;
const I32_CONST = 0x41, F32_CONST = 0x43, F64_CONST = 0x44;
const I32_LT_U = 0x49, I32_GE_U = 0x4f, F32_NE = 0x5c, F64_GT = 0x64;
const I32_ADD = 0x6a, I32_SHL = 0x74, F64_MUL = 0xa2, F64_DIV = 0xa3;
const F32_DEMOTE_F64 = 0xb6, F64_CONVERT_I32_S = 0xb7, F64_PROMOTE_F32 = 0xbb;
const V128_LOAD = 0x00, V128_CONST = 0x0c, I32X4_EXTRACT_LANE = 0x1b;
const I16X8_EXTEND_LOW_I8X16_S = 0x87, I16X8_EXTEND_HIGH_I8X16_S = 0x88, I32X4_ADD = 0xae, I32X4_DOT_I16X8_S = 0xba;
const T_I32 = 0x7f, T_F32 = 0x7d, T_F64 = 0x7c, T_V128 = 0x7b;

function scoreModule(): Uint8Array {
  const simd = (op: number, ...imm: number[]) => [0xfd, ...leb(op), ...imm];
  const get = (i: number) => [LOCAL_GET, i], set = (i: number) => [LOCAL_SET, i], tee = (i: number) => [LOCAL_TEE, i];
  const i32 = (n: number) => [I32_CONST, ...sleb(n)];
  const f64 = (x: number) => { const b = Buffer.alloc(8); b.writeDoubleLE(x); return [F64_CONST, ...b]; };
  const at4 = (base: number, index: number) => [...get(base), ...get(index), ...i32(2), I32_SHL, I32_ADD]; // base + 4 × index
  const mem = (align: number, offset = 0) => [align, ...leb(offset)];
  // parameters 0–7, then locals
  const rows = 0, count = 1, chunks = 2, q = 3, factors = 4, group = 5, best = 6, bestRow = 7;
  const r = 8, p = 9, c = 10, qp = 11, g = 12, acc = 13, x = 14, f = 15, cos = 16;
  const body = [
    ...get(rows), ...set(p),
    BLOCK, VOID, LOOP, VOID,
    ...get(r), ...get(count), I32_GE_U, BR_IF, 1,
    ...at4(factors, r), F32_LOAD, ...mem(2), ...set(f),
    ...get(f), F32_CONST, 0, 0, 0, 0, F32_NE,
    IF, VOID,
    ...simd(V128_CONST, ...new Array<number>(16).fill(0)), ...set(acc),
    ...get(q), ...set(qp), ...i32(0), ...set(c),
    LOOP, VOID,
    ...get(p), ...simd(V128_LOAD, ...mem(0)), ...set(x),
    ...get(acc),
    ...get(x), ...simd(I16X8_EXTEND_LOW_I8X16_S), ...get(qp), ...simd(V128_LOAD, ...mem(0)), ...simd(I32X4_DOT_I16X8_S), ...simd(I32X4_ADD),
    ...get(x), ...simd(I16X8_EXTEND_HIGH_I8X16_S), ...get(qp), ...simd(V128_LOAD, ...mem(0, 16)), ...simd(I32X4_DOT_I16X8_S), ...simd(I32X4_ADD),
    ...set(acc),
    ...get(p), ...i32(16), I32_ADD, ...set(p),
    ...get(qp), ...i32(32), I32_ADD, ...set(qp),
    ...get(c), ...i32(1), I32_ADD, ...tee(c), ...get(chunks), I32_LT_U, BR_IF, 0,
    END,
    ...get(acc), ...simd(I32X4_EXTRACT_LANE, 0), ...get(acc), ...simd(I32X4_EXTRACT_LANE, 1), I32_ADD,
    ...get(acc), ...simd(I32X4_EXTRACT_LANE, 2), I32_ADD, ...get(acc), ...simd(I32X4_EXTRACT_LANE, 3), I32_ADD,
    F64_CONVERT_I32_S, ...get(f), F64_PROMOTE_F32, F64_MUL, ...f64(Q_SCALE), F64_DIV, ...set(cos),
    ...at4(group, r), I32_LOAD, ...mem(2), ...set(g),
    ...get(cos), ...at4(best, g), F32_LOAD, ...mem(2), F64_PROMOTE_F32, F64_GT,
    IF, VOID,
    ...at4(best, g), ...get(cos), F32_DEMOTE_F64, F32_STORE, ...mem(2),
    ...at4(bestRow, g), ...get(r), I32_STORE, ...mem(2),
    END,
    ELSE,
    ...get(p), ...get(chunks), ...i32(4), I32_SHL, I32_ADD, ...set(p),
    END,
    ...get(r), ...i32(1), I32_ADD, ...set(r),
    BR, 0,
    END, END,
    END,
  ];
  // (i32 × 8) → (), over an imported memory of at least 1 page
  return wasmModule({ name: 'score', params: new Array<number>(8).fill(T_I32), locals: [[5, T_I32], [2, T_V128], [1, T_F32], [1, T_F64]], body, memory: { import: ['env', 'memory'], pages: 1 } });
}

let compiled: WebAssembly.Module | null | undefined;

/** The compiled module, or null where WebAssembly SIMD is not available (the caller scores in JavaScript). */
function scoreWasm(): WebAssembly.Module | null {
  if (compiled !== undefined) return compiled;
  try {
    const bytes = scoreModule();
    compiled = typeof WebAssembly === 'object' && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  } catch {
    compiled = null;
  }
  return compiled;
}

/** Largest memory a 32-bit module can address, bytes. */
const MAX_MEMORY = 4 * 2 ** 30 - 65536;

/**
 * `count` int8 rows of `dim` (stride `strideOf(dim)`, zero-padded), a factor (scale / norm) and a group per row, and
 * the per-group results, all in one WebAssembly memory. Fill `rows`, `factors` and `group` once; then `score` per query.
 */
export class SimdScorer {
  readonly stride: number;
  readonly rows: Int8Array;
  readonly factors: Float32Array;
  readonly group: Int32Array;
  readonly best: Float32Array;
  readonly bestRow: Int32Array;
  private readonly query: Int16Array;
  private readonly offsets: { rows: number; query: number; factors: number; group: number; best: number; bestRow: number };
  private readonly run: (...args: number[]) => void;

  private constructor(module: WebAssembly.Module, readonly dim: number, readonly count: number, readonly groups: number) {
    this.stride = strideOf(dim);
    let top = 0;
    const take = (bytes: number) => { const at = top; top += Math.ceil(bytes / 16) * 16; return at; };
    this.offsets = {
      rows: take(count * this.stride), query: take(this.stride * 2), factors: take(count * 4), group: take(count * 4),
      best: take(groups * 4), bestRow: take(groups * 4),
    };
    if (top > MAX_MEMORY) throw new RangeError('too many vectors for one WebAssembly memory');
    const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(top / 65536)) });
    const instance = new WebAssembly.Instance(module, { env: { memory } });
    this.run = instance.exports.score as (...args: number[]) => void;
    const buf = memory.buffer, o = this.offsets;
    this.rows = new Int8Array(buf, o.rows, count * this.stride);
    this.query = new Int16Array(buf, o.query, this.stride);
    this.factors = new Float32Array(buf, o.factors, count);
    this.group = new Int32Array(buf, o.group, count);
    this.best = new Float32Array(buf, o.best, groups);
    this.bestRow = new Int32Array(buf, o.bestRow, groups);
  }

  /** A scorer for `count` rows in `groups` groups, or null when WebAssembly SIMD or the memory is not available. */
  static create(dim: number, count: number, groups: number): SimdScorer | null {
    const module = scoreWasm();
    if (!module) return null;
    try {
      return new SimdScorer(module, dim, count, groups);
    } catch {
      return null;
    }
  }

  /**
   * For unit query `qv`: each group's best cosine into `best` (-Infinity for a group without a scored row) and the
   * row that gave it into `bestRow` (-1). Rows with a zero factor are skipped. The arrays are overwritten by the next call.
   */
  /** `best` to -Infinity and `bestRow` to -1 (a query with no vector scores nothing). */
  clear(): void {
    this.best.fill(Number.NEGATIVE_INFINITY);
    this.bestRow.fill(-1);
  }

  score(qv: Float32Array): void {
    this.query.fill(0);
    for (let k = 0; k < this.dim; k++) this.query[k] = Math.round(qv[k]! * Q_SCALE);
    this.clear();
    const o = this.offsets;
    this.run(o.rows, this.count, this.stride / 16, o.query, o.factors, o.group, o.best, o.bestRow);
  }
}
