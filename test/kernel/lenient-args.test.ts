/**
 * Lenient argument parsing (src/kernel/server/lenient-args.ts), the rules a bundle with `lenientArguments` gets:
 * null is the default for optional parameters (nested too), unknown keys and out-of-enum values of optional
 * parameters are dropped and reported, anything else is left for the schema to refuse.
 */
import { z } from 'zod';
import { argumentWarnings, lenientArguments } from '../../src/kernel/server/lenient-args';

const schema = z.object({
  handle: z.string(),
  mode: z.enum(['text', 'jsonpath']).optional(),
  strategy: z.enum(['first', 'last']).default('first'),
  n: z.number().int().min(0).default(5),
  kind: z.enum(['a', 'b']),
  bucket: z.object({ path: z.string(), epoch: z.enum(['s', 'ms']).optional() }).optional(),
});

test('null is absent for optional parameters, at the top level and nested; kept for required ones', () => {
  const { args, notices } = lenientArguments(schema, { handle: null, mode: null, n: null, kind: 'a', bucket: { path: 'ts', epoch: null } });
  expect(args).toEqual({ handle: null, kind: 'a', bucket: { path: 'ts' } });
  expect(notices).toEqual([]);
  expect(schema.safeParse(args).success).toBe(false); // handle is required: the schema refuses the null
});

test('unknown keys are dropped and reported, in order', () => {
  const { args, notices } = lenientArguments(schema, { handle: 'h', kind: 'a', limit: 3, x: null });
  expect(args).toEqual({ handle: 'h', kind: 'a' });
  expect(argumentWarnings('search', notices, {})).toEqual([{ code: 'INVALID_ARGUMENT', message: 'Ignored arguments that search does not have: "limit", "x".' }]);
});

test('an optional enum out of range falls back (the echoed value, else the declared default); a required one is left to fail', () => {
  const { args, notices } = lenientArguments(schema, { handle: 'h', mode: 'fuzzy', strategy: 'random', kind: 'c' });
  expect(args).toEqual({ handle: 'h', kind: 'c' });
  expect(argumentWarnings('t', notices, { mode: 'text' })).toEqual([
    { code: 'INVALID_ARGUMENT', message: 'mode "fuzzy" is not one of "text", "jsonpath": used "text" instead.' },
    { code: 'INVALID_ARGUMENT', message: 'strategy "random" is not one of "first", "last": used "first" instead.' },
  ]);
  expect(argumentWarnings('t', notices.slice(0, 1), {})[0]!.message).toBe('mode "fuzzy" is not one of "text", "jsonpath": used the default instead.');
});

test('a wrong type is not repaired; non-object arguments pass through for the schema to refuse', () => {
  expect(lenientArguments(schema, { handle: 'h', kind: 'a', n: 'ten' }).args).toEqual({ handle: 'h', kind: 'a', n: 'ten' });
  expect(lenientArguments(schema, [1]).args).toEqual([1]);
  expect(lenientArguments(schema, undefined).args).toEqual({});
});

test('a nested member named __proto__ stays a member (not the prototype)', () => {
  const loose = z.object({ options: z.object({}).catchall(z.unknown()).optional() });
  const { args } = lenientArguments(loose, JSON.parse('{"options":{"__proto__":{"x":1},"y":null}}'));
  const options = (args as { options: object }).options;
  expect(Object.keys(options)).toEqual(['__proto__', 'y']);
  expect(Object.getPrototypeOf(options)).toBe(Object.prototype);
  expect(JSON.stringify(args)).toBe('{"options":{"__proto__":{"x":1},"y":null}}');
});
