/**
 * JSON texts for tests of byte-level checks: a deterministic generator (mulberry32), values with the awkward parts of
 * RFC 8259 (escapes, surrogates, big and signed numbers, names that need escaping), and mutations that break them.
 */
/** A small deterministic generator (mulberry32). */
export function rng(seed: number) {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const NAMES = ['a', 'status', 'st"x', 'é', '__proto__', '', 'b/c', '0', 'user'];
export function genValue(r: () => number, depth: number): string {
  const k = Math.floor(r() * (depth > 3 ? 5 : 8));
  switch (k) {
    case 0: return ['0', '-0', '12', '-3.50', '1e5', '2E-3', '12345678901234567890', '0.1'][Math.floor(r() * 8)]!;
    case 1: return JSON.stringify(['', 'x', 'a\nb', 'é😀', '\u2028', 'q"u', '\\', '\ud800x'][Math.floor(r() * 8)]!).replace(/é/g, r() < 0.5 ? 'é' : '\\u00e9');
    case 2: return ['true', 'false', 'null'][Math.floor(r() * 3)]!;
    case 3: return r() < 0.5 ? '"plain"' : '"sp\\/ace"';
    case 4: return String(Math.floor(r() * 1000));
    case 5: case 6: {
      const n = Math.floor(r() * 4);
      const members: string[] = [];
      for (let i = 0; i < n; i++) {
        let name = JSON.stringify(NAMES[Math.floor(r() * NAMES.length)]!);
        if (r() < 0.2) name = name.replace(/a/g, '\\u0061');
        members.push(`${name}${r() < 0.3 ? ' : ' : ':'}${genValue(r, depth + 1)}`);
      }
      return `{${members.join(r() < 0.3 ? ' , ' : ',')}}`;
    }
    default: {
      const n = Math.floor(r() * 4);
      return `[${Array.from({ length: n }, () => genValue(r, depth + 1)).join(',')}]`;
    }
  }
}

export function mutate(r: () => number, s: string): string {
  const i = Math.floor(r() * (s.length + 1));
  const ops = [
    () => s.slice(0, i) + s.slice(i + 1),
    () => s.slice(0, i) + ['"', ',', '}', ']', '{', '[', ':', '\\', 'x', '\u0001', ' ', '1', '-', '.', 'e'][Math.floor(r() * 15)] + s.slice(i),
    () => s.slice(0, i),
    () => s + ' ' + s,
  ];
  return ops[Math.floor(r() * ops.length)]!();
}

/** Whether JSON.parse accepts `text` (the reference verdict). */
export function jsonOk(text: string): boolean {
  try { JSON.parse(text); return true; } catch { return false; }
}
