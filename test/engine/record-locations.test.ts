/**
 * A record's location (line, column, byte offset) as the source reports it, against positions counted here in the
 * file's text: records located in file order (each line counted on from the record before), in reverse and in a
 * shuffled order (each from its line checkpoint, one every 1,024 records), past several checkpoints; and elements of a
 * top-level array in the middle of long lines (the column counted back to the line's start: a few bytes, several KiB,
 * or past 64 KiB, where the column is counted from 64 KiB back).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import json from '../../plugins/format-json/src/index';
import jsonl from '../../plugins/format-jsonl/src/index';
import type { Format } from '../../src/kernel/contracts';
import { fileService, formatsOf } from '../helpers/formats';

let dir: string;
let formats: Format[];
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-locations-'));
  formats = [...(await formatsOf(jsonl)), ...(await formatsOf(json))];
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Where each of `starts` (string indexes into `text`) is: 1-based line, 1-based column in UTF-16 units, byte offset. */
function positions(text: string, starts: number[]): { line: number; column: number; byte_offset: number }[] {
  const out: { line: number; column: number; byte_offset: number }[] = [];
  let line = 1, lineStart = 0, at = 0, bytes = 0;
  for (const s of starts) {
    for (; at < s; at++) if (text[at] === '\n') { line++; lineStart = at + 1; }
    bytes += Buffer.byteLength(text.slice(out.length ? starts[out.length - 1] : 0, s));
    out.push({ line, column: s - lineStart + 1, byte_offset: bytes });
  }
  return out;
}

/** A shuffled copy of 0..n-1 (a fixed seed). */
function shuffled(n: number): number[] {
  const a = [...Array(n).keys()];
  let s = 7;
  for (let i = n - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

test('JSON Lines with blank lines, CRLF and indented records: every record located, in order, in reverse and shuffled', async () => {
  const parts: string[] = [];
  const starts: number[] = [];
  let length = 0;
  for (let i = 0; i < 2500; i++) {
    if (i % 97 === 4) { parts.push('\n'); length += 1; }
    if (i % 250 === 7) { parts.push('\r\n\n'); length += 3; }
    const indent = i % 13 === 0 ? '  ' : '';
    const record = `{"i":${i},"s":"${'é'.repeat(i % 5)}${'x'.repeat(i % 41)}"}`;
    starts.push(length + indent.length);
    const line = `${indent}${record}${i % 89 === 3 ? '\r' : ''}\n`;
    parts.push(line);
    length += line.length;
  }
  const text = parts.join('');
  fs.writeFileSync(path.join(dir, 'lines.jsonl'), text);
  const want = positions(text, starts).map((p, i) => ({ ...p, record_index: i }));
  const f = await fileService(dir, formats).open('lines.jsonl');
  try {
    expect(f.source.count).toBe(2500);
    const inOrder = [...Array(2500).keys()].map((i) => f.source.location(i));
    expect(inOrder).toEqual(want);
    const reverse = [...Array(2500).keys()].reverse();
    expect(reverse.map((i) => f.source.location(i))).toEqual(reverse.map((i) => want[i]));
    const shuffle = shuffled(2500);
    expect(shuffle.map((i) => f.source.location(i))).toEqual(shuffle.map((i) => want[i]));
  } finally {
    f.close();
  }
});

test('a top-level array on long lines: each element\'s column counted back to its line\'s start, however far', async () => {
  // Lines of 40 elements of ~30 bytes, of 600 (~13 KiB) and of 450 longer ones (~100 KiB: past 64 KiB the column is counted
  // from 64 KiB back, as the source documents); multi-byte text on them.
  const starts: number[] = [];
  let text = '[';
  let n = 0;
  for (const perLine of [40, 600, 40, 450, 7]) {
    text += '\n';
    for (let k = 0; k < perLine; k++, n++) {
      if (k > 0) text += ', ';
      starts.push(text.length);
      text += `{"i":${n},"t":"${n % 3 === 0 ? '😀é' : 'ab'}"${perLine === 450 ? `,"p":"${'p'.repeat(200)}"` : ''}}`;
    }
    text += ',';
  }
  text = text.slice(0, -1) + '\n]\n';
  fs.writeFileSync(path.join(dir, 'long.json'), text);
  const f = await fileService(dir, formats).open('long.json');
  try {
    expect(f.source.count).toBe(n);
    const want = positions(text, starts).map((p, i) => ({ ...p, record_index: i }));
    /** The column the source gives: characters since the line's LF, counted from at most 64 KiB back. */
    const column = (i: number) => {
      const lineStart = text.lastIndexOf('\n', starts[i]! - 1) + 1;
      const before = Buffer.from(text.slice(lineStart, starts[i]));
      return before.length <= 65536 ? want[i]!.column : before.subarray(before.length - 65536).toString('utf8').length + 1;
    };
    const got = [...Array(n).keys()].map((i) => f.source.location(i));
    expect(got).toEqual(want.map((w, i) => ({ ...w, column: column(i) })));
    expect(got.filter((g, i) => g.column !== want[i]!.column).length).toBeGreaterThan(100); // elements past 64 KiB into their line were met
    expect(got.some((g) => g.column > 8192)).toBe(true);
    const shuffle = shuffled(n);
    expect(shuffle.map((i) => f.source.location(i))).toEqual(shuffle.map((i) => got[i]));
  } finally {
    f.close();
  }
});
