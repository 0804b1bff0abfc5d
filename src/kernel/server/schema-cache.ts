import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { NotARegularFile, readRegularFile } from '../files/regular-file';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import type { Logger } from '../contracts/plugin';

type JsonSchema = Record<string, unknown>;

/** The advertised JSON Schemas of one tool, as tools/list shows them. */
export interface AdvertisedSchemas {
  input: JsonSchema;
  output: JsonSchema;
}

/** A tool whose schemas are advertised: what its JSON Schemas are computed from, named for the key. */
export interface SchemaSource {
  /** `plugin/bundle/tool`, plus anything else its JSON Schemas depend on (the bundle's lenientArguments). */
  id: string;
  compute(): AdvertisedSchemas;
}

export interface SchemaCacheOptions {
  /** The cache folder (the index cache's, `cacheDir`); the file is written there on a miss. */
  dir: string;
  /** What wrote the schemas: mcpgw's version, zod's version, the offered tools' plugins and versions. */
  salt: string;
  /** A damaged file is reported at `warn`, a failure to write at `debug`. */
  log: Logger;
  /**
   * The code the schemas are built by, as one string (default `loadedCode()`: the path, size and modification time of
   * every module file loaded so far outside node_modules). Tests pass their own.
   */
  code?: () => string;
}

/** Layout version of the stored file; a file of another version is a miss. */
const LAYOUT = 1;
const PREFIX = 'tools-';
const SUFFIX = '.json';
/** Stored files kept (the newest by modification time); older ones are left-overs of other code or configs. */
const KEEP_FILES = 8;

/** mcpgw's own dependencies (dist/kernel/server or src/kernel/server → the package's node_modules). */
const OWN_DEPENDENCIES = path.resolve(__dirname, '..', '..', '..', 'node_modules') + path.sep;

/**
 * The path, size and modification time (ms) of every CommonJS module loaded so far, except mcpgw's own dependencies
 * (zod is named by its version in the salt; the others build no schema): the kernel, the built-in plugins and every
 * other plugin, by path or installed. A rebuilt file changes its size or time, so a schema edited and rebuilt is a new
 * key even where a version says nothing (a plugin under development). ES modules are not in `require.cache`: an ES
 * module plugin `require` could not load (top-level await) is keyed by its name and version alone.
 */
export function loadedCode(): string {
  const parts: string[] = [];
  for (const file of Object.keys(require.cache).sort()) {
    if (file.startsWith(OWN_DEPENDENCIES)) continue;
    try {
      const st = statSync(file);
      parts.push(`${file}:${st.size}:${st.mtimeMs}`);
    } catch {
      parts.push(`${file}:?`);
    }
  }
  return parts.join('\n');
}

/**
 * The advertised JSON Schemas of `tools`, in order: read from the cache folder when stored there by the same code for
 * the same tools, else computed (zod's JSON Schema conversion of every tool, the bulk of a start's own work after the
 * imports) and stored for the next start. The file (`tools-<key>.json`) holds its key, a layout version and a CRC-32 of
 * its schemas; any mismatch is a miss, and a file that does not parse or whose CRC differs is removed with a warning
 * (`tools/list schema cache: discarded a damaged file`) and written again. Written to a temporary file and renamed into
 * place, so concurrent servers read a whole file or none. No failure of the cache fails a start: without a folder, or
 * with an unwritable one, the schemas are computed as without a cache.
 */
export function advertisedSchemas(tools: readonly SchemaSource[], options: SchemaCacheOptions | null): AdvertisedSchemas[] {
  if (!options) return tools.map((t) => t.compute());
  const key = createHash('sha256')
    .update(`${LAYOUT}\n${options.salt}\n${tools.map((t) => t.id).join('\n')}\n${(options.code ?? loadedCode)()}`)
    .digest('hex')
    .slice(0, 32);
  const file = path.join(options.dir, `${PREFIX}${key}${SUFFIX}`);
  const stored = readStored(file, key, tools.length, options.log);
  if (stored) return stored;
  const schemas = tools.map((t) => t.compute());
  store(options.dir, file, key, schemas, options.log);
  return schemas;
}

function readStored(file: string, key: string, count: number, log: Logger): AdvertisedSchemas[] | null {
  let text: string;
  try {
    text = readRegularFile(file); // not a symlink, never waiting on a FIFO
  } catch (err) {
    if (err instanceof NotARegularFile) log.warn('tools/list schema cache: not a regular file, not read', { file });
    return null;
  }
  const problem = (() => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return 'not JSON';
    }
    const p = parsed as { layout?: unknown; key?: unknown; crc?: unknown; schemas?: unknown };
    if (p === null || typeof p !== 'object' || p.layout !== LAYOUT || p.key !== key) return 'another layout or key';
    if (!Array.isArray(p.schemas) || p.schemas.length !== count) return 'wrong number of tools';
    if (p.crc !== crc32(JSON.stringify(p.schemas))) return 'checksum mismatch';
    if (!p.schemas.every((s) => isObject(s) && isObject((s as AdvertisedSchemas).input) && isObject((s as AdvertisedSchemas).output))) return 'not a schema pair';
    return p.schemas as AdvertisedSchemas[];
  })();
  if (typeof problem !== 'string') return problem;
  log.warn(`tools/list schema cache: discarded a damaged file (${problem})`, { file });
  try {
    unlinkSync(file);
  } catch {
    // gone already
  }
  return null;
}

function isObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function store(dir: string, file: string, key: string, schemas: AdvertisedSchemas[], log: Logger): void {
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 }); // every folder it makes (the index cache's too) is the user's alone
    writeFileSync(temp, JSON.stringify({ layout: LAYOUT, key, crc: crc32(JSON.stringify(schemas)), schemas }));
    renameSync(temp, file);
    prune(dir, file);
  } catch (err) {
    try {
      unlinkSync(temp);
    } catch {
      // never written
    }
    log.debug('tools/list schema cache: not stored', { file, error: (err as Error).message });
  }
}

/** Keeps the KEEP_FILES newest stored files (each rebuild of a plugin writes a new one). */
function prune(dir: string, keep: string): void {
  const names = readdirSync(dir).filter((n) => n.startsWith(PREFIX) && n.endsWith(SUFFIX));
  if (names.length <= KEEP_FILES) return;
  const dated = names
    .map((n) => path.join(dir, n))
    .filter((f) => f !== keep)
    .map((f) => {
      try {
        return { f, t: statSync(f).mtimeMs };
      } catch {
        return { f, t: Infinity };
      }
    })
    .sort((a, b) => b.t - a.t);
  for (const { f } of dated.slice(KEEP_FILES - 1)) {
    try {
      unlinkSync(f);
    } catch {
      // removed by another server
    }
  }
}
