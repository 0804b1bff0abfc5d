/** Longest string shown whole in a summary, characters; a longer one is given by its size. */
const SUMMARY_STRING = 24;

/**
 * The text block of a result when it is a summary (`resultText: "summary"`, or `auto` for a client that reads both
 * copies: client-families.ts): what was found, counts and cursors, not a second copy of the structuredContent.
 * Top-level members in order as `name: value`: numbers, booleans and null as they are, strings up to 24 characters
 * as they are, escaped as in JSON (longer ones by their size in bytes), arrays by their length, objects as `{…}`. Not JSON, so
 * that it is not taken for the answer; no tail, since every byte of it is read by the model beside the whole answer.
 * The tool adapter keeps the full text when it is no longer than this.
 */
export function summaryText(result: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(result)) parts.push(`${key}: ${summarize(value)}`);
  return parts.join(', ');
}

function summarize(value: unknown): string {
  if (Array.isArray(value)) return String(value.length);
  // an exact number (JSON.rawJSON, docs/decisions.md "Exact numbers on the wire without a custom serializer") is an object that stringifies as its digits
  if (value !== null && typeof value === 'object' && !(JSON as unknown as { isRawJSON(v: unknown): boolean }).isRawJSON(value)) return '{…}';
  if (typeof value === 'string') return value.length > SUMMARY_STRING ? `${Buffer.byteLength(value)} bytes` : JSON.stringify(value).slice(1, -1);
  return JSON.stringify(value) ?? 'null';
}
