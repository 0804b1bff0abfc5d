/**
 * The JSONPath language's number-like checks (CompiledQuery.numberLikeChecks): for each comparison of a singular path
 * with a number, a query selecting just what the comparison passed by for a string that reads as a number meeting it —
 * the filter holding it, E, becomes (E') && !(E). Expected node lists by hand from the values.
 */
import { compileJsonPath } from '../src/compile';
import { McpgwError } from '../../../src/kernel/errors';
import { compareNumerals } from '../../../src/engine/numbers/compare';

const compile = (q: string) => compileJsonPath(q, {}, ((code: any, message: string, details?: any) => new McpgwError(code, message, details)) as never, compareNumerals);
const paths = (q: string, k: number, value: unknown) => compile(q).numberLikeChecks!()[k]!.query.evaluate(value).map((n) => n.path);

test('a top-level comparison: the strings over the limit, not the numbers, not other strings', () => {
  const rows = [{ lat: '70.1' }, { lat: 70 }, { lat: '1' }, { lat: 'x' }, {}, { lat: '66.5' }];
  const checks = compile('$[?@.lat > 66.5]').numberLikeChecks!();
  expect(checks.map((c) => [c.path, c.comparison, c.asNumbers])).toEqual([['@.lat', '@.lat > 66.5', 'number(@.lat) > 66.5']]);
  expect(paths('$[?@.lat > 66.5]', 0, rows)).toEqual(['/0']);
});

test('under || only what the whole filter passed by: a record the other branch selects is not counted', () => {
  const rows = [{ n: '20', m: 2 }, { n: '20', m: 1 }, { n: 5, m: '2' }];
  expect(paths('$[?10 < @.n || @.m == 2]', 0, rows)).toEqual(['/1']);
  expect(paths('$[?10 < @.n || @.m == 2]', 1, rows)).toEqual(['/2']);
});

test('in a nested filter, and with the literal on the left', () => {
  const doc = { x: [{ y: [{ z: '1.2' }, { z: 1.2 }] }, { y: [{ z: '3' }] }] };
  expect(paths('$.x[?@.y[?@.z < 1.50]]', 0, doc)).toEqual(['/x/0']);
  expect(compile('$[?2 <= @.a]').numberLikeChecks!()[0]!.asNumbers).toBe('2 <= number(@.a)');
});

test('no check for != (a string already differs from every number), number(), or a non-singular path', () => {
  for (const q of ['$[?@.a != 3]', '$[?number(@.a) > 3]', '$[?@.a == "3"]', '$.a', '$[?count(@.*) > 1]']) expect(compile(q).numberLikeChecks!()).toEqual([]);
});
