/**
 * The case folding classes behind case-insensitive predicates: built with one regular expression, and the same classes
 * as the ECMAScript `iu` matcher confirms character by character (the reference: a pattern per character).
 */

type PredicateModule = typeof import('../src/search/predicate');

/** The predicate module loaded fresh: its classes not built yet. */
function freshModule(): PredicateModule {
  let mod: PredicateModule | undefined;
  jest.isolateModules(() => {
    mod = jest.requireActual('../src/search/predicate');
  });
  return mod!;
}

/** The classes the way they were first built: each case mapping confirmed by a pattern of its own, `^c$` under `iu`. */
function referenceClasses(): Map<number, number[]> {
  const escape = (ch: string) => (/[()*+\-.?[\\\]^{|}$]/.test(ch) ? '\\' + ch : ch);
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let r = x;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  for (let cp = 0; cp < 0x20000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    for (const other of [ch.toLowerCase(), ch.toUpperCase()]) {
      if (other === ch) continue;
      const o = other.codePointAt(0)!;
      if (other.length !== (o > 0xffff ? 2 : 1)) continue;
      if (!new RegExp(`^${escape(ch)}$`, 'iu').test(other)) continue;
      const a = find(cp), b = find(o);
      if (a !== b) parent.set(a, b);
    }
  }
  const groups = new Map<number, number[]>();
  for (const cp of parent.keys()) {
    const r = find(cp);
    groups.set(r, [...(groups.get(r) ?? []), cp]);
  }
  const out = new Map<number, number[]>();
  for (const g of groups.values()) if (g.length > 1) for (const cp of g) out.set(cp, [...g].sort((x, y) => x - y));
  return out;
}

describe('case folding classes', () => {
  test('are built with at most one RegExp constructed (a pattern per character compiled ~2,900)', () => {
    const mod = freshModule();
    const Original = globalThis.RegExp;
    let constructed = 0;
    globalThis.RegExp = new Proxy(Original, {
      construct(target, args, newTarget) {
        constructed++;
        return Reflect.construct(target, args, newTarget);
      },
    });
    try {
      expect(mod.foldClass('k'.codePointAt(0)!)).toEqual([0x4b, 0x6b, 0x212a]);
    } finally {
      globalThis.RegExp = Original;
    }
    expect(constructed).toBeLessThanOrEqual(1);
  });

  test('equal the classes the `iu` matcher confirms character by character, for every code point below U+20000', () => {
    const mod = freshModule();
    const reference = referenceClasses();
    expect(reference.size).toBeGreaterThan(2000);
    const differing: string[] = [];
    for (let cp = 0; cp < 0x20000; cp++) {
      const want = reference.get(cp) ?? [cp];
      const got = mod.foldClass(cp);
      if (got.join(',') !== want.join(',')) differing.push(`U+${cp.toString(16)}: ${got.join(',')} ≠ ${want.join(',')}`);
    }
    expect(differing).toEqual([]);
    expect(mod.foldClass(0x3c3)).toEqual([0x3a3, 0x3c2, 0x3c3]); // Σ σ ς
    expect(mod.foldClass(0x131)).toEqual([0x131]); // ı: no simple folding
  });
});
