/**
 * The reader plugin's pieces with a fake kernel context: the three json_read shapes, reads side by side on one
 * handle (close waiting for all of them), and cursors that carry the engine's position.
 */
import { FakeClock } from '../../../src/kernel/fake-clock';
import { McpgwError } from '../../../src/kernel/errors';
import { Session } from '../../../src/kernel/session/session';
import type { CompiledQuery, Limits, RecordSource, ToolContext } from '../../../src/kernel/contracts';
import { jsonRead, shapeOf } from '../src/tools/json-read';
import { jsonClose } from '../src/tools/json-close';
import { fileTable, release, withRead, type ReaderFile } from '../src/state';

const limits: Limits = {
  maxFileBytes: null, maxRecordBytes: 1 << 20, maxDepth: 2000, maxResultBytes: 65536, maxItems: 1000, maxRecordPreviewBytes: 16384,
  maxOpenFiles: 4, maxCursors: 4, handleIdleMs: 60_000, cursorIdleMs: 60_000, maxConcurrentScans: 4, requestTimeoutMs: 30_000, probeBytes: 1 << 20, probeRecords: 32,
};

interface ScanCall { resume: unknown; limit: number }

const clock = new FakeClock();

/** A context whose engine yields nodes /i/id = i for i < total, recording each call's resume position. */
function fakeContext(total: number, calls: ScanCall[] = [], session = new Session(clock).scope('reader')): ToolContext {
  const languages = new Map([['pointer', { name: 'pointer', compile: (text: string): CompiledQuery => ({ text, evaluate: () => [] }) }]]);
  const ctx = {
    registry: { formats: { list: () => [], has: () => false }, queryLanguages: { get: (n: string) => languages.get(n), list: () => [...languages.values()] }, detect: () => null },
    files: { open: async () => { throw new Error('not used'); }, verify: () => undefined },
    session,
    limits,
    signal: new AbortController().signal,
    deadline: clock.now() + 30_000,
    clock,
    progress: () => undefined,
    log: { error() {}, warn() {}, info() {}, debug() {} },
    error: (code: any, message: string, details?: any) => new McpgwError(code, message, details),
    root: '/',
    scan: { async run(req: { resume?: unknown; limit: number }) {
      calls.push({ resume: req.resume, limit: req.limit });
      const from = (req.resume as { at: number } | undefined)?.at ?? 0;
      const to = Math.min(total, from + req.limit);
      const nodes = Array.from({ length: to - from }, (_, k) => ({ record: from + k, path: `/${from + k}/id`, value: from + k }));
      return { nodes, next: to < total ? { at: to } : null, complete: true, skipped: 0, firstSkipped: [] };
    } },
  };
  return ctx as unknown as ToolContext;
}

function fakeFile(closed: { count: number }): ReaderFile {
  const source = { identity: { size: 1, mtimeMs: 0, ctimeMs: 0, inode: 1, dev: 1 } } as unknown as RecordSource;
  return { opened: { source, path: 'f.jsonl', realPath: '/f.jsonl', detection: { basis: 'content', confidence: 1 }, close: () => void closed.count++ }, implicit: false, reads: 0, idle: null, closed: false, cursors: new Set() };
}

describe('json_read argument shapes', () => {
  const ctx = fakeContext(0);
  test.each([
    [{ cursor: 'jc_1' }, 'cursor'],
    [{ file_id: 'jf_1', language: 'pointer', query: '' }, 'file'],
    [{ file_id: 'jf_1', language: 'pointer', query: '/0', max_items: 3, max_result_bytes: 900 }, 'file'],
    [{ path: 'a.jsonl', format: 'jsonl', language: 'jsonpath', query: '$' }, 'path'],
  ])('%j is the %s shape', (args, kind) => {
    expect(shapeOf(args as any, ctx).kind).toBe(kind);
  });
  test.each([
    [{}, 'needs a cursor, a file_id or a path'],
    [{ cursor: 'jc_1', file_id: 'jf_1' }, 'cursor and file_id together'],
    [{ file_id: 'jf_1', path: 'a', language: 'pointer', query: '' }, 'file_id and path together'],
    [{ cursor: 'jc_1', max_items: 2 }, 'with cursor does not take max_items'],
    [{ file_id: 'jf_1', format: 'jsonl', language: 'pointer', query: '' }, 'with file_id does not take format'],
    [{ path: 'a', query: '/0' }, 'with path needs language'],
    [{ file_id: 'jf_1' }, 'needs language and query'],
  ])('%j is INVALID_ARGUMENT (%s)', (args, message) => {
    let err: any;
    try { shapeOf(args as any, ctx); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(McpgwError);
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toContain(message);
    expect(err.hint).toContain('{cursor}');
  });
});

describe('reads on one handle', () => {
  test('a second read while the first runs is served at once (no source_busy); release waits for both', async () => {
    const ctx = fakeContext(0);
    const closed = { count: 0 };
    const file = fakeFile(closed);
    let finish!: () => void;
    const first = withRead(ctx, 'jf_x', file, () => new Promise<string>((r) => (finish = () => r('first'))));
    expect(await withRead(ctx, 'jf_x', file, async () => 'second')).toBe('second');
    expect(file.reads).toBe(1);
    const releasing = release(ctx, file);
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    expect(closed.count).toBe(0);
    finish();
    expect(await first).toBe('first');
    await releasing;
    expect(closed.count).toBe(1);
    expect(file.reads).toBe(0);
  });

  test('release waits for the read running on the handle before closing the source, even when the read fails', async () => {
    const ctx = fakeContext(0);
    const closed = { count: 0 };
    const file = fakeFile(closed);
    let fail!: () => void;
    const reading = withRead(ctx, 'jf_x', file, () => new Promise<void>((_, reject) => (fail = () => reject(new Error('boom')))));
    const releasing = release(ctx, file);
    // A few turns of the event loop (no time needs to pass): the release is still waiting for the read.
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    expect(closed.count).toBe(0);
    expect(file.closed).toBe(true);
    fail();
    await expect(reading).rejects.toThrow('boom');
    await releasing;
    expect(closed.count).toBe(1);
  });
});

describe('cursors carry the engine position', () => {
  test('each continuation resumes exactly where the previous page stopped (no rescan of the prefix)', async () => {
    const calls: ScanCall[] = [];
    const ctx = fakeContext(25, calls);
    const fileId = fileTable(ctx).add(fakeFile({ count: 0 }));
    const seen: number[] = [];
    let page: any = await jsonRead.handler({ file_id: fileId, language: 'pointer', query: '/x', max_items: 10 }, ctx);
    seen.push(...page.items.map((i: any) => i.value));
    while (page.next_cursor) {
      const cursor = page.next_cursor;
      page = await jsonRead.handler({ cursor }, ctx);
      seen.push(...page.items.map((i: any) => i.value));
      // single use after a successful continuation
      await expect(Promise.resolve().then(() => jsonRead.handler({ cursor }, ctx))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(calls).toEqual([{ resume: undefined, limit: 10 }, { resume: { at: 10 }, limit: 10 }, { resume: { at: 20 }, limit: 10 }]);
  });

  test('json_close invalidates the cursors of its handle and answers closed: false the second time', async () => {
    const ctx = fakeContext(25);
    const fileId = fileTable(ctx).add(fakeFile({ count: 0 }));
    const page: any = await jsonRead.handler({ file_id: fileId, language: 'pointer', query: '/x', max_items: 10 }, ctx);
    expect(await jsonClose.handler({ file_id: fileId }, ctx)).toEqual({ file_id: fileId, closed: true });
    expect(await jsonClose.handler({ file_id: fileId }, ctx)).toEqual({ file_id: fileId, closed: false });
    await expect(Promise.resolve().then(() => jsonRead.handler({ cursor: page.next_cursor }, ctx))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
