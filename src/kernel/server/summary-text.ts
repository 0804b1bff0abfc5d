/** Longest string shown whole in a summary, characters; a longer one is given by its size. */
const SUMMARY_STRING = 24;

/**
 * The text block of a result when it is a summary (`resultText: "summary"`, or `auto` for a client that reads both
 * copies: client-families.ts): what was found, counts and cursors, not a second copy of the structuredContent.
 * Top-level members in order as `name: value`: numbers, booleans and null as they are, strings up to 24 characters
 * as they are, escaped as in JSON (longer ones by their size in bytes), arrays by their length. Left out: objects
 * (their counts and flags are members of their own, `truncated`, `total_keys`), and members equal to the call's
 * argument of the same name (`path`, `query`, `index`): the caller said them. Not JSON, so that it is not taken for
 * the answer; no tail, since the model reads every byte of it beside the whole answer. The tool adapter keeps the
 * full text when the summary is empty or no shorter.
 */
export function summaryText(result: Record<string, unknown>, args: Record<string, unknown> = {}): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(result)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && !isRaw(value)) continue;
    if (value !== null && typeof value !== 'object' && args[key] === value) continue;
    parts.push(`${key}: ${summarize(value)}`);
  }
  return parts.join(', ');
}

/** An exact number (JSON.rawJSON, docs/decisions.md "Exact numbers on the wire without a custom serializer"): an object that stringifies as its digits. */
const isRaw = (v: unknown): boolean => (JSON as unknown as { isRawJSON(v: unknown): boolean }).isRawJSON(v);

function summarize(value: unknown): string {
  if (Array.isArray(value)) return String(value.length);
  if (typeof value === 'string') return value.length > SUMMARY_STRING ? `${Buffer.byteLength(value)} bytes` : JSON.stringify(value).slice(1, -1);
  return JSON.stringify(value) ?? 'null';
}
