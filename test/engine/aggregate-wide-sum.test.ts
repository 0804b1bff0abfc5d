/**
 * Exact sums over terms spanning thousands of digits: the terms of each exponent add as small integers and the
 * exponents are aligned once at the end, so a term costs what its own digits cost, not the whole span (a power of ten
 * and a product 4,000 digits wide per term held the event loop for seconds). The expected totals are counted by hand.
 */
import { addLexeme, mergeSum, newSum, sumValue } from '../../src/engine/aggregate/sum';
import { formatDecimal } from '../../src/engine/aggregate/decimal';

test('200,000 terms, i·10^3990 for odd i and (i + 0.5)·10^-4 for even i: 10^4000 + 999995, digit for digit', () => {
  const s = newSum();
  for (let i = 0; i < 200_000; i++) addLexeme(s, i % 2 ? `${i}e3990` : `${i}.5e-4`);
  // Σ odd i < 200,000 = 100,000² = 10^10; Σ even i = 9,999,900,000, plus 100,000 halves: 9,999,950,000 × 10^-4 = 999,995.
  expect(formatDecimal(sumValue(s))).toBe('1' + '0'.repeat(3994) + '999995');
  expect(s.inexact).toBe(false);
  // One entry per exponent met (after trailing zeros move into it), not a number as wide as the span per term.
  expect(s.big.size).toBeLessThan(16);
});

test('sums split over threads merge to the same total; a span past 4,000 digits is rounded and flagged, never silently', () => {
  const a = newSum(), b = newSum(), whole = newSum();
  const terms = ['1e3000', '-1e3000', '7.25', '123456789012345678901234567890', '-0.000001', '5e-900'];
  terms.forEach((t, k) => { addLexeme(k % 2 ? a : b, t); addLexeme(whole, t); });
  mergeSum(a, b);
  expect(formatDecimal(sumValue(a))).toBe(formatDecimal(sumValue(whole)));
  expect(formatDecimal(sumValue(whole))).toBe('123456789012345678901234567897.249999' + '0'.repeat(893) + '5');
  const wide = newSum();
  addLexeme(wide, '1e4001');
  addLexeme(wide, '1e-1');
  addLexeme(wide, '2e4001');
  // 3e4001 + 0.1: the 0.1 lies more than 4,000 digits below the leading one and is dropped (flagged).
  expect(formatDecimal(sumValue(wide))).toBe('3e+4001');
  expect(wide.inexact).toBe(true);
});
