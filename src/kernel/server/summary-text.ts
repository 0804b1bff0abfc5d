/** Longest string shown whole in a summary, characters; longer ones are cut and their size given. */
const SUMMARY_STRING = 32;

/** What follows the summary: it is one, and where the whole answer is. */
export const SUMMARY_TAIL = ' (summary of structuredContent)';

/**
 * The text block of a result under the profile setting `resultText: "summary"`
 * (docs/architecture.md "Context budget"): what the structuredContent holds, not a second copy of it. Top-level members in order,
 * laid out as compact JSON; numbers, booleans and null as they are; strings up to 32 characters (longer ones cut,
 * with their size in bytes); arrays and objects by their size (`[5 items]`, `{3 members}`); then SUMMARY_TAIL. One
 * line of JSON-like text, for logs and for a person reading the exchange; a client that reads structuredContent has
 * the whole answer there. The tool adapter keeps the full text when it is no longer than this.
 */
export function summaryText(result: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(result)) parts.push(`${JSON.stringify(key)}:${summarize(value)}`);
  return `{${parts.join(',')}}${SUMMARY_TAIL}`;
}

function summarize(value: unknown): string {
  if (Array.isArray(value)) return `[${value.length} item${value.length === 1 ? '' : 's'}]`;
  // an exact number (JSON.rawJSON, docs/decisions.md "Exact numbers on the wire without a custom serializer") is an object that stringifies as its digits
  if (value !== null && typeof value === 'object' && !(JSON as unknown as { isRawJSON(v: unknown): boolean }).isRawJSON(value)) {
    const n = Object.keys(value).length;
    return `{${n} member${n === 1 ? '' : 's'}}`;
  }
  if (typeof value === 'string' && value.length > SUMMARY_STRING) {
    // cut on a character boundary: never half a surrogate pair
    const c = value.charCodeAt(SUMMARY_STRING - 1);
    const head = value.slice(0, c >= 0xd800 && c <= 0xdbff ? SUMMARY_STRING - 1 : SUMMARY_STRING);
    return `${JSON.stringify(head + '…')} (${Buffer.byteLength(value)} bytes)`;
  }
  return JSON.stringify(value) ?? 'null';
}
