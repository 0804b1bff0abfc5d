import { closeSync, readSync, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Format } from '../contracts/format';
import type { FileListing, ListingSkip } from '../contracts/tool';
import { McpgwError, shownInput } from '../errors';
import { selectFormat } from '../plugins/registry';
import { namesIn, openInside } from './descriptor';
import { nulHoledFormat, nulHoledNote, sniffContent } from './encoding';
import { compileGlob } from './glob';
import { osError } from './os-error';
import type { Sandbox } from './sandbox';

/** Bytes read from each listed file to detect its format. */
const LIST_PROBE_BYTES = 64 * 1024;
/** Directory entries visited at most in one listing (a bound on work, not on results). */
const MAX_VISITED = 100_000;
/** Paths named per reason an entry was left out (`ListingSkip.paths`). */
const SKIPPED_PATHS = 5;

/** The first bytes of an open file, read through its descriptor. */
function head(fd: number, size: number): Buffer {
  const buf = Buffer.allocUnsafe(Math.min(size, LIST_PROBE_BYTES));
  let done = 0;
  while (done < buf.length) {
    const got = readSync(fd, buf, done, buf.length - done, done);
    if (got === 0) break;
    done += got;
  }
  return buf.subarray(0, done);
}

/** See `FileAccess.list`. */
export async function listFiles(
  sandbox: Sandbox,
  formats: readonly Format[],
  input: string | undefined,
  options: { glob?: string; max?: number; offset?: number; countAll?: boolean; signal?: AbortSignal; deadline?: number; now?: () => number } = {},
): Promise<FileListing> {
  const offset = options.offset ?? 0;
  /** Matching files met so far (the first `offset` passed over unread; past `max`, counted unread with countAll). */
  let matched = 0;
  let stoppedEarly = false;
  const folder = sandbox.resolve(input === undefined || input === '' ? '.' : input);
  const top = openInside(sandbox, folder, input ?? '.');
  const max = options.max ?? 200;
  const glob = options.glob ? compileGlob(options.glob) : null;
  const onBase = options.glob !== undefined && !options.glob.includes('/');
  const files: FileListing['files'] = [];
  const seen = new Set<string>([top.realPath]);
  let visited = 0;
  let truncated = false;
  let lastYield = Date.now();
  const skipped = new Map<string, ListingSkip>();
  /** Records that the entry shown as `shown` (relative to the root) could not be read: `err` from the system or openInside. */
  const skip = (shown: string, err: unknown, action: string): void => {
    const mapped = err instanceof McpgwError ? err : osError(err, shown, action);
    const group = skipped.get(mapped.code);
    if (group === undefined) {
      skipped.set(mapped.code, { code: mapped.code, count: 1, paths: [shown], message: mapped.message });
      return;
    }
    group.count++;
    if (group.paths.length < SKIPPED_PATHS) group.paths.push(shown);
  };

  /**
   * Lists folder `fd` (opened inside the root, shown as `dir`): names through the descriptor; each entry resolved
   * inside the root, opened, checked and read through its own descriptor (descriptor.ts), so a link swapped in
   * meanwhile lists nothing from outside.
   */
  const walk = async (dir: string, fd: number, real: string): Promise<boolean> => {
    let names: string[];
    try {
      names = namesIn(fd, real, sandbox.fs).sort();
    } catch (err) {
      skip(sandbox.relative(dir) || '.', err, 'read'); // a folder opened but whose names cannot be read
      return true;
    }
    for (const name of names) {
      if (options.signal?.aborted) throw new McpgwError('CANCELLED', 'The listing was cancelled.');
      if (++visited > MAX_VISITED || (options.deadline !== undefined && (options.now ?? Date.now)() > options.deadline)) { truncated = true; stoppedEarly = true; return false; }
      if (Date.now() - lastYield > 50) { await new Promise((r) => setImmediate(r)); lastYield = Date.now(); }
      const lexical = path.join(dir, name);
      const shown = sandbox.relative(lexical);
      const rel = path.relative(folder, lexical).split(path.sep).join('/');
      /** Whether a file here would be listed (the glob); a folder, or an entry of unknown kind, may hold files that would. */
      const wanted = (file: boolean) => !file || !glob || glob.test(onBase ? name : rel);
      let entry;
      let isFile = false;
      try {
        let target: string;
        try {
          target = realpathSync.native(path.join(real, name));
        } catch (err) {
          skip(shown, err, 'resolve'); // a dangling link, a link loop (ELOOP), an entry that vanished, a folder not searchable
          continue;
        }
        if (!sandbox.contains(target)) continue; // a link out of the root is not listed
        const kind = statSync(target);
        if (!kind.isFile() && !kind.isDirectory()) continue; // FIFOs, sockets and devices are neither listed nor opened
        isFile = kind.isFile();
        if (isFile && wanted(true)) {
          // Files of earlier pages are passed over, and with countAll the files past this page counted, unopened.
          if (++matched <= offset) continue;
          if (files.length >= max) {
            truncated = true;
            if (options.countAll) continue;
            return false;
          }
        }
        entry = openInside(sandbox, target, shown);
      } catch (err) {
        // unreadable (EACCES), vanished since it was resolved, or a link swapped in to leave the root
        if (wanted(isFile)) skip(shown, err, 'open');
        continue;
      }
      try {
        const st = entry.stats;
        if (st.isDirectory()) {
          if (seen.has(entry.realPath)) continue; // link cycles
          seen.add(entry.realPath);
          if (!(await walk(lexical, entry.fd, entry.realPath))) return false;
          continue;
        }
        if (!st.isFile()) continue;
        if (!wanted(true)) continue;
        if (files.length >= max) { truncated = true; return false; }
        let format: string | null = null;
        let note: string | undefined;
        try {
          const probe = { fileName: name, extension: path.extname(name).toLowerCase(), bytes: head(entry.fd, st.size), size: st.size };
          const sniff = sniffContent(probe.bytes, probe.size);
          const blank = sniff === null && probe.bytes.length === probe.size && isBlank(probe.bytes);
          const holed = sniff?.kind === 'binary' ? nulHoledFormat(formats, probe) : null;
          if (holed) { format = holed.name; note = nulHoledNote(sniff!); }
          else if (sniff) note = sniff.note; // empty, binary, UTF-16/32, compressed: no format (an empty file: its name's)
          else if (blank) note = 'blank file (whitespace only)';
          if (!sniff || sniff.kind === 'empty') {
            const chosen = selectFormat(formats, probe).format;
            format = chosen.name;
            // An empty or whitespace-only file: what opening it gives, by the format its name gives it.
            if (note !== undefined) note = emptyNote(note, chosen);
          }
        } catch {
          format = null;
        }
        files.push({ path: shown, size: st.size, mtimeMs: st.mtimeMs, format, ...(note ? { note } : {}) });
      } finally {
        closeSync(entry.fd);
      }
    }
    return true;
  };
  try {
    if (!top.stats.isDirectory()) {
      throw new McpgwError('INVALID_ARGUMENT', `${shownInput(input ?? ".")} is a file, not a folder.`, { hint: 'Give a folder; open_file opens a file.' });
    }
    await walk(folder, top.fd, top.realPath);
  } finally {
    closeSync(top.fd);
  }
  return {
    folder: sandbox.relative(folder), files, truncated, skipped: [...skipped.values()],
    ...(options.countAll && !stoppedEarly ? { total: matched } : {}),
  };
}

/** Whether `bytes` hold only JSON whitespace (RFC 8259 §2: space, tab, line feed, carriage return). */
function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return false;
  return true;
}

/** list_files' note for an empty or blank file, by what its format makes of it (`Format.emptyText`). */
function emptyNote(what: string, format: Format): string {
  if (format.emptyText === 'no-records') return `${what}: no records`;
  if (format.emptyText === 'not-a-text') return `${what}: not a JSON text, open_file refuses it (SYNTAX_ERROR)`;
  return what;
}
