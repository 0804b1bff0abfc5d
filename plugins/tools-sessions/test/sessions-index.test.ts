/**
 * The semantic index's incremental update: an unchanged session is not opened, a grown one is opened from where
 * reading stopped (only the appended bytes are read), anything else is read again — with the kernel's real file
 * access (FileAccess.within) and a spy on what is opened.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import jsonl from '../../format-jsonl/src/index';
import json from '../../format-json/src/index';
import { SessionsService } from '../src/service';
import { optionsSchema } from '../src/homes';
import { claudeSource } from '../src/sources/claude';
import { SemanticIndex } from '../src/semantic/service';
import { gloveSifEmbedder } from '../src/semantic/glove';
import { McpgwError } from '../../../src/kernel/errors';
import type { FileAccess, ToolContext } from '../../../src/kernel/contracts';
import { fileService, formatsOf } from '../../../test/helpers/formats';
import { FakeClock } from '../../../src/kernel/fake-clock';

let tmp: string;
let home: string;
let file: string;
let opens: { path: string; from?: number }[];
let ctx: ToolContext;
let service: SessionsService;
/** Deadlines are read on this clock: it moves only when a test says so. */
const clock = new FakeClock();

const line = (i: number, text: string) => JSON.stringify({ type: i % 2 ? 'assistant' : 'user', uuid: `u${i}`, sessionId: 's', cwd: '/w', timestamp: `2025-01-01T00:00:0${i % 10}.000Z`, message: { role: i % 2 ? 'assistant' : 'user', content: i % 2 ? [{ type: 'text', text }] : text } }) + '\n';

beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-sindex-')));
  home = path.join(tmp, 'claude');
  fs.mkdirSync(path.join(home, 'projects', '-w'), { recursive: true });
  file = path.join(home, 'projects', '-w', 's.jsonl');
  fs.writeFileSync(file, line(0, 'The build cache keeps growing on the runner') + line(1, 'I will prune old layers.'));
  const files = fileService(tmp, [...(await formatsOf(jsonl)), ...(await formatsOf(json))]);
  const spy = (inner: FileAccess): FileAccess => ({
    ...inner,
    open: (p, o) => { opens.push({ path: p, ...(o?.from !== undefined ? { from: o.from } : {}) }); return inner.open(p, o); },
    verify: (s, r) => inner.verify(s, r),
  });
  ctx = {
    registry: { formats: { list: () => [], has: () => false }, queryLanguages: { get: () => undefined, list: () => [] }, detect: () => null, extensions: ((point: string) => (point === 'session-source' ? { list: () => [claudeSource], get: () => claudeSource } : { list: () => [], get: () => undefined })) as never },
    files: { ...files, open: files.open.bind(files), verify: files.verify.bind(files), within: (folders: readonly string[]) => spy(files.within(folders)) },
    session: {} as never, limits: {} as never, signal: new AbortController().signal, deadline: clock.now() + 60_000, clock,
    progress: () => undefined, log: { error() {}, warn() {}, info() {}, debug() {} },
    error: (code, message, details) => new McpgwError(code, message, details), root: tmp, scan: {} as never, regex: {} as never,
  } as ToolContext;
  service = new SessionsService(optionsSchema.parse({ cacheDir: path.join(tmp, 'cache') }), { MCPGW_CLAUDE_HOME: home });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function update() {
  opens = [];
  service.forgetCatalog();
  const index = service.semantic(ctx);
  const homes = service.homes(ctx).filter((h) => h.available);
  const sessions = (await service.catalog(ctx, homes)).projects.flatMap((p) => p.sessions);
  ctx = { ...ctx, deadline: clock.now() + 60_000 };
  const report = await index.update(ctx, service, homes, sessions, clock.now() + 60_000);
  return { report, stored: index.store.session(file)!, index };
}

test('first update reads the session whole; an unchanged one is not opened again', async () => {
  const first = await update();
  expect(opens).toEqual([{ path: file }]);
  expect(first.report).toMatchObject({ indexed: 1, updated: 1, pending: 0 });
  expect(first.stored).toMatchObject({ records: 2, entries: 2, complete: true });
  const again = await update();
  expect(opens).toEqual([]);
  expect(again.report).toMatchObject({ indexed: 1, updated: 0 });
});

test('a session that grew is opened from where reading stopped: only the appended bytes are read', async () => {
  const size = fs.statSync(file).size;
  fs.appendFileSync(file, line(2, 'Also the docker layer cache') + line(3, 'Pruned.'));
  const grown = await update();
  expect(opens).toEqual([{ path: file, from: size }]);
  expect(grown.stored).toMatchObject({ records: 4, entries: 4, complete: true });
  const hits = await grown.index.engine.search({ query: 'docker layer', sessions: null, limit: 5, maxDistance: 0, diversity: false }, grown.index.sessionsByRow(new Set([file])));
  expect(hits[0]!.entry).toMatchObject({ idx: 2, uuid: 'u2' });
});

/**
 * Bytes read through `readSync` from descriptors `openSync` opened on `target` while `run` runs (the checksums of
 * the bytes before a resume offset are read so): a read counter, not a clock.
 */
async function bytesReadOf<T>(target: string, run: () => Promise<T>): Promise<{ bytes: number; result: T }> {
  // The module object itself (the indexer's named imports read their functions from it at each call).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const nodeFs: typeof fs = require('node:fs');
  const { openSync: realOpen, closeSync: realClose, readSync: realRead } = nodeFs;
  const fds = new Set<number>();
  let bytes = 0;
  const spies = [
    jest.spyOn(nodeFs, 'openSync').mockImplementation(((...args: Parameters<typeof fs.openSync>) => {
      const fd = realOpen(...args);
      if (path.resolve(String(args[0])) === target) fds.add(fd);
      return fd;
    }) as typeof fs.openSync),
    jest.spyOn(nodeFs, 'closeSync').mockImplementation(((fd: number) => {
      fds.delete(fd);
      realClose(fd);
    }) as typeof fs.closeSync),
    jest.spyOn(nodeFs, 'readSync').mockImplementation(((fd: number, ...rest: unknown[]) => {
      const n = (realRead as (...a: unknown[]) => number)(fd, ...rest);
      if (fds.has(fd)) bytes += n;
      return n;
    }) as typeof fs.readSync),
  ];
  try {
    const result = await run();
    return { bytes, result };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

test('a partial last line is read again from its start once it is complete', async () => {
  const size = fs.statSync(file).size;
  const l = line(4, 'Half written line about flaky tests');
  fs.appendFileSync(file, l.slice(0, 20));
  const partial = await update();
  expect(partial.stored).toMatchObject({ records: 4, entries: 4, complete: true });
  fs.appendFileSync(file, l.slice(20));
  const done = await update();
  expect(opens).toEqual([{ path: file, from: size }]);
  expect(done.stored).toMatchObject({ records: 5, entries: 5 });
});

test('a rewritten session is read again from the start and its old entries dropped', async () => {
  fs.writeFileSync(file, line(0, 'Completely different topic: translations') + line(1, 'Done.'));
  const again = await update();
  expect(opens).toEqual([{ path: file }]);
  expect(again.stored).toMatchObject({ records: 2, entries: 2 });
  const rows = again.index.store.db.prepare('SELECT count(*) AS n FROM entries').get() as { n: number };
  expect(rows.n).toBe(2);
});

test('an update stopped by its deadline reports the sessions left and keeps what it read; the next one finishes', async () => {
  const other = path.join(home, 'projects', '-w', 't.jsonl');
  fs.writeFileSync(other, Array.from({ length: 300 }, (_, i) => line(i, `entry number ${i} about caching`)).join(''));
  service.forgetCatalog();
  const index = service.semantic(ctx);
  const homes = service.homes(ctx).filter((h) => h.available);
  const sessions = (await service.catalog(ctx, homes)).projects.flatMap((p) => p.sessions);
  clock.advance(1_000);
  const late = await index.update(ctx, service, homes, sessions, clock.now() - 1);
  expect(late.pending).toBeGreaterThan(0);
  const done = await index.update(ctx, service, homes, sessions, clock.now() + 60_000);
  expect(done).toMatchObject({ pending: 0, indexed: 2 });
  expect(index.store.session(other)).toMatchObject({ records: 300, entries: 300, complete: true });
});

test('one update builds the index whole: every session complete, one vector row per entry, content words counted', async () => {
  const index = service.semantic(ctx);
  const db = index.store.db;
  const t = index.store.session(path.join(home, 'projects', '-w', 't.jsonl'))!;
  // 'entry number 7 about caching': entry, number, caching ('about' is a stop word, '7' one character)
  const rows = db.prepare('SELECT e.words AS words, v.n AS n, length(v.v) AS bytes FROM entries e JOIN vectors v ON v.entry = e.id WHERE e.session = ?').all(t.id) as { words: number; n: number; bytes: number }[];
  expect(rows.length).toBe(300);
  // 'entry number 17 about caching' has four ('17' two characters): 290 entries of four, 10 of three (0–9)
  const kinds: Record<string, number> = {};
  for (const r of rows) kinds[`${r.words} words, ${r.n} paragraph, ${r.bytes} bytes`] = (kinds[`${r.words} words, ${r.n} paragraph, ${r.bytes} bytes`] ?? 0) + 1;
  expect(kinds).toEqual({ '3 words, 1 paragraph, 104 bytes': 10, '4 words, 1 paragraph, 104 bytes': 290 }); // 100 int8 + a float32 scale
  expect(index.store.sessions().every((s) => s.complete)).toBe(true);
  expect(index.store.vectorCounts()).toEqual({ rows: 302, entries: 302 });
});

test('a session whose reading fails half-way leaves nothing of itself; the next update reads it whole', async () => {
  let calls = 0;
  // an embedder whose second call is cancelled: the first batch of 64 entries is written by then
  const embedder = { ...gloveSifEmbedder, name: 'glove-cancelling', embed: (texts: readonly string[], o?: { signal?: AbortSignal }) => {
    if (++calls === 2) return Promise.reject(Object.assign(new Error('cancelled'), { code: 'CANCELLED' }));
    return gloveSifEmbedder.embed(texts, o);
  } };
  const index = new SemanticIndex(embedder, path.join(tmp, 'cache-cancel'));
  try {
    const homes = service.homes(ctx).filter((h) => h.available);
    const t = path.join(home, 'projects', '-w', 't.jsonl');
    const sessions = (await service.catalog(ctx, homes)).projects.flatMap((p) => p.sessions).filter((s) => s.path === t);
    await expect(index.update(ctx, service, homes, sessions, clock.now() + 60_000)).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(calls).toBe(2);
    expect(index.store.session(t)).toBeUndefined();
    expect(index.store.db.prepare('SELECT count(*) AS n FROM entries').get()).toEqual({ n: 0 });
    expect(index.store.vectorCounts()).toEqual({ rows: 0, entries: 0 });
    const again = await index.update(ctx, service, homes, sessions, clock.now() + 60_000);
    expect(again).toMatchObject({ indexed: 1, updated: 1, pending: 0 });
    expect(index.store.session(t)).toMatchObject({ records: 300, entries: 300, complete: true });
  } finally {
    index.close();
  }
});

describe('refresh: the build outlives the call', () => {
  test('a call whose time is up answers with where the build stands; the build goes on and the next call finds it done', async () => {
    const index = new SemanticIndex(gloveSifEmbedder, path.join(tmp, 'cache-refresh'));
    try {
      const homes = service.homes(ctx).filter((h) => h.available);
      const sessions = (await service.catalog(ctx, homes)).projects.flatMap((p) => p.sessions);
      const controller = new AbortController();
      const notes: number[] = [];
      const first = { ...ctx, signal: controller.signal, progress: (done: number) => { notes.push(done); } };
      const pending = index.refresh(first, service, homes, sessions, clock.now() + 1_000);
      clock.advance(1_000); // the call's time is up before the build has read anything
      const early = await pending;
      expect(early).toMatchObject({ finished: false, done: 0, total: 2, indexed: 0, pending: 2 });
      controller.abort(); // the caller goes away: the build is not its to stop
      const heard = notes.length;
      const later = await index.refresh(ctx, service, homes, sessions, clock.now() + 60_000);
      expect(later).toMatchObject({ finished: true, indexed: 2, pending: 0, failed: [], remainingMs: null });
      expect(notes.length).toBe(heard); // no progress to a call that has returned
      expect(index.store.sessions().every((s) => s.complete)).toBe(true);
      // the next call starts no build of its own: nothing changed, nothing is read
      opens = [];
      expect(await index.refresh(ctx, service, homes, sessions, clock.now() + 60_000)).toMatchObject({ finished: true, indexed: 2, updated: 0 });
      expect(opens).toEqual([]);
    } finally {
      index.close();
    }
  });
});

test('an index file damaged on disk is built again by the next server, whole', async () => {
  const cacheDir = path.join(tmp, 'cache-damaged');
  const build = async (svc: SessionsService) => svc.withSemantic(ctx, async (index) => {
    const homes = svc.homes(ctx).filter((h) => h.available);
    const sessions = (await svc.catalog(ctx, homes)).projects.flatMap((p) => p.sessions);
    const report = await index.update(ctx, svc, homes, sessions, clock.now() + 60_000);
    const hits = await index.engine.search({ query: 'caching entry', sessions: null, limit: 3, maxDistance: 0, diversity: false }, index.sessionsByRow(new Set(sessions.map((s) => s.path))));
    return { report, rebuilt: index.store.rebuilt, hits: hits.length, file: index.store.file };
  });
  const first = new SessionsService(optionsSchema.parse({ cacheDir }), { MCPGW_CLAUDE_HOME: home });
  const built = await build(first);
  expect(built).toMatchObject({ report: { indexed: 2, pending: 0 }, rebuilt: false, hits: 3 });
  first.semantic(ctx).close();
  // every page after the first (the schema's) overwritten: the tables' pages are garbage
  const size = fs.statSync(built.file).size;
  const fd = fs.openSync(built.file, 'r+');
  fs.writeSync(fd, Buffer.alloc(size - 4096, 0xa5), 0, size - 4096, 4096);
  fs.closeSync(fd);
  const next = new SessionsService(optionsSchema.parse({ cacheDir }), { MCPGW_CLAUDE_HOME: home });
  try {
    expect(await build(next)).toMatchObject({ report: { indexed: 2, updated: 2, pending: 0 }, rebuilt: true, hits: 3 });
  } finally {
    next.semantic(ctx).close();
  }
});

test('a grown session\'s old bytes are read once, for their checksum: not again for the new checksum', async () => {
  // A session of its own, large enough that reading its old bytes twice cannot hide in the 4 KiB tails.
  const big = path.join(home, 'projects', '-w', 'g.jsonl');
  fs.writeFileSync(big, Array.from({ length: 400 }, (_, i) => line(i, `row ${i} of the migration log, ${'x'.repeat(200)}`)).join(''));
  await update();
  const size = fs.statSync(big).size;
  const added = line(5, 'One more question about the cache.');
  fs.appendFileSync(big, added);
  const { bytes, result: grown } = await bytesReadOf(big, update);
  expect(opens).toEqual([{ path: big, from: size }]);
  const stored = grown.index.store.session(big)!;
  expect(stored).toMatchObject({ records: 401, entries: 401, complete: true });
  expect(stored.files[0]!.prefixCrc).toBe(crc32(fs.readFileSync(big)));
  // The listing's look at the changed file's head (64 KiB), the old bytes once (the growth check), the new ones, and
  // 4 KiB tails before the old and new resume offsets — not the old bytes a second time for the new checksum.
  expect(size).toBeGreaterThan(100_000);
  expect(bytes).toBeGreaterThanOrEqual(size);
  expect(bytes).toBeLessThanOrEqual(64 * 1024 + size + 2 * added.length + 4 * 4096);
});
