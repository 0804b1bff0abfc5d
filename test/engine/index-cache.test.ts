/**
 * The persistent index cache: an index read back answers exactly as a fresh pass; any change of the file's identity
 * (touch, append, rewrite, replace, truncate) is noticed; a damaged entry is discarded, logged and rebuilt; the
 * folder stays under its bound, least recently used first; concurrent writers leave one whole entry.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import jsonseq from '../../plugins/format-jsonseq/src/index';
import json from '../../plugins/format-json/src/index';
import { formatsOf } from '../helpers/formats';
import { recordsToolkit } from '../../src/engine/records';
import { Float64OffsetIndex } from '../../src/engine/records/offset-index';
import { LineIndexer } from '../../plugins/format-jsonl/src/index-lines';
import { SequenceIndexer } from '../../plugins/format-jsonseq/src/sequence';
import { CLI, NODE } from '../helpers/mcp';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { FileService } from '../../src/kernel/files/file-service';
import { Sandbox } from '../../src/kernel/files/sandbox';
import { systemClock } from '../../src/kernel/clock';
import { IndexCache } from '../../src/engine/cache/index-cache';
import { EngineIndexer } from '../../src/engine/files/indexer';
import { ENTRY_VERSION, readEntry as readEntryWith } from '../../src/engine/cache/entry';
import { openRegularFile } from '../../src/kernel/files/regular-file';
import { defaultCacheDir, resolveConfig } from '../../src/kernel/config/resolve';
import { configSchema } from '../../src/kernel/config/schema';
import type { Format, RecordSource } from '../../src/kernel/contracts/format';
import type { Logger } from '../../src/kernel/contracts/plugin';

/** A stored entry read whole, opened as the cache opens it (the kernel's safe open). */
const readEntry = (p: string) => readEntryWith(p, openRegularFile);

let tmp: string;
let root: string;
let cacheDir: string;
let formats: Format[];
/** How each open of the spied formats went: `restored` (from the cache) or `indexed` (a pass over the file). */
let opens: string[];
let warnings: string[];

const log: Logger = { error: () => {}, warn: (m) => warnings.push(m), info: () => {}, debug: () => {} };

beforeAll(async () => {
  // an open that reads the file through the records toolkit's chunks made a pass; one that did not, restored
  const chunks = jest.spyOn(recordsToolkit, 'chunks');
  const indexJson = jest.spyOn(recordsToolkit, 'indexJson');
  const passes = () => chunks.mock.calls.length + indexJson.mock.calls.length;
  formats = [...(await formatsOf(jsonl)), ...(await formatsOf(jsonseq)), ...(await formatsOf(json))].map((f) => ({
    ...f,
    open: async (file, options) => {
      const before = passes();
      const source = await f.open(file, options);
      opens.push(passes() > before ? 'indexed' : 'restored');
      return source;
    },
  }));
});

test('the formats\' indexer states round-trip, from any byte offset (a view into an entry)', () => {
  const lines = new LineIndexer(new Float64OffsetIndex());
  lines.feed(0, Buffer.from('{"a":1}\n\n{"b":'));
  const at = Buffer.concat([Buffer.alloc(3), Buffer.from(lines.saveState())]).subarray(3);
  const back = LineIndexer.restore(new Float64OffsetIndex(), at)!;
  expect(back).not.toBeNull();
  expect({ ...back }).toEqual({ ...lines, index: back.index });
  expect(LineIndexer.restore(new Float64OffsetIndex(), new Uint8Array(40))).toBeNull();
  const seq = new SequenceIndexer(new Float64OffsetIndex());
  seq.feed(0, Buffer.from('\x1e{"a":1}\n\x1e'));
  const seqBack = SequenceIndexer.restore(new Float64OffsetIndex(), Buffer.concat([Buffer.alloc(5), Buffer.from(seq.saveState())]).subarray(5))!;
  expect({ ...seqBack }).toEqual({ ...seq, index: seqBack.index });
  expect(SequenceIndexer.restore(new Float64OffsetIndex(), lines.saveState())).toBeNull();
});

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-index-cache-'));
  root = path.join(tmp, 'root');
  cacheDir = path.join(tmp, 'cache');
  fs.mkdirSync(root);
  opens = [];
  warnings = [];
});

afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function cache(options: Partial<ConstructorParameters<typeof IndexCache>[0]> = {}): IndexCache {
  return new IndexCache({ dir: cacheDir, maxBytes: 1 << 30, salt: 'test@1', openFile: openRegularFile, log, minFileBytes: 0, ...options });
}

function service(c: IndexCache | null): FileService {
  return new FileService(new Sandbox(root), () => formats, { ...DEFAULT_LIMITS }, systemClock, new EngineIndexer(c));
}

/** JSON Lines text of `n` records (blank lines and a CRLF among them, so offsets and lines differ); made once per (n, tag). */
const made = new Map<string, string>();
function jsonLines(n: number, tag = 'a'): string {
  const key = `${n}:${tag}`;
  let text = made.get(key);
  if (text === undefined) made.set(key, (text = makeLines(n, tag)));
  return text;
}

function makeLines(n: number, tag: string): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    lines.push(JSON.stringify({ i, tag, pad: 'x'.repeat(i % 37) }) + (i % 97 === 5 ? '\r' : ''));
    if (i % 250 === 3) lines.push('');
  }
  return lines.join('\n') + '\n';
}

/** Everything a reader sees of a source: count, and each record's location and text. */
function answers(source: RecordSource): unknown[] {
  const out: unknown[] = [source.format, source.count];
  for (let i = 0; i < source.count; i++) out.push([source.location(i), source.text(i)]);
  return out;
}

/** What a fresh pass (no cache) answers for `name`. */
async function fresh(name: string): Promise<unknown[]> {
  const opened = await service(null).open(name);
  try { return answers(opened.source); } finally { opened.close(); }
}

async function openAnswers(c: IndexCache, name: string): Promise<unknown[]> {
  const opened = await service(c).open(name);
  try { return answers(opened.source); } finally { opened.close(); }
}

const entryOf = (file: string) => {
  const st = fs.statSync(file);
  return path.join(cacheDir, `${st.dev.toString(16)}-${st.ino.toString(16)}.idx`);
};

test('an index read back answers exactly as a fresh pass (records, lines past checkpoints, offsets), without reading the file', async () => {
  const file = path.join(root, 'a.jsonl');
  fs.writeFileSync(file, jsonLines(3000));
  const c = cache();
  const first = await openAnswers(c, 'a.jsonl');
  expect(opens).toEqual(['indexed']);
  expect(fs.existsSync(entryOf(file))).toBe(true);
  const entry = readEntry(entryOf(file));
  expect(entry.offsets.length).toBe(3000);
  expect(entry.format).toBe('jsonl');
  const second = await openAnswers(c, 'a.jsonl');
  expect(opens).toEqual(['indexed', 'restored']);
  expect(second).toEqual(first);
  expect(second).toEqual(await fresh('a.jsonl'));
  // a new cache object (a new server process) over the same folder reads it too
  const third = await openAnswers(cache(), 'a.jsonl');
  expect(opens.slice(-1)).toEqual(['restored']);
  expect(third).toEqual(first);
});

test('JSON-seq indexes are stored and read back too', async () => {
  fs.writeFileSync(path.join(root, 's.json-seq'), Array.from({ length: 1500 }, (_, i) => `\x1e{"i":${i}}\n`).join('') + '\x1e12');
  const c = cache();
  const first = await openAnswers(c, 's.json-seq');
  const second = await openAnswers(c, 's.json-seq');
  expect(opens).toEqual(['indexed', 'restored']);
  expect(second).toEqual(first);
  expect(first[1]).toBe(1501);
});

test('a top-level JSON array\'s index is stored and read back; an object or a scalar document is never stored', async () => {
  const elements = Array.from({ length: 2500 }, (_, i) => ({ i, tag: 'arr', nested: { list: [i, i + 1] } }));
  fs.writeFileSync(path.join(root, 'arr.json'), JSON.stringify(elements, null, 2));
  const c = cache();
  const first = await openAnswers(c, 'arr.json');
  const second = await openAnswers(c, 'arr.json');
  expect(opens).toEqual(['indexed', 'restored']);
  expect(second).toEqual(first);
  expect(second).toEqual(await fresh('arr.json'));
  expect(first[1]).toBe(2500);
  // lazy nodes inside a restored array's records still work
  const opened = await service(c).open('arr.json');
  try { expect(opened.source.node!(1234, '/nested/list/1')!.value()).toBe(1235); } finally { opened.close(); }
  // an array that grew (a JSON text cannot be extended) is indexed again, right
  fs.writeFileSync(path.join(root, 'arr.json'), JSON.stringify([...elements, { i: 'extra' }], null, 2));
  opens = [];
  const grown = await openAnswers(c, 'arr.json');
  expect(opens).toEqual(['indexed']);
  expect(grown).toEqual(await fresh('arr.json'));
  // one document: never stored
  fs.writeFileSync(path.join(root, 'doc.json'), JSON.stringify({ features: elements }));
  await openAnswers(c, 'doc.json');
  expect(fs.existsSync(entryOf(path.join(root, 'doc.json')))).toBe(false);
  opens = [];
  await openAnswers(c, 'doc.json');
  expect(opens).toEqual(['indexed']);
});

describe('identity changes', () => {
  const name = 'f.jsonl';
  /** Records of the file: past one line checkpoint (1,024 records). */
  const RECORDS = 1200;
  const file = () => path.join(root, name);
  let c: IndexCache;
  beforeEach(async () => {
    fs.writeFileSync(file(), jsonLines(RECORDS));
    c = cache();
    await openAnswers(c, name);
    opens = [];
  });

  test('touch (same bytes, new mtime): indexed again', async () => {
    const later = new Date(fs.statSync(file()).mtimeMs + 5000);
    fs.utimesSync(file(), later, later);
    expect(await openAnswers(c, name)).toEqual(await fresh(name));
    expect(opens[0]).toBe('indexed');
    // and stored again: the next open reads it back
    opens = [];
    await openAnswers(c, name);
    expect(opens).toEqual(['restored']);
  });

  test('append: the stored index is extended over the new records, then stored as extended', async () => {
    fs.appendFileSync(file(), '{"appended":1}\n\n{"appended":2}');
    const got = await openAnswers(c, name);
    expect(opens[0]).toBe('restored');
    expect(got).toEqual(await fresh(name));
    expect(got[1]).toBe(RECORDS + 2);
    opens = [];
    await openAnswers(c, name);
    expect(opens).toEqual(['restored']);
    expect(readEntry(entryOf(file())).offsets.length).toBe(RECORDS + 2);
  });

  test('a file that grew while open: its extended index is stored when it is closed', async () => {
    const opened = await service(c).open(name);
    fs.appendFileSync(file(), '{"late":1}\n{"late":2}\n');
    service(c).verify(opened.source, opened.realPath); // the tools' identity check: the index grows with the file
    expect(opened.source.count).toBe(RECORDS + 2);
    opened.close();
    expect(readEntry(entryOf(file())).offsets.length).toBe(RECORDS + 2);
    opens = [];
    expect(await openAnswers(c, name)).toEqual(await fresh(name));
    expect(opens[0]).toBe('restored');
  });

  test('append to a last line without its newline: the record goes on', async () => {
    fs.writeFileSync(file(), jsonLines(1100) + '{"open":"li');
    await openAnswers(c, name);
    fs.appendFileSync(file(), 'ne"}\n{"next":true}\n');
    opens = [];
    const got = await openAnswers(c, name);
    expect(opens[0]).toBe('restored');
    expect(got).toEqual(await fresh(name));
    expect((got[got.length - 2] as unknown[])[1]).toBe('{"open":"line"}');
  });

  test('rewrite to the same size, even with the old mtime put back: the checksums of the first and last blocks tell', async () => {
    // an mtime that utimes can put back exactly (whole seconds), stored with the index
    const mtime = Math.floor(fs.statSync(file()).mtimeMs / 1000) - 60;
    fs.utimesSync(file(), mtime, mtime);
    await openAnswers(c, name);
    for (const where of ['head', 'tail'] as const) {
      const text = fs.readFileSync(file(), 'utf8');
      const changed = where === 'head' ? text.replace('"tag":"a"', '"tag":"b"') : text.slice(0, -40) + text.slice(-40).replace('x', 'y');
      expect(changed.length).toBe(text.length);
      expect(changed).not.toBe(text);
      fs.writeFileSync(file(), changed);
      fs.utimesSync(file(), mtime, mtime);
      expect(fs.statSync(file()).mtimeMs).toBe(mtime * 1000);
      opens = [];
      expect(await openAnswers(c, name)).toEqual(await fresh(name));
      expect(opens[0]).toBe('indexed');
    }
  });

  test('rewrite with other line breaks at the same size: indexed again, new record boundaries', async () => {
    const text = fs.readFileSync(file(), 'utf8');
    // same bytes count, different framing: two records joined into one line (a newline becomes a space)
    const k = text.indexOf('}\n{', 5000) + 1;
    fs.writeFileSync(file(), text.slice(0, k) + ' ' + text.slice(k + 1));
    const got = await openAnswers(c, name);
    expect(got).toEqual(await fresh(name));
    expect(got[1]).toBe(RECORDS - 1);
    expect(opens[0]).toBe('indexed');
  });

  test('replaced by rename (another inode): indexed again', async () => {
    const next = path.join(root, 'next.tmp');
    fs.writeFileSync(next, jsonLines(1100, 'renamed'));
    fs.renameSync(next, file());
    const got = await openAnswers(c, name);
    expect(opens[0]).toBe('indexed');
    expect(got).toEqual(await fresh(name));
    expect(got[1]).toBe(1100);
  });

  test('truncated: indexed again', async () => {
    const size = fs.statSync(file()).size;
    fs.truncateSync(file(), Math.floor(size / 2));
    const got = await openAnswers(c, name);
    expect(opens[0]).toBe('indexed');
    expect(got).toEqual(await fresh(name));
  });

  test('truncated, then grown back past its old size with other bytes: the tail checksum tells', async () => {
    const text = fs.readFileSync(file(), 'utf8');
    fs.writeFileSync(file(), text.slice(0, text.length - 200) + '\n' + jsonLines(20, 'other'));
    const got = await openAnswers(c, name);
    expect(opens[0]).toBe('indexed');
    expect(got).toEqual(await fresh(name));
  });

  test('an explicit format other than the stored one is indexed as asked', async () => {
    const opened = await service(c).open(name, { format: 'json-seq' });
    try {
      expect(opened.source.format).toBe('json-seq');
      expect(opens).toEqual(['indexed']);
    } finally { opened.close(); }
    // an index stored for an explicit format is never used for an open that detects
    opens = [];
    const auto = await service(c).open(name);
    try { expect(auto.source.format).toBe('jsonl'); } finally { auto.close(); }
    expect(opens).toEqual(['indexed']);
  });
});

describe('damage', () => {
  const name = 'd.jsonl';
  /** Records of the file: their offsets (8 bytes each) are the entry's last 9,600 bytes. */
  const RECORDS = 1200;
  let entry: string;
  let expected: unknown[];
  beforeEach(async () => {
    fs.writeFileSync(path.join(root, name), jsonLines(RECORDS));
    await openAnswers(cache(), name);
    entry = entryOf(path.join(root, name));
    expected = await fresh(name);
    opens = [];
  });

  const damages: [string, (bytes: Buffer) => Buffer, RegExp][] = [
    ['truncated', (b) => b.subarray(0, b.length - 100), /lengths do not add up|says \d+ bytes/],
    ['cut to a few bytes', (b) => b.subarray(0, 20), /shorter than any entry/],
    ['a flipped byte among the offsets', (b) => { const c = Buffer.from(b); c[c.length - 5000]! ^= 0x10; return c; }, /checksum/],
    ['a flipped byte in the header', (b) => { const c = Buffer.from(b); c[44]! ^= 0x01; return c; }, /checksum/],
    ['another layout version', (b) => { const c = Buffer.from(b); c.writeUInt32LE(ENTRY_VERSION + 1, 8); return c; }, /layout version/],
    ['bad magic', (b) => { const c = Buffer.from(b); c[0] = 0x58; return c; }, /magic/],
    ['bytes appended', (b) => Buffer.concat([b, Buffer.alloc(16)]), /says \d+ bytes/],
  ];

  test.each(damages)('%s: discarded with a warning, the file indexed again, right answers, a sound entry written', async (_what, damage, reason) => {
    fs.writeFileSync(entry, damage(fs.readFileSync(entry)));
    const got = await openAnswers(cache(), name);
    expect(got).toEqual(expected);
    expect(opens).toEqual(['indexed']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/discarded a damaged entry/);
    expect(warnings[0]).toMatch(reason);
    expect(readEntry(entry).offsets.length).toBe(RECORDS);
    opens = [];
    expect(await openAnswers(cache(), name)).toEqual(expected);
    expect(opens).toEqual(['restored']);
  });

  test('an entry written by another version of the code (another salt) is not used, and replaced', async () => {
    const got = await openAnswers(cache({ salt: 'test@2' }), name);
    expect(got).toEqual(expected);
    expect(opens).toEqual(['indexed']);
    expect(warnings).toEqual([]);
    expect(readEntry(entry).salt).toBe('test@2');
  });

  test('a folder the cache cannot write to: opens still work, nothing stored', async () => {
    fs.writeFileSync(path.join(tmp, 'blocked'), 'a file, not a folder');
    const c = cache({ dir: path.join(tmp, 'blocked', 'index') });
    expect(await openAnswers(c, name)).toEqual(expected);
    expect(await openAnswers(c, name)).toEqual(expected);
    expect(opens).toEqual(['indexed', 'indexed']);
  });
});

test('LRU: past maxBytes the least recently used entries are removed, a hit counting as a use', async () => {
  let now = 1_000_000_000_000;
  const names = ['a', 'b', 'c', 'd'].map((n) => `${n}.jsonl`);
  for (const n of names) fs.writeFileSync(path.join(root, n), jsonLines(1000, n));
  const probe = cache();
  await openAnswers(probe, names[0]!);
  const one = fs.statSync(entryOf(path.join(root, names[0]!))).size;
  fs.rmSync(cacheDir, { recursive: true });
  // room for three entries
  const c = cache({ maxBytes: 3 * one + 100, now: () => now });
  for (const n of names.slice(0, 3)) { now += 1000; await openAnswers(c, n); }
  // a is used again: b is now the least recently used
  now += 1000;
  opens = [];
  await openAnswers(c, names[0]!);
  expect(opens).toEqual(['restored']);
  now += 1000;
  await openAnswers(c, names[3]!);
  const kept = (n: string) => fs.existsSync(entryOf(path.join(root, n)));
  expect(names.map(kept)).toEqual([true, false, true, true]);
  const total = fs.readdirSync(cacheDir).reduce((s, f) => s + fs.statSync(path.join(cacheDir, f)).size, 0);
  expect(total).toBeLessThanOrEqual(3 * one + 100);
});

test('an index larger than the whole bound is not stored; files under minFileBytes are not stored', async () => {
  fs.writeFileSync(path.join(root, 'big.jsonl'), jsonLines(1000));
  await openAnswers(cache({ maxBytes: 1000 }), 'big.jsonl');
  await openAnswers(cache({ minFileBytes: 1 << 20 }), 'big.jsonl');
  expect(fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : []).toEqual([]);
});

test('two processes indexing the same file at once both answer right and leave one sound entry, no temporary file', async () => {
  const dir = path.join(tmp, 'proc');
  fs.mkdirSync(dir);
  // over the 1 MiB below which files are never stored
  const lines = Array.from({ length: 30_000 }, (_, i) => JSON.stringify({ i, v: 'y'.repeat(i % 50) }));
  fs.writeFileSync(path.join(dir, 'big.jsonl'), lines.join('\n') + '\n');
  fs.writeFileSync(path.join(dir, '.mcpgwrc.json'), JSON.stringify({ cacheDir: 'cache' }));
  const run = (query: string) => new Promise<{ code: number | null; out: string }>((resolve) => {
    const p = spawn(NODE, [CLI, 'query', 'big.jsonl', query], { cwd: dir, env: { PATH: process.env.PATH ?? '', XDG_CACHE_HOME: path.join(tmp, 'xdg') } });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('close', (code) => resolve({ code, out }));
  });
  const [a, b, c2] = await Promise.all([run('/29999/i'), run('/12345/v'), run('/0/i')]);
  expect([a.code, b.code, c2.code]).toEqual([0, 0, 0]);
  const value = (out: string) => JSON.parse(out.trim()).value;
  expect(value(a.out)).toBe(29999);
  expect(value(b.out)).toBe('y'.repeat(12345 % 50));
  expect(value(c2.out)).toBe(0);
  const files = fs.readdirSync(path.join(dir, 'cache'));
  expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
  expect(files.filter((f) => f.endsWith('.idx'))).toHaveLength(1);
  expect(readEntry(path.join(dir, 'cache', files.find((f) => f.endsWith('.idx'))!)).offsets.length).toBe(30_000);
  // a third process reads the entry back and answers the same
  const again = await run('/29999/i');
  expect(value(again.out)).toBe(29999);
  expect(fs.existsSync(path.join(tmp, 'xdg'))).toBe(false);
});

describe('config', () => {
  const resolve = (config: object, env: NodeJS.ProcessEnv = {}) => resolveConfig({ config: configSchema.parse(config), dir: '/cfg' }, {}, env, '/cwd');

  test('on by default under $XDG_CACHE_HOME/mcpgw/index, else ~/.cache/mcpgw/index; 1 GiB', () => {
    expect(resolve({ root: 'r' }, { XDG_CACHE_HOME: '/x/cache' }).cache).toEqual({ dir: '/x/cache/mcpgw/index', maxBytes: 1024 * 1024 * 1024 });
    expect(defaultCacheDir({})).toBe(path.join(os.homedir(), '.cache', 'mcpgw', 'index'));
    // a relative XDG_CACHE_HOME is ignored (XDG Base Directory: such paths are invalid)
    expect(defaultCacheDir({ XDG_CACHE_HOME: 'rel' })).toBe(path.join(os.homedir(), '.cache', 'mcpgw', 'index'));
  });

  test('cacheDir relative to the config file, cacheMaxBytes; cache: false turns it off', () => {
    expect(resolve({ root: 'r', cacheDir: 'idx', cacheMaxBytes: 4096 }).cache).toEqual({ dir: '/cfg/idx', maxBytes: 4096 });
    expect(resolve({ root: 'r', cache: false, cacheDir: 'idx' }).cache).toBeNull();
  });

  test('bad values are refused', () => {
    expect(configSchema.safeParse({ cache: 'no' }).success).toBe(false);
    expect(configSchema.safeParse({ cacheMaxBytes: 0 }).success).toBe(false);
    expect(configSchema.safeParse({ cacheDir: '' }).success).toBe(false);
  });

  test('this test run writes caches only under a temporary folder', () => {
    expect(process.env.XDG_CACHE_HOME?.startsWith(os.tmpdir())).toBe(true);
  });
});

describe('a big entry read a block at a time', () => {
  // 3 blocks of offsets (65,536 records each, the last shorter); read lazily from any entry of more than 0 blocks
  const name = 'big.jsonl';
  const N = 2 * 65536 + 1234;
  const lazyCache = () => cache({ lazyFromBlocks: 0 });
  /** A sample of what a reader sees: records on both sides of every block boundary, and their lines. */
  const probe = (source: RecordSource) => [0, 1, 65535, 65536, 65537, 131071, 131072, N - 1].map((i) => [i, source.location(i), source.text(i)]);
  let expected: unknown[];
  beforeEach(async () => {
    fs.writeFileSync(path.join(root, name), jsonLines(N));
    const opened = await service(null).open(name);
    try { expected = probe(opened.source); } finally { opened.close(); }
    const first = await service(lazyCache()).open(name); // indexed, and stored
    first.close();
    opens = [];
  });

  test('an open reads only the entry\'s head; each block is read (and checked) when first used', async () => {
    const opened = await service(lazyCache()).open(name);
    try {
      expect(opens).toEqual(['restored']);
      expect(opened.source.count).toBe(N);
      const index = (opened.source as unknown as { spec: { index: Float64OffsetIndex } }).spec.index;
      expect(index.unreadBlocks).toBe(3);
      expect(opened.source.text(65537)).toBe(JSON.stringify({ i: 65537, tag: 'a', pad: 'x'.repeat(65537 % 37) }));
      expect(index.unreadBlocks).toBe(2);
      expect(probe(opened.source)).toEqual(expected);
      expect(index.unreadBlocks).toBe(0);
    } finally {
      opened.close();
    }
    expect(warnings).toEqual([]);
  });

  test('a damaged block found at first use: that read is IO_ERROR, the entry is removed with a warning, the next open indexes anew and answers right', async () => {
    const entry = entryOf(path.join(root, name));
    const bytes = fs.readFileSync(entry);
    // a flipped byte in the last block's offsets (the last 1234 × 8 bytes of the entry)
    bytes[bytes.length - 8 * 100 + 3]! ^= 0x20;
    fs.writeFileSync(entry, bytes);
    const opened = await service(lazyCache()).open(name);
    try {
      expect(opens).toEqual(['restored']);
      expect(opened.source.text(5)).toBe(JSON.stringify({ i: 5, tag: 'a', pad: 'x'.repeat(5) })); // block 0 is sound
      let error: { code?: string; message?: string } = {};
      try { opened.source.text(N - 1); } catch (err) { error = err as typeof error; }
      expect(error.code).toBe('IO_ERROR');
      expect(error.message).toMatch(/stored index .* cannot be read \(offset block 2: its checksum does not match\).*open the file again/);
    } finally {
      opened.close();
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/discarded a damaged entry \(offset block 2: its checksum does not match\); the next open indexes the file again/);
    expect(fs.existsSync(entry)).toBe(false);
    opens = [];
    const again = await service(lazyCache()).open(name);
    try {
      expect(opens).toEqual(['indexed']);
      expect(probe(again.source)).toEqual(expected);
    } finally {
      again.close();
    }
    expect(readEntry(entry).offsets.length).toBe(N); // a sound entry written again
  });

  test.each([
    ['a block\'s first offset changed (its checksum fixed)', 1],
    ['its last offset past the next block\'s first (the checksum fixed)', 2],
  ])('%s: the block is damaged all the same', async (_what, kind) => {
    const entry = entryOf(path.join(root, name));
    const bytes = fs.readFileSync(entry);
    const blocksAt = bytes.length - 8 * N;
    const block1 = new Float64Array(bytes.buffer.slice(bytes.byteOffset + blocksAt + 8 * 65536, bytes.byteOffset + blocksAt + 8 * 131072));
    if (kind === 1) block1[0] = block1[0]! + 1;
    else block1[65535] = block1[65535]! + 1e6;
    Buffer.from(block1.buffer).copy(bytes, blocksAt + 8 * 65536);
    // the table row of block 1 (16 bytes before the head's trailer start, counted back from the offsets)
    const trailerAt = blocksAt - 8;
    const row1 = trailerAt - 16 * 3 + 16;
    const { crc32 } = await import('node:zlib');
    bytes.writeUInt32LE(crc32(Buffer.from(block1.buffer)) >>> 0, row1 + 8);
    bytes.writeUInt32LE(crc32(bytes.subarray(0, trailerAt)) >>> 0, trailerAt); // and the head's own checksum
    fs.writeFileSync(entry, bytes);
    const opened = await service(lazyCache()).open(name);
    try {
      let error: { code?: string; message?: string } = {};
      try { opened.source.text(70000); } catch (err) { error = err as typeof error; }
      expect(error.code).toBe('IO_ERROR');
      expect(error.message).toMatch(kind === 1 ? /offset block 1: its first offset is not the table's/ : /offset block 1: its offsets do not fit its end/);
    } finally {
      opened.close();
    }
    expect(fs.existsSync(entry)).toBe(false);
  });

  test('a small entry is read whole at open: a damaged block there is a miss, and the file is indexed again', async () => {
    const entry = entryOf(path.join(root, name));
    const bytes = fs.readFileSync(entry);
    bytes[bytes.length - 8 * 100 + 3]! ^= 0x20;
    fs.writeFileSync(entry, bytes);
    const opened = await service(cache()).open(name); // the default: 3 blocks are read at open
    try {
      expect(opens).toEqual(['indexed']);
      expect(probe(opened.source)).toEqual(expected);
    } finally {
      opened.close();
    }
    expect(warnings).toEqual([expect.stringMatching(/discarded a damaged entry \(offset block 2: its checksum does not match\); the file is indexed again/)]);
  });
});
