import type { MarkedTextBuilder, CompiledRegex, MarkedText, RegexService, SessionEntryDraft } from 'mcpgw/plugin-api';
import { markedText, ownMarkerCharacters } from '../toolkit';
import { cutText, LONG_TOKEN, textBefore, TOKEN_CHAR } from '../text';

/** Characters of context on each side of a match in a preview. */
const CONTEXT_CHARS = 80;

/** Where in an entry a match was found. */
export type MatchField = 'text' | 'thinking' | 'tool_input' | 'tool_result';

export interface EntryMatch {
  field: MatchField;
  /** The match with context: `…before «match» after…`, on one line. */
  preview: string;
  /**
   * Only when the text shown holds a `«`, `»` or `…` of its own: where the preview's markers are (code points from
   * its start, ascending), so the data's own are told apart from them.
   */
  markers?: number[];
}

/** A preview and where its markers are (code points from its start): the plugin API's MarkedText. */
export type MarkedPreview = MarkedText;

/** RE2 syntax escaping for a literal query: every character that is not a letter, digit or space is escaped. */
export function escapeRegex(literal: string): string {
  return literal.replace(/[^\p{L}\p{N}\s]/gu, (c) => (c.codePointAt(0)! < 0x80 ? `\\${c}` : c));
}

/**
 * The compiled pattern of a search: the query itself with `regex`, else the query as a literal; case-insensitive
 * (Unicode simple case folding) unless `caseSensitive`. @throws QUERY_SYNTAX_ERROR (positioned) for a bad pattern.
 */
export function compileQuery(regex: RegexService, query: string, isRegex: boolean, caseSensitive: boolean): CompiledRegex {
  return regex.compile(isRegex ? query : escapeRegex(query), { caseInsensitive: !caseSensitive });
}

/** The strings of a tool input (its values, recursively), joined: what a search sees of a call's arguments. */
export function inputText(input: unknown, depth = 0, out: string[] = []): string[] {
  if (typeof input === 'string') out.push(input);
  else if (Array.isArray(input)) for (const v of input) inputText(v, depth + 1, out);
  else if (input && typeof input === 'object' && depth < 32) {
    for (const v of Object.values(input as Record<string, unknown>)) if (typeof v !== 'number') inputText(v, depth + 1, out);
  }
  return out;
}

/** The first match in an entry's text, thinking, tool inputs or tool results (in that order), or null. */
export function matchEntry(re: CompiledRegex, e: SessionEntryDraft): EntryMatch | null {
  const fields: [MatchField, string][] = [['text', e.text]];
  if (e.thinking) fields.push(['thinking', e.thinking]);
  for (const t of e.tool_uses) fields.push(['tool_input', [t.name, ...inputText(t.input)].join(' ')]);
  for (const r of e.tool_results) fields.push(['tool_result', r.result]);
  for (const [field, text] of fields) {
    if (!text) continue;
    const m = re.exec(text);
    if (m) {
      const p = previewAround(text, m.start, m.end);
      return { field, preview: p.text, ...(markersNeeded(p) ? { markers: p.markers } : {}) };
    }
  }
  return null;
}

/**
 * `…before «match» after…` with whitespace flattened, cut at character boundaries; `markers` says where the `«`, `»`
 * and `…` added to the text are.
 */
export function previewAround(text: string, start: number, end: number): MarkedPreview {
  // A match inside a long token (a key, a hash) is shown with the whole token between the markers: a key split by « »
  // would pass the secret redaction as two harmless pieces.
  ({ start, end } = wholeTokens(text, start, end));
  const head = textBefore(text, start, CONTEXT_CHARS);
  const hit = cutText(text.slice(start, end), 200);
  // The window after the match, not ending inside a surrogate pair.
  let stop = Math.min(text.length, end + CONTEXT_CHARS * 2);
  if (stop < text.length && (text.charCodeAt(stop - 1) & 0xfc00) === 0xd800) stop++;
  const tail = cutText(text.slice(end, stop), CONTEXT_CHARS);
  const flat = (s: string) => s.replace(/\s+/g, ' ');
  const b = markedText();
  if (head.truncated) b.mark('…');
  b.data(flat(head.text)).mark('«').data(flat(hit.text));
  if (hit.truncated) b.mark('…');
  b.mark('»').data(flat(tail.text));
  if (tail.truncated || stop < text.length) b.mark('…');
  return b.build();
}

/** True when `p.text` holds a `«`, `»` or `…` that is not one of its markers (the data's own). */
export function markersNeeded(p: MarkedPreview): boolean {
  return ownMarkerCharacters(p);
}

/** `start`/`end` moved out to the edges of the long token runs (LONG_TOKEN or more token characters) they fall in. */
function wholeTokens(text: string, start: number, end: number): { start: number; end: number } {
  const run = (at: number): [number, number] | null => {
    if (at < 0 || at >= text.length || !TOKEN_CHAR.test(text[at]!)) return null;
    let a = at, b = at + 1;
    while (a > 0 && TOKEN_CHAR.test(text[a - 1]!)) a--;
    while (b < text.length && TOKEN_CHAR.test(text[b]!)) b++;
    return b - a >= LONG_TOKEN ? [a, b] : null;
  };
  const first = start > 0 ? run(start) : null;
  const last = end > start ? run(end - 1) : null;
  return { start: first && first[0] < start ? first[0] : start, end: last && last[1] > end ? last[1] : end };
}
