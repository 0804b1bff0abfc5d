/**
 * The WebAssembly encoder of the plugin API (src/engine/bytes/wasm.ts): LEB128 against the values worked out in the
 * WebAssembly core spec's examples and DWARF's, and a module of one function that validates and runs; and the three
 * SIMD loops built with it (pair search, record check, semantic scores) are available on this Node, so a broken
 * module cannot hide behind their JavaScript fallbacks.
 */
import { leb128, sleb128, wasmModule, wasmVec, WasmType } from '../../src/engine/bytes/wasm';
import { pairSearchAvailable } from '../../src/engine/bytes/byte-pairs';
import { SimdRecordCheck } from '../../src/engine/aggregate/check-simd';
import { slotPlan } from '../../src/engine/aggregate/extract';
import { SimdScorer } from '../../plugins/tools-sessions/src/semantic/simd';

declare const WebAssembly: {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, any> };
  Memory: new (d: { initial: number }) => { buffer: ArrayBuffer };
};

test('LEB128: unsigned and signed, as the binary format writes them (§5.2.2)', () => {
  expect(leb128(0)).toEqual([0x00]);
  expect(leb128(127)).toEqual([0x7f]);
  expect(leb128(128)).toEqual([0x80, 0x01]);
  expect(leb128(624485)).toEqual([0xe5, 0x8e, 0x26]);
  expect(leb128(0xffffffff)).toEqual([0xff, 0xff, 0xff, 0xff, 0x0f]);
  expect(sleb128(0)).toEqual([0x00]);
  expect(sleb128(63)).toEqual([0x3f]);
  expect(sleb128(64)).toEqual([0xc0, 0x00]);
  expect(sleb128(-1)).toEqual([0x7f]);
  expect(sleb128(-64)).toEqual([0x40]);
  expect(sleb128(-65)).toEqual([0xbf, 0x7f]);
  expect(sleb128(-123456)).toEqual([0xc0, 0xbb, 0x78]);
  expect(wasmVec([[1, 2], [3]])).toEqual([2, 1, 2, 3]);
});

test('a module of one function over its own memory, and one over an imported memory, validate and run', () => {
  const { i32 } = WasmType;
  // (a, b) → a + b, stored at 0 too: local.get 0, local.get 1, i32.add, local.tee 2 ... with i32.store
  const body = [0x41, 0x00, 0x20, 0x00, 0x20, 0x01, 0x6a, 0x22, 0x02, 0x36, 0x02, 0x00, 0x20, 0x02, 0x0b];
  const own = wasmModule({ name: 'add', params: [i32, i32], result: i32, locals: [[1, i32]], body, memory: { export: 'memory', pages: 1 } });
  expect(WebAssembly.validate(own)).toBe(true);
  const a = new WebAssembly.Instance(new WebAssembly.Module(own), {}).exports;
  expect(a.add(40, 2)).toBe(42);
  expect(new Int32Array(a.memory.buffer)[0]).toBe(42);
  const imported = wasmModule({ name: 'add', params: [i32, i32], result: i32, locals: [[1, i32]], body, memory: { import: ['env', 'mem'], pages: 1 } });
  expect(WebAssembly.validate(imported)).toBe(true);
  const memory = new WebAssembly.Memory({ initial: 1 });
  const b = new WebAssembly.Instance(new WebAssembly.Module(imported), { env: { mem: memory } }).exports;
  expect(b.add(-5, 3)).toBe(-2);
  expect(new Int32Array(memory.buffer)[0]).toBe(-2);
  expect(b.memory).toBeUndefined();
});

test('the SIMD loops built with it are available here (their fallbacks would hide a broken module)', () => {
  expect(pairSearchAvailable()).toBe(true);
  expect(SimdRecordCheck.create(slotPlan([['status']], 64))).not.toBeNull();
  expect(SimdScorer.create(16, 4, 2)).not.toBeNull();
});
