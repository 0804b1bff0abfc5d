/**
 * What a file's first bytes say before any format looks at them: text that is not UTF-8 (UTF-16 or UTF-32, by a
 * byte-order mark or the NUL pattern of ASCII text, RFC 4627 §3 / RFC 8259 §8.1), compressed data (gzip, zstd),
 * binary data (a NUL byte, which JSON text never holds), or nothing at all. Such files have no format: opening one is
 * UNSUPPORTED_FORMAT with a hint, and list_files shows `format: null` with a note.
 */
import type { Format, FormatProbe } from '../contracts/format';
import type { ErrorDetails } from '../errors';
import { McpgwError } from '../errors';

export type ContentKind = 'empty' | 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be' | 'gzip' | 'zstd' | 'binary';

export interface ContentSniff {
  kind: ContentKind;
  /** One line for list_files: why the file has no format and what to do. */
  note: string;
  /** Where the evidence is (a NUL byte's offset), for messages. */
  detail: string;
}

/**
 * Sniffs the first bytes of a file of `size` bytes. Null for anything that may be UTF-8 JSON text (formats decide).
 * Order: empty, byte-order marks (UTF-32 before UTF-16: FF FE 00 00 starts both), compression magic numbers, the NUL
 * pattern of UTF-16/32 text that starts with an ASCII character, then any NUL byte.
 */
export function sniffContent(bytes: Uint8Array, size: number): ContentSniff | null {
  if (size === 0) return { kind: 'empty', note: 'empty file', detail: 'it is empty' };
  const b = (i: number) => bytes[i];
  const utf = (kind: ContentKind, why: string): ContentSniff => {
    const name = kind.toUpperCase();
    return { kind, note: `${name} text: convert it to UTF-8 to open it`, detail: `it is ${name} text (${why}); JSON text must be UTF-8 (RFC 8259 §8.1)` };
  };
  if (b(0) === 0xff && b(1) === 0xfe && b(2) === 0 && b(3) === 0) return utf('utf-32le', 'byte-order mark FF FE 00 00');
  if (b(0) === 0 && b(1) === 0 && b(2) === 0xfe && b(3) === 0xff) return utf('utf-32be', 'byte-order mark 00 00 FE FF');
  if (b(0) === 0xff && b(1) === 0xfe) return utf('utf-16le', 'byte-order mark FF FE');
  if (b(0) === 0xfe && b(1) === 0xff) return utf('utf-16be', 'byte-order mark FE FF');
  if (b(0) === 0x1f && b(1) === 0x8b) return { kind: 'gzip', note: 'gzip-compressed: decompress it to open it', detail: 'it is gzip-compressed (magic bytes 1F 8B)' };
  if (b(0) === 0x28 && b(1) === 0xb5 && b(2) === 0x2f && b(3) === 0xfd) return { kind: 'zstd', note: 'zstd-compressed: decompress it to open it', detail: 'it is zstd-compressed (magic bytes 28 B5 2F FD)' };
  if (bytes.length >= 4) {
    const z = [b(0) === 0, b(1) === 0, b(2) === 0, b(3) === 0];
    if (z[0] && z[1] && z[2] && !z[3]) return utf('utf-32be', 'NUL bytes around ASCII characters');
    if (!z[0] && z[1] && z[2] && z[3]) return utf('utf-32le', 'NUL bytes around ASCII characters');
    if (z[0] && !z[1] && z[2] && !z[3]) return utf('utf-16be', 'a NUL byte before each ASCII character');
    if (!z[0] && z[1] && !z[2] && z[3]) return utf('utf-16le', 'a NUL byte after each ASCII character');
  } else if (bytes.length === 2) { // one ASCII character in UTF-16 (a 3-byte file cannot be UTF-16)
    if (b(0) === 0 && b(1) !== 0) return utf('utf-16be', 'a NUL byte before each ASCII character');
    if (b(0) !== 0 && b(1) === 0) return utf('utf-16le', 'a NUL byte after each ASCII character');
  }
  const nul = bytes.indexOf(0);
  if (nul !== -1) return { kind: 'binary', note: 'binary data, not JSON text', detail: `it holds a NUL byte at offset ${nul}, which JSON text never does: it is binary data` };
  return null;
}

/**
 * The format a file with NUL bytes is read in anyway: one its name claims (`.jsonl`, `.ndjson`, …) that detects its
 * content once the NUL bytes are taken out — a log with holes left by an unclean shutdown (the space a writer had
 * reserved reads back as NUL bytes). Each hole is then part of a malformed record, reported as such; an image or an
 * archive under such a name still detects as nothing and stays refused. Null when none.
 */
export function nulHoledFormat(formats: readonly Format[], probe: FormatProbe): Format | null {
  const claimed = formats.filter((f) => f.extensions.includes(probe.extension));
  if (claimed.length === 0) return null;
  const bytes = Buffer.from(probe.bytes.filter((b) => b !== 0));
  if (bytes.length === 0) return null;
  for (const format of claimed) {
    let confidence: number | null = null;
    try { confidence = format.detect({ ...probe, bytes }); } catch { confidence = null; }
    if (confidence !== null && confidence > 0) return format;
  }
  return null;
}

/** The note list_files gives a NUL-holed file it shows in `format` (see nulHoledFormat). */
export function nulHoledNote(sniff: ContentSniff): string {
  return `${sniff.detail.replace(/, which JSON text never does: it is binary data$/, '')}: read as its name says, the holes as malformed records`;
}

/** UNSUPPORTED_FORMAT for a sniffed file, with what to do (`formats`: the registered formats' names, for binary data). */
export function unsupportedContent(displayPath: string, sniff: ContentSniff, formats: readonly string[] = ['json', 'jsonl', 'json-seq']): McpgwError {
  const details: ErrorDetails = {};
  switch (sniff.kind) {
    case 'utf-16le': case 'utf-16be': case 'utf-32le': case 'utf-32be': {
      const from = sniff.kind.toUpperCase();
      details.hint = `Convert it to UTF-8 and open the copy, e.g. iconv -f ${from} -t UTF-8 IN > OUT (PowerShell: Get-Content IN | Set-Content -Encoding utf8 OUT).`;
      break;
    }
    case 'gzip': details.hint = 'Decompress it and open the result, e.g. gunzip -k FILE.gz (or zcat FILE.gz > FILE).'; break;
    case 'zstd': details.hint = 'Decompress it and open the result, e.g. zstd -d FILE.zst.'; break;
    case 'binary': details.hint = `Open a file in a format this server reads (${formats.join(', ')}; UTF-8 text); list_files shows the formats detected.`; break;
    default: break;
  }
  return new McpgwError('UNSUPPORTED_FORMAT', `${displayPath} cannot be read: ${sniff.detail}.`, details);
}
