/**
 * RFC 6901 JSON Pointer helpers, runtime exports of the plugin kit (`mcpgw/plugin-kit`): what every plugin that
 * reports or reads node locations would otherwise write again. Pure functions.
 */

/** Escapes one reference token (RFC 6901 §3): `~` → `~0`, then `/` → `~1`. Numbers (array indexes) as decimals. */
export function escapeToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Unescapes one reference token (RFC 6901 §4): `~1` → `/`, then `~0` → `~`, in that order (so `~01` is `~1`). */
export function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** `pointer` with one more reference token: `appendToken('/a', 'b/c')` is `/a/b~1c`. */
export function appendToken(pointer: string, token: string | number): string {
  return `${pointer}/${escapeToken(token)}`;
}

/** The pointer of a list of reference tokens (RFC 6901 §3): `""` for none (the whole document). */
export function formatPointer(tokens: readonly (string | number)[]): string {
  let out = '';
  for (const t of tokens) out += '/' + escapeToken(t);
  return out;
}

/**
 * Text that is not an RFC 6901 pointer: `position` is the 0-based character index in the text as given, `reason`
 * `start` (neither empty nor starting with `/`), `escape` (a `~` not followed by `0` or `1`), or `fragment` (a bad
 * percent-encoding in the `#` form).
 */
export class PointerSyntaxError extends Error {
  constructor(readonly reason: 'start' | 'escape' | 'fragment', readonly position: number, message: string) {
    super(message);
    this.name = 'PointerSyntaxError';
  }
}

/**
 * The reference tokens of an RFC 6901 pointer (§3–4), unescaped: `""` → `[]`, `/a~1b/~0c` → `["a/b", "~c"]`, `/` →
 * `[""]`. Array indexes stay strings (whoever navigates decides what they select). With `fragment: true` a text
 * starting with `#` is the URI fragment form (§6), percent-decoded as UTF-8 first.
 * @throws PointerSyntaxError with the position of the fault.
 */
export function parsePointer(text: string, options: { fragment?: boolean } = {}): string[] {
  let p = text;
  let offset = 0;
  if (options.fragment && p.startsWith('#')) {
    try {
      p = decodeURIComponent(p.slice(1));
    } catch {
      throw new PointerSyntaxError('fragment', Math.max(0, text.search(/%(?![0-9a-fA-F]{2})/)), 'bad percent-encoding in the fragment form');
    }
    offset = 1;
  }
  if (p === '') return [];
  if (p[0] !== '/') throw new PointerSyntaxError('start', offset, 'a JSON Pointer is "" or starts with "/"');
  const tokens = p.slice(1).split('/');
  let pos = offset + 1;
  return tokens.map((t) => {
    for (let k = t.indexOf('~'); k !== -1; k = t.indexOf('~', k + 1)) {
      if (t[k + 1] !== '0' && t[k + 1] !== '1') throw new PointerSyntaxError('escape', pos + k, '"~" must be followed by 0 or 1');
      k++;
    }
    pos += t.length + 1;
    return unescapeToken(t);
  });
}
