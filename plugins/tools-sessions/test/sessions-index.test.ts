/**
 * The semantic index's incremental update: an unchanged session is not opened, a grown one is opened from where
 * reading stopped (only the appended bytes are read), anything else is read again — with the kernel's real file
 * access (FileAccess.within) and a spy on what is opened.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../format-jsonl/src/index';
import json from '../../format-json/src/index';
import { SessionsService } from '../src/service';
import { optionsSchema } from '../src/homes';
import { claudeSource } from '../src/sources/claude';
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
