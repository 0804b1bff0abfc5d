/**
 * Re-indents valid JSON text for reading (2 spaces, `"key": value`, `{}`/`[]` for empty
 * containers, like JSON.stringify(v, null, 2)) while copying every string and number lexeme
 * verbatim: 12345678901234567891 and 1.50 stay as written, escapes stay escaped, key order
 * and duplicate keys stay as in the file. The text must already be known to be valid JSON.
 */
import { isJsonWhitespace as isWs } from 'mcpgw/plugin-api';
export function reindent(text: string, indent = '  '): string {
  const out: string[] = [];
  let depth = 0;
  const n = text.length;
  const newline = (d: number) => '\n' + indent.repeat(d);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    switch (c) {
      case 0x20: case 0x09: case 0x0a: case 0x0d:
        break;
      case 0x22: { // string
        let j = i + 1;
        for (;;) {
          const q = text.indexOf('"', j);
          if (q === -1) { j = n; break; }
          let bs = 0;
          for (let k = q - 1; k > i && text.charCodeAt(k) === 0x5c; k--) bs++;
          j = q + 1;
          if (bs % 2 === 0) break;
        }
        out.push(text.slice(i, j));
        i = j - 1;
        break;
      }
      case 0x7b: case 0x5b: { // { [
        let j = i + 1;
        while (j < n && isWs(text.charCodeAt(j))) j++;
        const close = c === 0x7b ? 0x7d : 0x5d;
        if (text.charCodeAt(j) === close) {
          out.push(c === 0x7b ? '{}' : '[]');
          i = j;
        } else {
          depth++;
          out.push(text[i]! + newline(depth));
        }
        break;
      }
      case 0x7d: case 0x5d:
        depth--;
        out.push(newline(depth) + text[i]!);
        break;
      case 0x2c:
        out.push(',' + newline(depth));
        break;
      case 0x3a:
        out.push(': ');
        break;
      default: { // number or literal
        let j = i + 1;
        while (j < n && !isDelimiter(text.charCodeAt(j))) j++;
        out.push(text.slice(i, j));
        i = j - 1;
      }
    }
  }
  return out.join('');
}

function isDelimiter(c: number): boolean {
  return isWs(c) || c === 0x2c || c === 0x7d || c === 0x5d || c === 0x3a;
}
