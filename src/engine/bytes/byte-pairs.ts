/**
 * Where a pair of adjacent bytes occurs in a buffer, each byte compared exactly or without ASCII case, found sixteen
 * positions at a time by a WebAssembly function (128-bit SIMD) the kernel assembles itself (below, with its text
 * form). A JavaScript search of a byte stops at each occurrence of it: a literal's rarest letter, `f` of "failed",
 * is still met several times a record in JSON Lines, and each stop returned to JavaScript (`indexOf`, ~40 ns). The
 * pair is met a thousand times more rarely, and the SIMD loop over the bytes between costs less than copying them
 * into its memory, which it does a window at a time.
 */
import { leb128, sleb128, wasmModule, WasmType } from './wasm';

/** The few WebAssembly JS API members used here (the project's TypeScript libraries do not declare them). */
declare namespace WebAssembly {
  class Module { constructor(bytes: Uint8Array); }
  class Memory { constructor(descriptor: { initial: number; maximum?: number }); readonly buffer: ArrayBuffer; }
  class Instance { constructor(module: Module, imports: Record<string, Record<string, unknown>>); readonly exports: Record<string, unknown>; }
}

/** Bytes searched per call: a window of the buffer is copied into the module's memory, then scanned. */
export const PAIR_WINDOW = 256 * 1024;
/** Layout of the module's memory: hit addresses (u32, at most one per position), then the window and 64 spare bytes. */
const OUT = 0;
const DATA = PAIR_WINDOW * 4;
const PAGES = Math.ceil((DATA + PAIR_WINDOW + 64) / 65536);

/*
 * (module
 *   (import "m" "mem" (memory 1))
 *   (func (export "pairs") (param $p i32) (param $end i32) (param $c0 i32) (param $m0 i32) (param $c1 i32) (param $m1 i32)
 *                          (param $out i32) (result i32)
 *     (local $o i32) (local $mask i32) (local $C0 v128) (local $M0 v128) (local $C1 v128) (local $M1 v128)
 *     (local.set $o (local.get $out))
 *     (local.set $C0 (i8x16.splat (local.get $c0))) (local.set $M0 (i8x16.splat (local.get $m0)))
 *     (local.set $C1 (i8x16.splat (local.get $c1))) (local.set $M1 (i8x16.splat (local.get $m1)))
 *     (block $done (loop $next
 *       (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
 *       ;; bit k of $mask: (mem[p+k] | m0) == c0 and (mem[p+k+1] | m1) == c1
 *       (local.tee $mask (i8x16.bitmask (v128.and
 *         (i8x16.eq (v128.or (v128.load offset=0 (local.get $p)) (local.get $M0)) (local.get $C0))
 *         (i8x16.eq (v128.or (v128.load offset=1 (local.get $p)) (local.get $M1)) (local.get $C1)))))
 *       (if (then (block $none (loop $bit
 *         (br_if $none (i32.eqz (local.get $mask)))
 *         (i32.store (local.get $o) (i32.add (local.get $p) (i32.ctz (local.get $mask))))
 *         (local.set $o (i32.add (local.get $o) (i32.const 4)))
 *         (local.set $mask (i32.and (local.get $mask) (i32.sub (local.get $mask) (i32.const 1))))
 *         (br $bit)))))
 *       (local.set $p (i32.add (local.get $p) (i32.const 16)))
 *       (br $next)))
 *     (i32.shr_u (i32.sub (local.get $o) (local.get $out)) (i32.const 2))))
 */
function assemble(): Uint8Array {
  const u = leb128, s = sleb128;
  const I32 = WasmType.i32, V128 = WasmType.v128, VOID = 0x40;
  const get = (i: number) => [0x20, ...u(i)], set = (i: number) => [0x21, ...u(i)], tee = (i: number) => [0x22, ...u(i)];
  const i32 = (n: number) => [0x41, ...s(n)];
  const simd = (op: number) => [0xfd, ...u(op)];
  const load = (offset: number) => [...simd(0x00), 0, ...u(offset)];
  const BLOCK = [0x02, VOID], LOOP = [0x03, VOID], IF = [0x04, VOID], END = [0x0b];
  const BR = (d: number) => [0x0c, d], BR_IF = (d: number) => [0x0d, d];
  const SPLAT = simd(0x0f), EQ = simd(0x23), AND = simd(0x4e), OR = simd(0x50), BITMASK = simd(0x64);
  const ADD = [0x6a], SUB = [0x6b], IAND = [0x71], CTZ = [0x68], EQZ = [0x45], GE_U = [0x4f], SHR_U = [0x76], STORE = [0x36, 2, 0];
  const [p, end, c0, m0, c1, m1, out, o, mask, C0, M0, C1, M1] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
  const body = [
    ...get(out), ...set(o),
    ...get(c0), ...SPLAT, ...set(C0), ...get(m0), ...SPLAT, ...set(M0),
    ...get(c1), ...SPLAT, ...set(C1), ...get(m1), ...SPLAT, ...set(M1),
    ...BLOCK, ...LOOP,
    ...get(p), ...get(end), ...GE_U, ...BR_IF(1),
    ...get(p), ...load(0), ...get(M0), ...OR, ...get(C0), ...EQ,
    ...get(p), ...load(1), ...get(M1), ...OR, ...get(C1), ...EQ,
    ...AND, ...BITMASK, ...tee(mask),
    ...IF, ...BLOCK, ...LOOP,
    ...get(mask), ...EQZ, ...BR_IF(1),
    ...get(o), ...get(p), ...get(mask), ...CTZ, ...ADD, ...STORE,
    ...get(o), ...i32(4), ...ADD, ...set(o),
    ...get(mask), ...get(mask), ...i32(1), ...SUB, ...IAND, ...set(mask),
    ...BR(0), ...END, ...END, ...END,
    ...get(p), ...i32(16), ...ADD, ...set(p),
    ...BR(0), ...END, ...END,
    ...get(o), ...get(out), ...SUB, ...i32(2), ...SHR_U,
    ...END,
  ];
  return wasmModule({ name: 'pairs', params: new Array<number>(7).fill(I32), result: I32, locals: [[2, I32], [4, V128]], body, memory: { import: ['m', 'mem'], pages: 1 } });
}

type PairsFn = (p: number, end: number, c0: number, m0: number, c1: number, m1: number, out: number) => number;
interface Scanner { pairs: PairsFn; bytes: Uint8Array; hits: Uint32Array }
/** The module instance of this thread (made on first use); null where WebAssembly SIMD is not available. */
let scanner: Scanner | null | undefined;

function instance(): Scanner | null {
  if (scanner !== undefined) return scanner;
  try {
    const memory = new WebAssembly.Memory({ initial: PAGES, maximum: PAGES });
    const exports = new WebAssembly.Instance(new WebAssembly.Module(assemble()), { m: { mem: memory } }).exports;
    scanner = { pairs: exports.pairs as PairsFn, bytes: new Uint8Array(memory.buffer), hits: new Uint32Array(memory.buffer, OUT, PAIR_WINDOW) };
  } catch {
    scanner = null;
  }
  return scanner;
}

/** True when this runtime has WebAssembly SIMD (the pair search); false: callers search another way. */
export function pairSearchAvailable(): boolean {
  return instance() !== null;
}

/**
 * The positions `p` in `[from, to)` of `hay` (`to` ≤ `hay.length - 1`, at most {@link PAIR_WINDOW} positions) where
 * `(hay[p] | m0) === c0` and `(hay[p + 1] | m1) === c1`, in increasing order. `m` is 0x20 to compare an ASCII letter
 * without case (`c` then in lower case), else 0.
 * @throws Error when the pair search is not available ({@link pairSearchAvailable}).
 */
export function pairsIn(hay: Uint8Array, from: number, to: number, c0: number, m0: number, c1: number, m1: number): Int32Array {
  const sc = instance();
  if (!sc) throw new Error('WebAssembly SIMD is not available');
  const n = to - from;
  if (n <= 0) return new Int32Array(0);
  if (n > PAIR_WINDOW) throw new RangeError(`a window of at most ${PAIR_WINDOW} positions`);
  sc.bytes.set(hay.subarray(from, to + 1), DATA);
  const k = sc.pairs(DATA, DATA + n, c0, m0, c1, m1, OUT);
  const hits = sc.hits;
  // the last vector runs past the window's end (into stale bytes): only hits inside it count
  let m = k;
  while (m > 0 && hits[m - 1]! >= DATA + n) m--;
  const found = new Int32Array(m);
  for (let h = 0; h < m; h++) found[h] = hits[h]! - DATA + from;
  return found;
}
