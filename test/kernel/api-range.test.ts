/**
 * The plugin loader's caret-range check without semver (src/kernel/plugins/api-range.ts): wherever it says true,
 * semver says the same; the ranges it does not settle go to semver (the loader's error texts are in plugin-api.test.ts).
 */
import satisfies = require('semver/functions/satisfies');
import { satisfiesCaretRange } from '../../src/kernel/plugins/api-range';

const VERSIONS = ['2.6.0', '2.0.0', '2.6.1', '2.10.3', '3.0.0', '1.9.9', '10.2.0'];
const RANGES = [
  '^2.0.0', '^2.6.0', '^2.6.1', '^2.7.0', '^2.5.9', '^2.10.0', '^2.10.3', '^2.10.4', '^1.0.0', '^3.0.0', '^10.1.99', '^10.2.0',
  // forms left to semver
  '^0.1.0', '^2', '^2.6', '^2.6.0-beta.1', '^v2.0.0', ' ^2.0.0', '^2.0.0 ', '>=2.0.0', '2.x', '~2.6.0', '*', '^02.0.0', '^2.0.0 || ^3.0.0',
];

describe('satisfiesCaretRange', () => {
  test.each(VERSIONS.flatMap((v) => RANGES.map((r) => [v, r] as const)))('%s in %s: true only where semver says true', (version, range) => {
    const ours = satisfiesCaretRange(version, range);
    if (ours) expect(satisfies(version, range, { includePrerelease: true })).toBe(true);
  });

  test('the caret ranges of M.m.p with M ≥ 1 are settled exactly as semver settles them', () => {
    const settled = (v: string, r: string) => satisfiesCaretRange(v, r);
    for (const v of VERSIONS) {
      for (const r of RANGES.filter((x) => /^\^[1-9]\d*\.\d+\.\d+$/.test(x))) expect([v, r, settled(v, r)]).toEqual([v, r, satisfies(v, r, { includePrerelease: true })]);
    }
  });

  test('known answers', () => {
    expect(satisfiesCaretRange('2.6.0', '^2.0.0')).toBe(true);
    expect(satisfiesCaretRange('2.6.0', '^2.6.0')).toBe(true);
    expect(satisfiesCaretRange('2.6.0', '^2.6.1')).toBe(false);
    expect(satisfiesCaretRange('2.6.0', '^2.7.0')).toBe(false);
    expect(satisfiesCaretRange('2.6.0', '^1.0.0')).toBe(false);
    expect(satisfiesCaretRange('2.6.0', '^3.0.0')).toBe(false);
    expect(satisfiesCaretRange('2.10.0', '^2.9.5')).toBe(true);
    // not settled here (semver decides): major 0, partial versions, prereleases, other operators, leading zeros
    for (const r of ['^0.6.0', '^2', '^2.6', '^2.6.0-rc.1', '>=2.0.0', '2.x', '^02.0.0', ' ^2.0.0']) expect(satisfiesCaretRange('2.6.0', r)).toBe(false);
  });
});
