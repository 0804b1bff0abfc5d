/**
 * `expect(actual).toEqual(expected)` for large JSON data (tool results of thousands of items): when both have the same
 * JSON text they are equal and nothing more is done; otherwise jest's toEqual runs and reports the difference. Jest's
 * deep equality costs about a second on 40,000 small objects; the JSON texts cost a few milliseconds.
 */
export function expectSameJson(actual: unknown, expected: unknown): void {
  if (actual !== undefined && JSON.stringify(actual) === JSON.stringify(expected)) return;
  expect(actual).toEqual(expected);
}
