/**
 * Text search with `regex: true`, run by the scan engine as an RFC 9535 query so that the engine's
 * bounded regular-expression evaluation applies (worker threads terminated at the request deadline):
 * `$..[?search(@, '<pattern>')]` over each record selects the string values the pattern is found in
 * (RFC 9535 §2.4.7 search(), I-Regexp RFC 9485). Member names are not searched in this mode.
 */

/** Folds ASCII letters for a case-insensitive pattern: `a` → `[aA]`, and both cases inside character classes. */
export function foldAsciiCase(pattern: string): string {
  let out = '';
  const other = (c: string) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase());
  const isLetter = (c: string | undefined) => c !== undefined && /^[a-zA-Z]$/.test(c);
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      if ((pattern[i + 1] === 'p' || pattern[i + 1] === 'P') && pattern[i + 2] === '{') {
        const j = pattern.indexOf('}', i);
        const end = j === -1 ? pattern.length - 1 : j;
        out += pattern.slice(i, end + 1);
        i = end;
      } else {
        out += pattern.slice(i, i + 2);
        i++;
      }
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      let body = '';
      let extra = '';
      if (pattern[j] === '^') { body += '^'; j++; }
      while (j < pattern.length && pattern[j] !== ']') {
        if (pattern[j] === '\\') { body += pattern.slice(j, j + 2); j += 2; continue; }
        const lo = pattern[j]!;
        const hi = pattern[j + 2];
        if (pattern[j + 1] === '-' && hi !== undefined && hi !== ']') {
          body += `${lo}-${hi}`;
          if (isLetter(lo) && isLetter(hi) && (lo === lo.toLowerCase()) === (hi === hi.toLowerCase())) extra += `${other(lo)}-${other(hi)}`;
          j += 3;
          continue;
        }
        body += lo;
        if (isLetter(lo)) extra += other(lo);
        j++;
      }
      out += `[${body}${extra}]`;
      i = j;
      continue;
    }
    out += isLetter(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c;
  }
  return out;
}

/** The JSONPath query for a regex text search; `matchCase` false folds ASCII letters. @throws SyntaxError for an invalid pattern. */
export function regexQuery(pattern: string, matchCase: boolean): string {
  new RegExp(pattern, 'u'); // syntax check only (never run here)
  const re = matchCase ? pattern : foldAsciiCase(pattern);
  return `$..[?search(@, '${re.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}')]`;
}
