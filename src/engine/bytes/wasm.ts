/**
 * WebAssembly binary encoding for the kernel's and plugins' small SIMD loops (WebAssembly core 2.0, §5: the binary
 * format): LEB128 numbers and a module of one function over one linear memory. Each loop writes its own instructions
 * (the bytes of §5.4) and hands them here; no build step, no dependency.
 */

import type { WasmFunctionSpec } from '../../kernel/contracts/toolkit';

/** Unsigned LEB128 (§5.2.2) of `n`, an integer 0 ≤ n < 2^32. */
export function leb128(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

/** Signed LEB128 (§5.2.2) of `n`, an integer −2^31 ≤ n < 2^31 (the immediate of `i32.const`). */
export function sleb128(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) { out.push(b); return out; }
    out.push(b | 0x80);
  }
}

/** A vector (§5.1.3): its length, then its items. */
export const wasmVec = (items: number[][]): number[] => [...leb128(items.length), ...items.flat()];

/** Value types (§5.3.1). */
export const WasmType = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c, v128: 0x7b } as const;

/** One module of {@link wasmModule}: the contract's type (contracts/toolkit.ts), the one definition. */
export type { WasmFunctionSpec };

/** The binary of a module holding one function over one memory (§5.5: type, import, function, memory, export, code). */
export function wasmModule(spec: WasmFunctionSpec): Uint8Array {
  const section = (id: number, body: number[]): number[] => [id, ...leb128(body.length), ...body];
  const name = (s: string): number[] => wasmVec([...Buffer.from(s, 'utf8')].map((b) => [b]));
  const type = [0x60, ...wasmVec(spec.params.map((t) => [t])), ...wasmVec(spec.result === undefined ? [] : [[spec.result]])];
  const code = [...wasmVec(spec.locals.map(([count, t]) => [...leb128(count), t])), ...spec.body];
  const m = spec.memory;
  const exported = [[...name(spec.name), 0x00, 0x00]];
  if ('export' in m) exported.push([...name(m.export), 0x02, 0x00]);
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, wasmVec([type])),
    ...('import' in m ? section(2, wasmVec([[...name(m.import[0]), ...name(m.import[1]), 0x02, 0x00, ...leb128(m.pages)]])) : []),
    ...section(3, wasmVec([[0x00]])),
    ...('export' in m ? section(5, wasmVec([[0x00, ...leb128(m.pages)]])) : []),
    ...section(7, wasmVec(exported)),
    ...section(10, wasmVec([[...leb128(code.length), ...code]])),
  ]);
}
