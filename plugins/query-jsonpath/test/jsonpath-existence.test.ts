/**
 * The JSONPath language's existence checks (CompiledQuery.existenceChecks): for each singular path standing as a test
 * in a filter (and for a singular query as a whole, a record test), a query selecting where that path holds false or
 * null; paths compared or passed to functions are values, not tests. Expected node lists by hand from the values.
 */
import { compileJsonPath } from '../src/compile';
import { McpgwError } from '../../../src/kernel/errors';
import { compareNumerals } from '../../../src/engine/numbers/compare';

const compile = (q: string) => compileJsonPath(q, {}, ((code: any, message: string, details?: any) => new McpgwError(code, message, details)) as never, compareNumerals);
const checks = (q: string) => compile(q).existenceChecks!().map((c) => [c.path, c.rewrite, c.query.text, c.recordTest ?? false]);

const rows = [{ a: false, r: 'E' }, { a: true, r: 'E' }, { a: null, r: 'A' }, { r: 'E' }, { a: 0, r: 'E' }];

test('a test in the filter, negated or beside a comparison: the records where its path is false or null', () => {
  for (const q of ['$[?@.a]', '$[?!@.a]', '$[?@.r == "E" && @.a]', '$[?(@.r == "E" || @.a)]']) {
    const [c] = compile(q).existenceChecks!().filter((x) => !x.recordTest);
    expect([c!.path, c!.rewrite]).toEqual(['@.a', '@.a == true']);
    expect(c!.query.evaluate(rows).map((n) => n.path)).toEqual(['/0', '/2']);
  }
});

test('compared, or a function\'s argument: no check; a path after the filter is left out of the check', () => {
  expect(checks('$[?@.a == true]')).toEqual([]);
  expect(checks('$[?length(@.a) > 0 && @.b != false]')).toEqual([]);
  expect(checks('$[?@.a].r')).toEqual([['@.a', '@.a == true', '$[?@.a == false || @.a == null]', false]]);
});

test('nested filters keep their place; a singular query as a whole is a record test', () => {
  const doc = [{ items: [{ ok: true }, { ok: false }] }, { items: [{ ok: true }] }];
  const [c] = compile('$[?@.items[?@.ok]]').existenceChecks!();
  expect(c!.query.evaluate(doc).map((n) => n.path)).toEqual(['/0']);
  expect(checks('$.landlocked')).toEqual([['$.landlocked', '$.landlocked == true', '$[?@.landlocked == false || @.landlocked == null]', true]]);
  expect(checks('$.a[*]')).toEqual([]);
});

test('a check\'s byte prefilter: a value equal to true, false or null holds its bytes', () => {
  expect(compile('$[?@.a == false || @.a == null]').requiredLiterals).toEqual(['false', 'null']);
  expect(compile('$[?true == @.a]').requiredLiterals).toEqual(['true']);
  expect(compile('$[?@.a != false]').requiredLiterals).toBeUndefined();
});
