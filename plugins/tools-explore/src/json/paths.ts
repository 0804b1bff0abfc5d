/**
 * The paths the explorer accepts, turned into path tokens (`PathToken` of the plugin API; what each selects is
 * `tokenIndex` / `tokenName`, the one rule every reader applies):
 * - dot form (Thoth): `user.address.city`, `items[2].name`, `['a.b']` / `["a.b"]` for names with dots or
 *   brackets, `items[-1]` for the last element. Strings and numbers, decided by the value met as a pointer's are:
 *   `tags.0` and `tags[0]` are element 0 of an array and the member "0" of an object;
 * - JSON Pointer (RFC 6901): `/user/address/city`, `~1` and `~0` escapes; `""` is the root. Strings, decided by the
 *   value met (§4);
 * - JSONPath (RFC 9535) singular queries: `$.user['address'].city`, `$.items[2]`; `$` is the root, and so is `@`
 *   (`@.user.name`), the current node as filters write it (a member named "@" is `['@']` or `/@`). Selectors keep
 *   their kind: `[0]`, `[-1]` are index selectors `{index}` (§2.3.3: nothing in an object), `.a`, `['0']` name
 *   selectors `{name}` (§2.3.1: nothing in an array).
 * A `$` path that is not singular (wildcards, filters, descendants) is not handled here: `parsePath`
 * returns `{ jsonpath }` and the caller evaluates it with the jsonpath query language.
 */
import type { PathToken } from 'mcpgw/plugin-api';
import { formatPointer, parsePointer as parseRfc6901, PointerSyntaxError } from 'mcpgw/plugin-kit';
import { tokenText } from '../toolkit';
export type Tokens = PathToken[];

export class PathError extends Error {
  constructor(message: string, readonly position: number) {
    super(message);
  }
}

export function parsePath(path: string): { tokens: Tokens } | { jsonpath: string } {
  if (path.startsWith('/')) return { tokens: parsePointer(path) }; // "/" is the member named "" (RFC 6901 §5)
  let p = path.trim();
  // `@` (the current node, as JSONPath filters write it) is the unit itself, as `$` is: `@`, `@.user.name`, `@[0]`.
  if (p === '@' || p.startsWith('@.') || p.startsWith('@[')) p = '$' + p.slice(1);
  if (p === '' || p === '$') return { tokens: [] };
  if (p.startsWith('$')) {
    try {
      return { tokens: parseDotted(p.slice(1), 1, true) };
    } catch {
      return { jsonpath: p };
    }
  }
  return { tokens: parseDotted(p, 0, false) };
}

/**
 * RFC 6901 §3–4: `/a~1b/~0c` → ["a/b", "~c"]. Tokens stay strings: `/tags/0` is an element where the value is an
 * array and the member "0" where it is an object; every navigation decides by the value's type (`tokenIndex`).
 */
export function parsePointer(p: string): string[] {
  try {
    return parseRfc6901(p);
  } catch (err) {
    if (!(err instanceof PointerSyntaxError)) throw err;
    if (err.reason === 'start') throw new PathError('A JSON Pointer starts with "/".', 0);
    throw new PathError(`Bad escape in reference token ${p.slice(0, err.position).split('/').length - 1}: "~" must be followed by 0 or 1.`, 0);
  }
}

/**
 * Dot form, or the segments after `$` of a singular JSONPath (`strict`: names must follow a dot or sit in brackets,
 * an index is RFC 9535's (§2.3.3: no leading zero, no `-0`), and selectors keep their kind: `{name}`, `{index}`).
 */
function parseDotted(s: string, base: number, strict: boolean): Tokens {
  const tokens: Tokens = [];
  let i = 0;
  const fail = (msg: string): never => { throw new PathError(msg, base + i); };
  let first = true;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '[') {
      i++;
      while (s[i] === ' ') i++;
      const q = s[i];
      if (q === "'" || q === '"') {
        let name = '';
        i++;
        for (;;) {
          if (i >= s.length) fail('Unterminated quoted name.');
          const d = s[i]!;
          if (d === q) { i++; break; }
          if (d === '\\') {
            const e = s[i + 1];
            if (e === 'u') { name += String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16)); i += 6; continue; }
            const map: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '/': '/', '\\': '\\', "'": "'", '"': '"' };
            if (e === undefined || !(e in map)) fail('Bad escape in quoted name.');
            name += map[e!];
            i += 2;
            continue;
          }
          name += d;
          i++;
        }
        tokens.push(strict ? { name } : name);
      } else {
        const m = /^-?\d+/.exec(s.slice(i));
        if (!m) fail('Expected an index or a quoted name inside [ ].');
        if (strict && !/^(?:0|-?[1-9][0-9]*)$/.test(m![0])) fail('Not an RFC 9535 index.');
        tokens.push(strict ? { index: Number(m![0]) } : Number(m![0]));
        i += m![0].length;
      }
      while (s[i] === ' ') i++;
      if (s[i] !== ']') fail('Expected "]".');
      i++;
    } else if (c === '.') {
      i++;
      const m = /^[^.[\]]+/.exec(s.slice(i));
      if (!m) fail('Expected a member name after ".".');
      if (strict && !/^[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*$/.test(m![0])) fail('Not a member-name shorthand.');
      tokens.push(strict ? { name: m![0] } : m![0]);
      i += m![0].length;
    } else if (first && !strict) {
      const m = /^[^.[\]]+/.exec(s.slice(i))!;
      tokens.push(m[0]);
      i += m[0].length;
    } else fail(`Unexpected "${c}".`);
    first = false;
  }
  return tokens;
}

/** Tokens back to an RFC 6901 pointer. */
export function toPointer(tokens: readonly PathToken[]): string {
  return formatPointer(tokens.map(tokenText));
}
