/** Appends a reference token to an RFC 6901 pointer (§3: `~` → `~0`, `/` → `~1`). */
export function appendToken(pointer: string, token: string | number): string {
  return `${pointer}/${String(token).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}
