/**
 * The sandbox's string shortcut for containment (startsInside, isPlainAbsolute) against the segment rule it stands
 * in for (`path.relative`): it may only answer "inside" where the rule does, and `path.resolve` leaves every path it
 * calls plain unchanged.
 */
import fc from 'fast-check';
import * as path from 'node:path';
import { isPlainAbsolute, startsInside } from '../../src/kernel/files/sandbox';

/** The containment rule by segments, as the sandbox decides it without the shortcut. */
function insideBySegments(real: string, root: string): boolean {
  const rel = path.relative(root, real);
  return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel));
}

const segment = fc.constantFrom('a', 'b', 'data', 'data-other', 'dat', '.', '..', '', '.claude', '..x', 'x..', 'é', '日本', ' ');
const anyPath = fc.tuple(fc.boolean(), fc.array(segment, { maxLength: 6 }), fc.boolean()).map(([abs, segs, slash]) => `${abs ? '/' : ''}${segs.join('/')}${slash ? '/' : ''}`);
const roots = ['/', '/data', '/tmp/data', '/home/u/.claude', '/a/b'];

describe('the sandbox containment shortcut', () => {
  it('answers "inside" only where the segment rule does, and for every plain path inside (property)', () => {
    fc.assert(fc.property(anyPath, fc.constantFrom(...roots), (real, root) => {
      const fast = startsInside(real, root);
      if (fast) expect(insideBySegments(real, root)).toBe(true);
      if (isPlainAbsolute(real) && insideBySegments(real, root)) expect(fast).toBe(true);
    }), { numRuns: 5000 });
  });

  it('calls plain only what path.resolve leaves unchanged (property)', () => {
    fc.assert(fc.property(anyPath, (p) => {
      if (isPlainAbsolute(p)) expect(path.resolve('/elsewhere', p)).toBe(p);
    }), { numRuns: 5000 });
  });

  it('keeps siblings that share the root as a prefix outside', () => {
    expect(startsInside('/data-other/f.jsonl', '/data')).toBe(false);
    expect(startsInside('/data/f.jsonl', '/data')).toBe(true);
    expect(startsInside('/data', '/data')).toBe(true);
    expect(startsInside('/data/../etc/passwd', '/data')).toBe(false); // not plain: the segment rule decides (outside)
    expect(insideBySegments('/data/../etc/passwd', '/data')).toBe(false);
    expect(startsInside('/data/./f', '/data')).toBe(false);
    expect(startsInside('/data//f', '/data')).toBe(false);
    expect(startsInside('/home/u/.claude/projects/p/s.jsonl', '/home/u/.claude')).toBe(true);
    expect(startsInside('/etc', '/')).toBe(true);
    expect(startsInside('data/f', '/data')).toBe(false); // relative: not plain
    expect(isPlainAbsolute('/a/b/')).toBe(false);
    expect(isPlainAbsolute('/a/..b/c.')).toBe(true);
  });
});
