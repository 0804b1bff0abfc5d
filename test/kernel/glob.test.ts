/**
 * Globs match in time linear in the path, whatever the pattern, and refuse what cannot be bounded: a glob built into
 * a regular expression backtracked on `*a*a*a…` and a million nested braces ran the expression compiler out of
 * memory (the process aborted). The automaton answers as the regular-expression translation did (property test).
 */
import fc from 'fast-check';
import { compileGlob, MAX_GLOB_ALTERNATIVES } from '../../src/kernel/files/glob';

/** The former translation, as the reference: `**​/` (?:.*\/)?, `**` .*, `*` [^/]*, `?` [^/], classes, braces. */
function reference(glob: string): RegExp {
  let re = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i++;
        if (glob[i + 1] === '/') { i++; re += '(?:.*/)?'; } else re += '.*';
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      let body = glob.slice(i + 1, close);
      if (body.startsWith('!')) body = '^' + body.slice(1);
      re += '[' + body.replace(/\\/g, '\\\\') + ']';
      i = close;
    } else if (c === '{') { braces++; re += '(?:'; }
    else if (c === '}' && braces > 0) { braces--; re += ')'; }
    else if (c === ',' && braces > 0) re += '|';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'u');
}

const code = (e: unknown) => (e as { code?: string }).code;

test('the same answers as the regular-expression translation on random globs and paths', () => {
  const globChar = fc.constantFrom('a', 'b', '.', '/', '*', '**', '**/', '?', '[ab]', '[!a]', '[a-c]', '{a,b}', '{a,{b,c/}}', 'x', 'é');
  const pathChar = fc.constantFrom('a', 'b', 'c', '.', '/', 'x', 'é', '-');
  fc.assert(fc.property(fc.array(globChar, { maxLength: 8 }), fc.array(pathChar, { maxLength: 12 }), (g, p) => {
    const glob = g.join('');
    const path = p.join('');
    expect(compileGlob(glob).test(path)).toBe(reference(glob).test(path));
  }), { numRuns: 3000 });
});

describe('hostile globs', () => {
  test('a glob of a million characters is INVALID_ARGUMENT, its message short and stating the length', () => {
    let err: unknown;
    try { compileGlob('*'.repeat(1_000_000)); } catch (e) { err = e; }
    expect(code(err)).toBe('INVALID_ARGUMENT');
    expect((err as Error).message).toBe('The glob is 1000000 characters long, over the 4096 allowed.');
  });

  test('braces nested a thousand deep, or expanding past the limit, are INVALID_ARGUMENT (no crash)', () => {
    for (const glob of ['{a,'.repeat(1000) + '}'.repeat(1000), '{a,b}'.repeat(9)]) {
      let err: unknown;
      try { compileGlob(glob); } catch (e) { err = e; }
      expect(code(err)).toBe('INVALID_ARGUMENT');
      expect((err as Error).message).toMatch(new RegExp(`expand to more than ${MAX_GLOB_ALTERNATIVES} alternatives`));
      expect((err as Error).message.length).toBeLessThan(400);
    }
    expect(compileGlob('{a,b}'.repeat(8)).test('ab'.repeat(4))).toBe(true);
  });

  test('*a*a*a… against a long run of a: answered (no backtracking), false', () => {
    expect(compileGlob('*a'.repeat(1000) + 'b').test('a'.repeat(3000))).toBe(false);
    expect(compileGlob('*a'.repeat(1000) + 'b').test('a'.repeat(3000) + 'b')).toBe(true);
  });
});
