/**
 * Words of a text for both sides of the hybrid search: lower case, letters and digits, identifiers split into their
 * words (`idleTimeout` → idle timeout, `max_retries` → max retries, `HTTPServer` → http server).
 */

const WORD = /[\p{L}][\p{L}\p{N}']*|[\p{N}]+/gu;

/** Words of `text`, in order. At most `max` (default 4,000). */
export function words(text: string, max = 4000): string[] {
  const out: string[] = [];
  // camelCase and acronym boundaries become spaces before lower-casing
  const split = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2').replace(/_/g, ' ');
  for (const m of split.matchAll(WORD)) {
    let w = m[0].toLowerCase();
    if (w.endsWith("'s")) w = w.slice(0, -2);
    w = w.replace(/'/g, '');
    if (w) out.push(w);
    if (out.length >= max) break;
  }
  return out;
}

/**
 * English function words: they carry no topic, so the lexical side drops them from queries (a query that shares
 * only these with an entry has no lexical match) and the vector side gives them almost no weight anyway.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(`
a about above after again against all am an and any are aren as at be because been before being below between both but by
can cannot could couldn did didn do does doesn doing don down during each few for from further get gets got had hadn has hasn
have haven having he her here hers herself him himself his how i if in into is isn it its itself just let me more most
mustn my myself no nor not now of off on once only or other ought our ours ourselves out over own same shan she should
shouldn so some such than that the their theirs them themselves then there these they this those through to too under
until up upon us very was wasn we were weren what when where which while who whom why will with won would wouldn you your
yours yourself yourselves also can't it's i'm i've i'll i'd we're we've they're there's that's what's let's via
whenever however etc ok okay yes please thanks thank
`.trim().split(/\s+/));

/** Whether a word (from {@link words}) is a content word: not a stop word, not one letter. */
export function isContentWord(w: string): boolean {
  return w.length > 1 && !STOP_WORDS.has(w);
}

/** Content words of `text`: its words minus stop words and one-letter words. */
export function contentWords(text: string, max?: number): string[] {
  return words(text, max).filter(isContentWord);
}
