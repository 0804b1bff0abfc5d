import { closeSync, constants, fstatSync, openSync, readSync, readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import * as path from 'node:path';
import type { SessionEntryDraft, SessionRole, SessionTokens } from 'mcpgw/plugin-api';
import { binarySummary, guardBinary, guardBinaryDeep, isRaw } from '../text';

// ---- reading records defensively (a record may hold anything) ----

export type Obj = Record<string, unknown>;

export function obj(v: unknown): Obj | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !isRaw(v) ? (v as Obj) : null;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A number, also from an exact-number lexeme; undefined otherwise. */
export function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (isRaw(v)) {
    const n = Number((v as { rawJSON: string }).rawJSON);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** A non-negative integer token count (0 for anything else). */
export function count(v: unknown): number {
  const n = num(v);
  return n !== undefined && n > 0 ? Math.floor(n) : 0;
}

export function tokens(input: number, output: number, cacheRead: number, cacheWrite: number): SessionTokens {
  return { input_tokens: Math.max(0, input), output_tokens: Math.max(0, output), cache_read_tokens: Math.max(0, cacheRead), cache_write_tokens: Math.max(0, cacheWrite) };
}

/** An entry with every field defaulted. */
export function entry(role: SessionRole, fields: Partial<SessionEntryDraft> = {}): SessionEntryDraft {
  return { uuid: null, role, timestamp: null, text: '', thinking: null, tool_uses: [], tool_results: [], model: null, usage: null, ...fields };
}

/** A tool call's arguments as a JSON object: objects as they are, JSON text parsed, anything else wrapped. */
export function toolInput(v: unknown): Record<string, unknown> {
  const o = obj(v);
  if (o) return guardBinaryDeep(o) as Record<string, unknown>;
  if (typeof v === 'string') {
    try {
      const parsed = JSON.parse(v);
      const p = obj(parsed);
      if (p) return guardBinaryDeep(p) as Record<string, unknown>;
      return { value: guardBinaryDeep(parsed) };
    } catch {
      return { input: guardBinary(v) };
    }
  }
  return v === undefined ? {} : { value: guardBinaryDeep(v) };
}

/**
 * Text of a content value: a string, or blocks (`{type: "text", text}`, `{text}`, images and documents summarized,
 * other blocks named by their type), joined by blank lines.
 */
export function blocksText(content: unknown, skip: (block: Obj) => boolean = () => false): string {
  if (typeof content === 'string') return guardBinary(content);
  const parts: string[] = [];
  for (const b of arr(content)) {
    if (typeof b === 'string') { parts.push(guardBinary(b)); continue; }
    const block = obj(b);
    if (!block || skip(block)) continue;
    const type = str(block.type);
    const text = str(block.text);
    if (text !== undefined && (type === undefined || type === 'text' || type === 'input_text' || type === 'output_text')) parts.push(guardBinary(text));
    else if (type === 'image' || type === 'document' || type === 'image_url' || type === 'input_image') {
      const source = obj(block.source) ?? obj(block.image_url) ?? {};
      parts.push(binarySummary(type === 'document' ? 'document' : 'image', source.media_type ?? block.media_type, source.data ?? source.url ?? block.image_url));
    } else if (text !== undefined) parts.push(guardBinary(text));
    else if (type) parts.push(`[${type}]`);
  }
  return parts.filter((p) => p.length > 0).join('\n\n');
}

/** Any value as result text: strings as they are, blocks as text, other JSON compact. */
export function resultText(v: unknown): string {
  if (typeof v === 'string') return guardBinary(v);
  if (Array.isArray(v)) return blocksText(v);
  if (v === undefined || v === null) return '';
  const o = obj(v);
  if (o) {
    for (const k of ['content', 'output', 'text', 'result']) {
      if (typeof o[k] === 'string') return guardBinary(o[k] as string);
      if (Array.isArray(o[k])) return blocksText(o[k]);
    }
  }
  return JSON.stringify(guardBinaryDeep(v));
}

/** An unknown record kept as a `system` entry naming its type (format drift is never fatal). */
export function unknownEntry(type: string | undefined, record: Obj, timestamp?: string): SessionEntryDraft {
  const message = str(record.message) ?? str(record.content) ?? str(record.text);
  return entry('system', { timestamp: timestamp ?? null, text: message !== undefined ? guardBinary(message) : `[${type ?? 'record'}]` });
}

// ---- discovery: listing folders without leaving the home ----

/** Sub-entries of `dir` (sorted by name); [] when it cannot be read. */
export function listDir(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

/** Folders directly under `dir` (symbolic links are not followed: they could lead out of the home). */
export function subdirs(dir: string): string[] {
  return listDir(dir).filter((e) => e.isDirectory()).map((e) => path.join(dir, e.name));
}

/** Regular files directly under `dir` whose names pass `test` (links are left out). */
export function filesIn(dir: string, test: (name: string) => boolean): string[] {
  return listDir(dir).filter((e) => e.isFile() && test(e.name)).map((e) => path.join(dir, e.name));
}

/** Every regular file under `dir`, recursively, whose name passes `test`, in path order (links not followed). */
export function walkFiles(dir: string, test: (name: string) => boolean, max = 1_000_000): string[] {
  const out: string[] = [];
  const visit = (d: string, depth: number) => {
    if (depth > 16) return;
    for (const e of listDir(d)) {
      if (out.length >= max) return;
      const p = path.join(d, e.name);
      if (e.isDirectory()) visit(p, depth + 1);
      else if (e.isFile() && test(e.name)) out.push(p);
    }
  };
  visit(dir, 0);
  return out;
}

interface HeadCacheEntry { size: number; mtimeMs: number; text: string }
const headCache = new Map<string, HeadCacheEntry>();
const HEAD_CACHE_MAX = 50_000;

/**
 * The first `bytes` bytes of a file as text (a character cut at the end is dropped), cached by path, size and
 * modification time so that listing again reads nothing new. '' when it cannot be read.
 */
export function headText(file: string, bytes = 64 * 1024): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return '';
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return '';
    const cached = headCache.get(file);
    if (cached && cached.size === st.size && cached.mtimeMs === st.mtimeMs) return cached.text;
    const buf = Buffer.allocUnsafe(Math.min(bytes, st.size));
    let done = 0;
    while (done < buf.length) {
      const got = readSync(fd, buf, done, buf.length - done, done);
      if (got === 0) break;
      done += got;
    }
    const text = new TextDecoder('utf-8', { fatal: false }).decode(buf.subarray(0, done)).replace(/\uFFFD$/, '');
    if (headCache.size >= HEAD_CACHE_MAX) headCache.delete(headCache.keys().next().value!);
    headCache.set(file, { size: st.size, mtimeMs: st.mtimeMs, text });
    return text;
  } catch {
    return '';
  } finally {
    try { closeSync(fd); } catch { /* closed */ }
  }
}

/** The complete lines of `text` parsed as JSON (lines that do not parse are skipped), at most `max`. */
export function headRecords(text: string, max = 64): Obj[] {
  const out: Obj[] = [];
  let start = 0;
  while (out.length < max) {
    const nl = text.indexOf('\n', start);
    if (nl === -1) break;
    const line = text.slice(start, nl).trim();
    start = nl + 1;
    if (!line) continue;
    try {
      const o = obj(JSON.parse(line));
      if (o) out.push(o);
    } catch { /* a malformed line */ }
  }
  return out;
}

/**
 * The first complete lines of a file parsed as JSON, as `headRecords(headText(file, maxBytes), max)` gives them, read
 * in growing steps (4 KiB first) and stopping once `enough` says the records so far do (the caller's answer is then in
 * them: a first record of some kind, say), so that listing thousands of sessions reads a few KiB of each, not 64 KiB.
 * Nothing is kept. [] when the file cannot be read.
 */
export function headRecordsUntil(file: string, max: number, enough: (records: readonly Obj[]) => boolean, maxBytes = 64 * 1024): Obj[] {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return [];
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return [];
    const limit = Math.min(maxBytes, st.size);
    let buf = Buffer.allocUnsafe(Math.min(4096, limit));
    let done = 0;
    for (;;) {
      while (done < buf.length) {
        const got = readSync(fd, buf, done, buf.length - done, done);
        if (got === 0) break;
        done += got;
      }
      const text = new TextDecoder('utf-8', { fatal: false }).decode(buf.subarray(0, done)).replace(/\uFFFD$/, '');
      const records = headRecords(text, max);
      if (records.length >= max || enough(records) || done < buf.length || buf.length >= limit) return records;
      const bigger = Buffer.allocUnsafe(Math.min(buf.length * 4, limit));
      buf.copy(bigger, 0, 0, done);
      buf = bigger;
    }
  } catch {
    return [];
  } finally {
    try { closeSync(fd); } catch { /* closed */ }
  }
}

/** The first string value of member `key` found in `text` (a JSON string literal decoded), or undefined. */
export function firstStringMember(text: string, key: string): string | undefined {
  const re = new RegExp(`"${key}"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")`);
  const m = re.exec(text);
  if (!m) return undefined;
  try {
    const v = JSON.parse(m[1]!);
    return typeof v === 'string' && v.length > 0 ? v : undefined;
  } catch {
    return undefined;
  }
}

const memberCache = new Map<string, { size: number; mtimeMs: number; value: string | undefined }>();

/**
 * The first string value of member `key` anywhere in a file (read in 1 MiB chunks, each overlapping the last by 64 KiB,
 * up to `maxBytes`): for a value the first 64 KiB do not hold. Cached by path, size and modification time.
 */
export function findStringMember(file: string, key: string, maxBytes = 256 * 1024 * 1024): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    const cacheKey = `${file}\n${key}`;
    const cached = memberCache.get(cacheKey);
    if (cached && cached.size === st.size && cached.mtimeMs === st.mtimeMs) return cached.value;
    const CHUNK = 1024 * 1024, OVERLAP = 64 * 1024;
    const buf = Buffer.allocUnsafe(CHUNK);
    const needle = Buffer.from(`"${key}"`);
    let value: string | undefined;
    for (let at = 0; at < Math.min(st.size, maxBytes) && value === undefined; at += CHUNK - OVERLAP) {
      const got = readSync(fd, buf, 0, CHUNK, at);
      if (got <= 0) break;
      const chunk = buf.subarray(0, got);
      if (chunk.indexOf(needle) === -1) { if (got < CHUNK) break; continue; }
      value = firstStringMember(chunk.toString('utf8'), key);
      if (got < CHUNK) break;
    }
    if (memberCache.size >= HEAD_CACHE_MAX) memberCache.delete(memberCache.keys().next().value!);
    memberCache.set(cacheKey, { size: st.size, mtimeMs: st.mtimeMs, value });
    return value;
  } catch {
    return undefined;
  } finally {
    try { closeSync(fd); } catch { /* closed */ }
  }
}

/** True when the real path of `p` lies inside the real path of `home`. */
export function insideHome(p: string, home: string): boolean {
  try {
    const rel = path.relative(realpathSync(home), realpathSync(p));
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  } catch {
    return false;
  }
}

/** True when `p` is an existing folder. */
export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The base name of a project folder for display; `fallback` when the folder is unknown. */
export function projectName(folder: string | null, fallback: string): string {
  if (!folder) return fallback;
  const base = folder.split(/[\\/]/).filter(Boolean).pop();
  return base ?? folder;
}
