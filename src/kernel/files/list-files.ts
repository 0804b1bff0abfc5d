import { closeSync, readSync, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Format } from '../contracts/format';
import type { FileListing } from '../contracts/tool';
import { McpgwError, shownInput } from '../errors';
import { selectFormat } from '../plugins/registry';
import { namesIn, openInside } from './descriptor';
import { sniffContent } from './encoding';
import { compileGlob } from './glob';
import type { Sandbox } from './sandbox';

/** Bytes read from each listed file to detect its format. */
const LIST_PROBE_BYTES = 64 * 1024;
/** Directory entries visited at most in one listing (a bound on work, not on results). */
const MAX_VISITED = 100_000;

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
  options: { glob?: string; max?: number; signal?: AbortSignal; deadline?: number; now?: () => number } = {},
): Promise<FileListing> {
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

  /**
   * Lists folder `fd` (opened inside the root, shown as `dir`): names through the descriptor; each entry resolved
   * inside the root, opened, checked and read through its own descriptor (descriptor.ts), so a link swapped in
   * meanwhile lists nothing from outside.
   */
  const walk = async (dir: string, fd: number, real: string): Promise<boolean> => {
    let names: string[];
    try {
      names = namesIn(fd, real).sort();
    } catch {
      return true; // unreadable folder: skipped
    }
    for (const name of names) {
      if (options.signal?.aborted) throw new McpgwError('CANCELLED', 'The listing was cancelled.');
      if (++visited > MAX_VISITED || (options.deadline !== undefined && (options.now ?? Date.now)() > options.deadline)) { truncated = true; return false; }
      if (Date.now() - lastYield > 50) { await new Promise((r) => setImmediate(r)); lastYield = Date.now(); }
      const lexical = path.join(dir, name);
      let entry;
      try {
        const target = realpathSync.native(path.join(real, name));
        if (!sandbox.contains(target)) continue; // a link out of the root is not listed
        const kind = statSync(target);
        if (!kind.isFile() && !kind.isDirectory()) continue; // FIFOs, sockets and devices are neither listed nor opened
        entry = openInside(sandbox, target, name);
      } catch {
        continue; // dangling link, vanished entry, unreadable, or a link swapped in to leave the root
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
        const rel = path.relative(folder, lexical).split(path.sep).join('/');
        if (glob && !glob.test(onBase ? name : rel)) continue;
        if (files.length >= max) { truncated = true; return false; }
        let format: string | null = null;
        let note: string | undefined;
        try {
          const probe = { fileName: name, extension: path.extname(name).toLowerCase(), bytes: head(entry.fd, st.size), size: st.size };
          const sniff = sniffContent(probe.bytes, probe.size);
          if (sniff) note = sniff.note; // empty, binary, UTF-16/32, compressed: no format
          else format = selectFormat(formats, probe).format.name;
        } catch {
          format = null;
        }
        files.push({ path: sandbox.relative(lexical), size: st.size, mtimeMs: st.mtimeMs, format, ...(note ? { note } : {}) });
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
  return { folder: sandbox.relative(folder), files, truncated };
}
