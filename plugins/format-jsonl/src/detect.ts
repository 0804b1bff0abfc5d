import type { FormatProbe } from 'mcpgw/plugin-api';

/** Lines examined by detection. */
const PROBE_LINES = 32;

/**
 * Content detection for JSON Lines: several independent, line-aligned JSON values. Reads only the
 * probe bytes; lines cut by the end of the probe are not judged.
 * - ≥ 2 complete lines, all parse: 0.95; most parse (a malformed line among them): 0.7
 * - exactly one line that parses: 0.55 (a one-value file is as much JSON as JSON Lines; the
 *   extension decides the tie)
 * - no complete line in the probe (a first line longer than the probe) that starts like an object
 *   or array: 0.45 (JSON says 0.5 for an unfinished one-line value: the extension decides)
 * - nothing parses: null
 */
export function detectJsonLines(probe: FormatProbe): number | null {
  let bytes = probe.bytes;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
  let lead = 0;
  while (lead < bytes.length && (bytes[lead] === 0x20 || bytes[lead] === 0x09 || bytes[lead] === 0x0a || bytes[lead] === 0x0d)) lead++;
  if (bytes[lead] === 0x1e) return null; // RFC 7464 record separator first (after whitespace): JSON text sequence
  const wholeFile = probe.size <= probe.bytes.length;
  let ok = 0, bad = 0, pos = 0;
  if (!wholeFile && bytes.indexOf(0x0a) === -1) {
    let k = 0;
    while (k < bytes.length && (bytes[k] === 0x20 || bytes[k] === 0x09)) k++;
    return bytes[k] === 0x7b || bytes[k] === 0x5b ? 0.45 : null;
  }
  while (pos < bytes.length && ok + bad < PROBE_LINES) {
    let nl = bytes.indexOf(0x0a, pos);
    if (nl === -1) {
      if (!wholeFile) break; // cut by the probe window
      nl = bytes.length;
    }
    const line = bytes.subarray(pos, nl).toString('utf8').trim();
    pos = nl + 1;
    if (line.length === 0) continue;
    try {
      JSON.parse(line);
      ok++;
    } catch {
      bad++;
    }
  }
  if (ok >= 2) return bad === 0 ? 0.95 : ok > bad ? 0.7 : null;
  if (ok === 1 && bad === 0) return 0.55;
  if (ok === 1 && bad <= 1) return 0.4;
  return null;
}
