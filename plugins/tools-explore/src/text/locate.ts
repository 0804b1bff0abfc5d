import { skipJsonTextWhitespace as skipTextWhitespace } from '../toolkit';
import { appendToken } from './pointer';

// Bound once: a call through the plugin API's re-export goes through a getter every time.

/**
 * The RFC 6901 pointer of the innermost value of a JSON text whose span contains the characters
 * `[start, end)`. A hit inside a member name points at that member's value; a hit across
 * several values points at their smallest common container (`""` is the whole record).
 * Returns null when the text is not valid JSON.
 */
export function pointerAt(text: string, start: number, end: number): string | null {
  let best: string | null = null;
  let i = 0;
  const n = text.length;
  const within = (s: number, e: number) => start >= s && end <= e;
  const readString = (): number => {
    const s = i;
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) i += 2;
      else if (c === 0x22) { i++; return s; }
      else i++;
    }
    throw new Error('unterminated string');
  };
  const value = (path: string): void => {
    i = skipTextWhitespace(text, i);
    const s = i;
    const c = text[i];
    if (c === '{') {
      i++;
      i = skipTextWhitespace(text, i);
      if (text[i] === '}') i++;
      else for (;;) {
        i = skipTextWhitespace(text, i);
        if (text[i] !== '"') throw new Error('expected name');
        const ks = readString();
        const key = JSON.parse(text.slice(ks, i)) as string;
        const member = appendToken(path, key);
        if (best === null && within(ks, i)) best = member;
        i = skipTextWhitespace(text, i);
        if (text[i++] !== ':') throw new Error('expected :');
        value(member);
        i = skipTextWhitespace(text, i);
        const d = text[i++];
        if (d === '}') break;
        if (d !== ',') throw new Error('expected , or }');
      }
    } else if (c === '[') {
      i++;
      i = skipTextWhitespace(text, i);
      if (text[i] === ']') i++;
      else for (let k = 0; ; k++) {
        value(appendToken(path, k));
        i = skipTextWhitespace(text, i);
        const d = text[i++];
        if (d === ']') break;
        if (d !== ',') throw new Error('expected , or ]');
      }
    } else if (c === '"') {
      readString();
    } else {
      while (i < n && !/[\s,\]}:]/.test(text[i]!)) i++;
      if (i === s) throw new Error('expected a value');
    }
    if (best === null && within(s, i)) best = path;
  };
  try {
    value('');
    return best ?? '';
  } catch {
    return null;
  }
}
