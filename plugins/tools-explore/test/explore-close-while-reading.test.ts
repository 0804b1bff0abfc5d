/**
 * A handle closed while another call reads through it (callers of one 2026-era token share the explorer's
 * handles): the running call answers from its own file, whole; the file's descriptor is closed only after it, so a
 * file opened meanwhile (which may take the freed descriptor number) is never read in its place.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected, type Era } from '../../../test/helpers/mcp';

const RECORDS = 30_000;
/** 1 KiB records; `a.jsonl` holds "plain" where `b.jsonl` holds "SECRET" at the same offsets. */
const make = (word: string) =>
  Array.from({ length: RECORDS }, (_, i) => `{"i":${String(i).padStart(6, '0')},"w":"${word}","pad":"${'p'.repeat(990)}"}`).join('\n') + '\n';

// The two files are written once for both eras (neither server changes them).
let base: string;
beforeAll(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-close-read-'));
  fs.mkdirSync(path.join(base, 'data'));
  fs.writeFileSync(path.join(base, 'data', 'a.jsonl'), make('plain'));
  fs.writeFileSync(path.join(base, 'data', 'b.jsonl'), make('SECRET'));
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe.each<Era>(['legacy', 'modern'])('close_file while a search reads the handle, %s era', (era) => {
  let c: Connected;
  beforeAll(async () => {
    c = await connect(['--root', path.join(base, 'data')], { era });
  });
  afterAll(async () => {
    await c?.close();
  });

  test('the search answers whole from a.jsonl (no match of b.jsonl, no error); the handle is gone after', async () => {
    const a = await call(c.client, 'open_file', { path: 'a.jsonl' });
    const handle = a.data.handle;
    // Counting matches reads the whole file (30 MB in 4 MiB reads).
    const searching = call(c.client, 'search', { handle, query: '(?i)s[a-z]{0,3}cret', regex: true, max_results: 0 });
    // Requests are taken in order: once this answers, the search has started.
    expect((await call(c.client, 'get_record_count', { handle })).data).toEqual({ record_count: RECORDS });
    expect((await call(c.client, 'close_file', { handle })).data).toEqual({ closed: true });
    // Files opened meanwhile take the lowest free descriptor numbers.
    const others = [];
    for (let k = 0; k < 3; k++) others.push((await call(c.client, 'open_file', { path: 'b.jsonl' })).data.handle);
    const result = await searching;
    expect(result.data.error).toBeUndefined();
    expect(result.data.total_matches).toBe(0);
    expect((await call(c.client, 'get_record_count', { handle })).data.error.code).toBe('NOT_FOUND');
    for (const h of others) await call(c.client, 'close_file', { handle: h });
  }, 60_000);
});
