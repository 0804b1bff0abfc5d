/**
 * The digest's record reader (src/session/skim.ts) against JSON.parse: a value built whole (`true` projection) is the
 * value JSON.parse gives (numbers as doubles, lone surrogates as U+FFFD), and a projection builds exactly the named
 * members of JSON.parse's value — for generated JSON texts and for the lines that could fool a reader that looks at
 * bytes: a member name inside a text, escaped quotes and backslashes, escaped names, unicode escapes, repeated names,
 * `__proto__`, numbers past 15 digits, and short strings that repeat (they are taken from a cache by their bytes).
 */
import fc from 'fast-check';
import { NOT_JSON, skimRecord, wellFormed, type Projection } from '../src/session/skim';
import { claudeDigest } from '../src/sources/claude';

const skim = (text: string, proj: Projection): unknown => {
  const b = Buffer.from(text, 'utf8');
  return skimRecord(b, 0, b.length, proj, 2000);
};

/** JSON.parse with lone surrogates made U+FFFD (what the kernel's exact parse gives, numbers aside). */
const reference = (text: string): unknown => wellFormed(JSON.parse(text));

/** The members `proj` names of a parsed value, as skim builds them (see Projection). */
function project(v: unknown, proj: Projection): unknown {
  if (proj === true) return v;
  if (Array.isArray(proj)) {
    if (!Array.isArray(v)) return v !== null && typeof v === 'object' ? {} : typeof v === 'string' ? '' : v;
    return v.map((x) => project(x, (proj as readonly [Projection])[0]));
  }
  if (v === null || typeof v !== 'object') return typeof v === 'string' ? '' : v;
  if (Array.isArray(v)) return [];
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (Object.prototype.hasOwnProperty.call(proj, k)) out[k] = project(x, (proj as Record<string, Projection>)[k]!);
  return out;
}

const TRICKY = [
  // A member name the projection reads, inside a text value and an escaped quote before it.
  '{"type":"user","message":{"content":"say \\"type\\":\\"assistant\\", \\"usage\\":{\\"input_tokens\\":9}"},"timestamp":"2026-01-01T00:00:00Z"}',
  // Escaped member names: the decoded name decides.
  '{"\\u0074ype":"assistant","message":{"\\u0075sage":{"input_tokens":3,"output_tokens":4},"model":"m\\u00e9"}}',
  // Backslashes before the closing quote, a slash escape, unicode escapes of every kind.
  '{"type":"a\\\\","timestamp":"\\/x\\\\\\"","message":{"id":"\\ud83d\\ude00","model":"\\ud800 lone","usage":{"k":"\\u0000\\u001f"}}}',
  // A repeated name: its first place, its last value; `__proto__` is a member, not the prototype.
  '{"type":"assistant","message":{"usage":{"input_tokens":1,"__proto__":{"polluted":1},"output_tokens":2,"input_tokens":5}}}',
  '{"type":"assistant","type":"user","__proto__":"x","message":{"usage":{"__proto__":null}}}',
  // Numbers: 15 and 16 digits, negative zero, fractions and exponents, big ones.
  '{"message":{"usage":{"a":999999999999999,"b":9999999999999999,"c":-0,"d":0.5,"e":1e2,"f":-12345678901234567890,"g":1E-7,"h":12345678901234.5}}}',
  // Short strings that repeat, strings of 47 to 49 bytes, non-ASCII short strings.
  '{"type":"assistant","timestamp":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","sessionId":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","requestId":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
  '{"type":"assistant","message":{"model":"é","id":"ü","content":[{"type":"tool_use","id":"é","name":"日本"}]}}',
  '{"type":"assistant","message":{"model":"","id":"a","content":[{"type":"tool_use","id":"b","name":"a"},{"type":"tool_use","id":"a","name":"b"}]}}',
  // Strings of one length whose first, middle and last bytes agree (one slot of the cache): told apart by every byte.
  '{"type":"axbyc","requestId":"azbyc","message":{"model":"axbyc","id":"azbyc","content":[{"type":"azbyc","name":"axbzc"}]}}',
  // Whitespace everywhere JSON allows it, and a whole array.
  ' { "type" : "assistant" ,\t"message" : { "usage" : [ 1 , { "x" : [ ] } , "s" , true , null ] } } ',
];

test.each(TRICKY)('a tricky line, whole and by the Claude projection, as JSON.parse reads it: %s', (text) => {
  const whole = skim(text, true);
  expect(whole).toEqual(reference(text));
  expect(Object.getPrototypeOf(whole)).toBe(Object.getPrototypeOf(reference(text)));
  const projected = skim(text, claudeDigest);
  expect(projected).toEqual(project(reference(text), claudeDigest));
  // The same again: repeated strings come from the cache, the same values.
  expect(skim(text, claudeDigest)).toEqual(projected);
});

test('a `__proto__` member is an own member whole, as JSON.parse makes it', () => {
  const v = skim('{"usage":{"__proto__":{"polluted":1},"a":1}}', true) as { usage: Record<string, unknown> };
  expect(Object.keys(v.usage)).toEqual(['__proto__', 'a']);
  expect(Object.getPrototypeOf(v.usage)).toBe(Object.prototype);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

test('negative zero and numbers past 15 digits are the doubles JSON.parse gives', () => {
  for (const n of ['-0', '0', '999999999999999', '9999999999999999', '123456789012345678', '-1', '-999999999999999', '1.5e300', '-0.0']) {
    const got = (skim(`[${n}]`, true) as number[])[0];
    expect([n, Object.is(got, JSON.parse(n))]).toEqual([n, true]);
  }
});

test('text that is not one JSON text is refused, whole or projected', () => {
  for (const bad of ['{"a":1', '{"a":"\\q"}', '{"a":"x\u0001y"}', '[1,]', '{"a":01}', '{"a":-}', '"\\u12G4"', '{"a":1} 2', '{"a" 1}']) {
    expect(skim(bad, true)).toBe(NOT_JSON);
    expect(skim(bad, claudeDigest)).toBe(NOT_JSON);
  }
});

test('generated JSON texts: built whole, and by a projection, as JSON.parse reads them', () => {
  // Names from a small set (so that projections meet them), strings of every kind (repeats, escapes, surrogates).
  const name = fc.constantFrom('type', 'usage', 'id', 'model', 'message', 'content', '__proto__', 'a', 'é', 'x"y', 'q\\');
  const value = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small' },
      fc.constantFrom('assistant', 'user', '', 'a'.repeat(48), 'a'.repeat(49), '\ud800', 'a\udc00b', 'é', 'tab\tquote"'),
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null),
      fc.array(tie('v'), { maxLength: 4 }),
      fc.dictionary(name, tie('v'), { maxKeys: 5 })),
  })).v;
  const proj: Projection = { type: true, id: true, message: { model: true, usage: true, content: [{ type: true, id: true }] }, usage: true };
  fc.assert(fc.property(value, (v) => {
    const text = JSON.stringify(v);
    expect(skim(text, true)).toEqual(reference(text));
    expect(skim(text, proj)).toEqual(project(reference(text), proj));
  }), { numRuns: 2000, seed: 7 });
});
