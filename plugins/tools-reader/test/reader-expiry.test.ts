/**
 * Idle expiry of the reader's handles and cursors, on a FakeClock (`ctx.clock`, the session's clock): an id idle for
 * exactly handleIdleMs / cursorIdleMs still answers, one idle a millisecond longer is HANDLE_EXPIRED. No waiting.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../format-jsonl/src/index';
import { jsonOpen } from '../src/tools/json-open';
import { jsonRead } from '../src/tools/json-read';
import { FakeClock } from '../../../src/kernel/fake-clock';
import { DEFAULT_LIMITS } from '../../../src/kernel/config/defaults';
import type { ToolContext, ToolDefinition } from '../../../src/kernel/contracts';
import { McpgwError } from '../../../src/kernel/errors';
import { QueryScanEngine } from '../../../src/engine/scan';
import { Session } from '../../../src/kernel/session/session';
import { fileService, formatsOf } from '../../../test/helpers/formats';
import { jsonpath, pointer } from '../../../test/helpers/query';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-reader-expiry-'));
  fs.writeFileSync(path.join(dir, 'orders.jsonl'), '{"id":1}\n{"id":2}\n{"id":3}\n');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const IDLE = 400;

async function context(clock: FakeClock): Promise<ToolContext> {
  const limits = { ...DEFAULT_LIMITS, handleIdleMs: IDLE, cursorIdleMs: IDLE };
  const languages = new Map([['jsonpath', await jsonpath()], ['pointer', await pointer()]]);
  return {
    registry: { formats: { list: () => [], has: () => false }, queryLanguages: { get: (n: string) => languages.get(n), list: () => [...languages.values()] }, detect: () => null },
    files: fileService(dir, await formatsOf(jsonl), limits),
    session: new Session(clock).scope('reader'),
    limits,
    signal: new AbortController().signal,
    get deadline() { return clock.now() + 30_000; },
    clock,
    progress: () => undefined,
    log: { error() {}, warn() {}, info() {}, debug() {} },
    error: (code, message, details) => new McpgwError(code, message, details),
    root: dir,
    scan: new QueryScanEngine({ limits: () => limits, clock }),
    regex: undefined as never,
  };
}

const run = (tool: ToolDefinition<any, any>, args: Record<string, unknown>, ctx: ToolContext) => Promise.resolve(tool.handler(tool.inputSchema.parse(args), ctx)) as Promise<any>;

test('a handle and a cursor idle for exactly the idle time answer; a millisecond more and both are HANDLE_EXPIRED', async () => {
  const clock = new FakeClock();
  const ctx = await context(clock);
  const { file_id } = await run(jsonOpen, { path: 'orders.jsonl' }, ctx);
  const first = await run(jsonRead, { file_id, language: 'jsonpath', query: '$[*].id', max_items: 1 }, ctx);
  expect(first.items).toEqual([{ path: '/0/id', value: 1 }]);
  expect(first.next_cursor).toMatch(/^jc_/);

  clock.advance(IDLE);
  // Idle exactly IDLE ms: still open (and this read refreshes the handle, not the cursor).
  expect((await run(jsonRead, { file_id, language: 'pointer', query: '/2/id' }, ctx)).items).toEqual([{ path: '/2/id', value: 3 }]);

  clock.advance(IDLE + 1);
  await expect(run(jsonRead, { file_id, language: 'pointer', query: '/0' }, ctx)).rejects.toMatchObject({ code: 'HANDLE_EXPIRED' });
  await expect(run(jsonRead, { cursor: first.next_cursor }, ctx)).rejects.toMatchObject({ code: 'HANDLE_EXPIRED' });
});

test('a cursor used within its idle time continues where the page stopped', async () => {
  const clock = new FakeClock();
  const ctx = await context(clock);
  const first = await run(jsonRead, { path: 'orders.jsonl', language: 'jsonpath', query: '$[*].id', max_items: 2 }, ctx);
  clock.advance(IDLE);
  const rest = await run(jsonRead, { cursor: first.next_cursor }, ctx);
  expect([...first.items, ...rest.items].map((i: { value: number }) => i.value)).toEqual([1, 2, 3]);
});
