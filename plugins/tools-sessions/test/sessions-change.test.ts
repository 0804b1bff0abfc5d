/**
 * How the session index tells what became of a session file since it was read (changeOf in
 * plugins/tools-sessions/src/semantic/indexer.ts): unchanged, grown (appended to) or new — and a rewrite in place to
 * the same size with its modification time put back is new, told by the change time (ctime), which nothing puts back.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { changeOf, prefixCrc, tailCrc } from '../src/semantic/indexer';
import { crc32 } from 'node:zlib';
import type { IndexedFile, IndexedSession } from '../src/semantic/store';

let dir: string;
beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-session-change-')); });
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const lines = ['{"type":"user","text":"one"}', '{"type":"assistant","text":"two"}', '{"type":"user","text":"three"}'];

/** The index's record of `file` as read now (its identity, 3 records, resuming at the last record's start). */
function storedOf(file: string, keepCtime = true): IndexedSession {
  const st = fs.statSync(file);
  const resumeOffset = Buffer.byteLength(lines[0]! + '\n' + lines[1]! + '\n');
  const f: IndexedFile = { path: file, dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ...(keepCtime ? { ctimeMs: st.ctimeMs } : {}), records: 3, resumeOffset, tailCrc: tailCrc(file, resumeOffset), prefixCrc: prefixCrc(file, resumeOffset) };
  return { id: 1, source: 'claude', path: file, sessionId: 's', projectName: 'p', projectPath: null, firstPrompt: null, files: [f], records: 3, entries: 3, modifiedMs: st.mtimeMs, complete: true };
}

test('unchanged, grown, and rewritten to the same size with the modification time put back', async () => {
  const file = path.join(dir, 's.jsonl');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const mtime = Math.floor(fs.statSync(file).mtimeMs / 1000) - 60; // whole seconds: utimes puts them back exactly
  fs.utimesSync(file, mtime, mtime);
  const stored = storedOf(file);
  expect(changeOf(stored, [file])).toEqual({ kind: 'same' });

  // the same size, the bytes before the resume offset unchanged, a record rewritten; the mtime put back
  // the change time moves on the file system's clock: rewrite until it has moved (bounded; the assertion below says so)
  const rewritten = lines.join('\n').replace('"three"', '"THREE"') + '\n';
  for (let n = 0; n < 100_000 && (n === 0 || fs.statSync(file).ctimeMs === stored.files[0]!.ctimeMs); n++) {
    fs.writeFileSync(file, rewritten);
    fs.utimesSync(file, mtime, mtime);
  }
  expect(fs.statSync(file)).toMatchObject({ size: stored.files[0]!.size, mtimeMs: stored.files[0]!.mtimeMs });
  expect(fs.statSync(file).ctimeMs).not.toBe(stored.files[0]!.ctimeMs);
  expect(changeOf(stored, [file])).toEqual({ kind: 'new' });

  // appended to: grown, read on from the records already read
  const again = storedOf(file);
  fs.appendFileSync(file, '{"type":"user","text":"four"}\n');
  expect(changeOf(again, [file])).toEqual({ kind: 'grown', from: 3 });
});

test('an entry stored before the change time was kept is compared without it', () => {
  const file = path.join(dir, 'old.jsonl');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  expect(changeOf(storedOf(file, false), [file])).toEqual({ kind: 'same' });
});

test('a rewrite in place that keeps the first and last 4 KiB and then grows is not growth (field case C37)', () => {
  const file = path.join(dir, 'c37.jsonl');
  const pad = 'x'.repeat(4096);
  const head = `{"type":"user","text":"${pad}"}`;
  const tail = `{"type":"assistant","text":"${pad}"}`;
  const before = [head, '{"type":"user","text":"the middle as it was"}', tail, '{"type":"user","text":"last"}'];
  fs.writeFileSync(file, before.join('\n') + '\n');
  const st = fs.statSync(file);
  const resumeOffset = Buffer.byteLength(before.slice(0, 3).join('\n') + '\n');
  const stored: IndexedSession = {
    id: 1, source: 'claude', path: file, sessionId: 's', projectName: 'p', projectPath: null, firstPrompt: null, records: 4, entries: 4, modifiedMs: st.mtimeMs, complete: true,
    files: [{ path: file, dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, records: 4, resumeOffset, tailCrc: tailCrc(file, resumeOffset), prefixCrc: prefixCrc(file, resumeOffset) }],
  };
  // The same inode rewritten: the first and the last 4 KiB before the resume offset kept, the middle replaced, longer.
  const after = [head, '{"type":"user","text":"A MIDDLE, REWRITTEN!"}', tail, '{"type":"user","text":"last"}', '{"type":"user","text":"more"}'];
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, after.join('\n') + '\n', 0);
  fs.closeSync(fd);
  const newResume = Buffer.byteLength(after.slice(0, 3).join('\n') + '\n');
  expect(newResume).toBe(resumeOffset); // the same length: the last 4 KiB before the resume offset are the same bytes
  expect(tailCrc(file, resumeOffset)).toBe(stored.files[0]!.tailCrc);
  expect(fs.statSync(file).ino).toBe(st.ino);
  expect(changeOf(stored, [file])).toEqual({ kind: 'new' });
});

test('prefixCrc is the CRC-32 of the bytes before the offset (zlib computes the reference)', () => {
  const file = path.join(dir, 'p.jsonl');
  const text = Buffer.from(Array.from({ length: 5000 }, (_, k) => `{"k":${k}}`).join('\n') + '\n');
  fs.writeFileSync(file, text);
  expect(prefixCrc(file, 12345)).toBe(crc32(text.subarray(0, 12345)));
  expect(prefixCrc(file, text.length + 10)).toBe(-1);
  // Carried on from a known checksum of a shorter prefix: the same CRC (only the bytes after it read).
  expect(prefixCrc(file, 12345, { end: 1000, crc: crc32(text.subarray(0, 1000)) })).toBe(crc32(text.subarray(0, 12345)));
  expect(prefixCrc(file, 12345, { end: 12345, crc: crc32(text.subarray(0, 12345)) })).toBe(crc32(text.subarray(0, 12345)));
  // A known checksum that cannot be carried (unreadable before, or past the end asked): read whole.
  expect(prefixCrc(file, 12345, { end: 1000, crc: -1 })).toBe(crc32(text.subarray(0, 12345)));
  expect(prefixCrc(file, 1000, { end: 12345, crc: 7 })).toBe(crc32(text.subarray(0, 1000)));
});
