/**
 * Hostile values are handled in time linear in their size and with the right reason: a numeral of millions of
 * digits parses exactly (the regular expressions that look for inexact numerals overflowed their backtracking stack
 * on it, which was reported as "nests too deeply"), and a record of many distinct keys is described by get_schema a
 * page of members at a time, in one pass, rather than described five times over.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../format-jsonl/src/index';
import { fileTable } from '../src/files';
import { getSchema } from '../src/tools/sampling';
import { DEFAULT_LIMITS } from '../../../src/kernel/config/defaults';
import type { ToolContext } from '../../../src/kernel/contracts';
import { McpgwError } from '../../../src/kernel/errors';
import { hasInexactNumeral, needsExactParse, parseExact } from '../../../src/engine/records/parse';
import { mayNeedExact, parseRecord } from '../../../src/engine/scan/fast-parse';
import { Session } from '../../../src/kernel/session/session';
import { FakeClock } from '../../../src/kernel/fake-clock';
import { fileService, formatsOf } from '../../../test/helpers/formats';

const site = () => ({ byteOffset: 0, line: 1, column: 1, recordIndex: 0, maxDepth: 2000 });

describe('numerals of millions of digits', () => {
  const digits = '7'.repeat(4_000_000);
  const cases = [`{"x":${digits}}`, `{"x":0.${'0'.repeat(4_000_000)}1}`, `[1${'0'.repeat(4_000_000)}e-3]`];

  test.each(cases.map((c) => [c.slice(0, 12), c]))('%s… parses exactly, its lexeme kept', (_, text) => {
    expect(needsExactParse(text)).toBe(true);
    expect(mayNeedExact(text)).toBe(true);
    for (const v of [parseExact(text, site, 2000), parseRecord(text, 2000, site)]) expect(JSON.stringify(v)).toBe(text);
  });

  test('hasInexactNumeral: exact, numerals inside strings and names do not count', () => {
    expect(hasInexactNumeral('{"a":1,"b":[2.5,-3,1e+300],"c":"12345678901234567891 1.0"}')).toBe(false);
    expect(hasInexactNumeral('{"12345678901234567891":0,"s":"\\"1.0"}')).toBe(false);
    for (const t of ['[1.0]', '[-0]', '[1e3]', '[12345678901234567891]', '{"a":"x","b":0.10000000000000000001}']) expect(hasInexactNumeral(t)).toBe(true);
  });
});

test('get_schema of a record with 30,000 distinct keys: a page of its members (members.next_offset continues), not a 2 MB schema built five times', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-hostile-'));
  try {
    // A clock that stands still: get_schema's time budget never runs out, so the answer does not depend on the load.
    const clock = new FakeClock();
    fs.writeFileSync(path.join(dir, 'wide.jsonl'), JSON.stringify(Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`k${i}`, i]))) + '\n{"a":{"b":1}}\n');
    const opened = await fileService(dir, await formatsOf(jsonl)).open('wide.jsonl');
    const ctx = {
      session: new Session().scope('explore'), limits: DEFAULT_LIMITS, signal: new AbortController().signal, deadline: clock.now() + 60_000, clock,
      progress: () => undefined, log: { error() {}, warn() {}, info() {}, debug() {} }, files: { verify: () => undefined },
      error: (code: any, message: string, details?: any) => new McpgwError(code, message, details),
    } as unknown as ToolContext;
    fileTable(ctx).add({ opened, malformedRecords: 0 });
    const r = (await getSchema.handler({ handle: 'file_1', sample_size: 50, depth: 16 } as any, ctx)) as any;
    expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThanOrEqual(DEFAULT_LIMITS.maxResultBytes);
    const listed = Object.keys(r.schema.properties);
    expect(listed).toEqual(Array.from({ length: listed.length }, (_, i) => `k${i}`));
    expect(r.members).toEqual({ total: 30_001, offset: 0, next_offset: listed.length });
    const last = (await getSchema.handler({ handle: 'file_1', sample_size: 50, depth: 16, offset: 30_000 } as any, ctx)) as any;
    expect(last.schema.properties).toEqual({ a: { type: 'object', properties: { b: { type: 'integer' } }, required: ['b'], 'x-occurrences': 1, 'x-frequency': 0.5 } });
    expect(last.members).toEqual({ total: 30_001, offset: 30_000 });
    opened.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('the right reasons', () => {
  test('invalid UTF-8 is reported at its file offset, line and column, whichever record a scan starts from', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-utf8-'));
    try {
      fs.writeFileSync(path.join(dir, 'bad.jsonl'), Buffer.concat([Buffer.from('{"a":1}\n{"b":"x'), Buffer.from([0xff]), Buffer.from('y"}\n')]));
      const f = await fileService(dir, await formatsOf(jsonl)).open('bad.jsonl');
      const jp = (await import('../../../test/helpers/query')).jsonpath;
      const q = (await jp()).compile('$[*]');
      for (const resume of [undefined, { record: 1, node: 0 }]) {
        const r = await (await import('../../../test/helpers/query')).engine().run({ source: f.source, query: q, addressing: 'file', ...(resume ? { resume } : {}) });
        // `{"a":1}\n` is 8 bytes, `{"b":"x` 7 more: the bad byte is at 15, line 2, column 8.
        expect(r.firstSkipped[0]).toMatchObject({ record_index: 1, code: 'SYNTAX_ERROR', byte_offset: 15, line: 2, message: 'Record 1: invalid UTF-8 at byte 15 (line 2, column 8).' });
      }
      f.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a JSONPath query chaining 20,000 alternatives is RESOURCE_LIMIT_EXCEEDED (queryDepth), not an internal error', async () => {
    const jp = await (await import('../../../test/helpers/query')).jsonpath();
    let err: any;
    try { jp.compile('$[?' + Array.from({ length: 20_000 }, (_, i) => `@.a=="x${i}"`).join('||') + ']'); } catch (e) { err = e; }
    expect(err).toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'queryDepth' } });
  });

  test('a query of 4,000 segments runs without a deep call stack (nothing that deep within maxDepth)', async () => {
    const jp = await (await import('../../../test/helpers/query')).jsonpath();
    let v: unknown = 1;
    for (let i = 0; i < 2000; i++) v = [v];
    expect(jp.compile('$' + '[0]'.repeat(4000)).evaluate(v)).toEqual([]);
    expect(jp.compile('$' + '[0]'.repeat(2000)).evaluate(v)).toEqual([{ path: '/0'.repeat(2000), value: 1 }]);
  });
});

describe('bounded messages', () => {
  test('a message quoting a megabyte is cut to 1 KiB, saying how long it was', async () => {
    const { capMessage, shownInput, McpgwError: E } = await import('../../../src/kernel/errors');
    const long = `Path "${'a'.repeat(1_000_000)}" not found.`;
    const capped = capMessage(long);
    expect(Buffer.byteLength(capped)).toBeLessThanOrEqual(1024);
    expect(capped.endsWith(`… [cut: ${long.length} bytes in all]`)).toBe(true);
    expect(shownInput('x'.repeat(5000))).toBe('x'.repeat(200) + '… (5000 characters)');
    const payload = new E('NOT_FOUND', long, { location: { path: '/' + 'p'.repeat(100_000) } }).toPayload();
    expect(Buffer.byteLength(JSON.stringify(payload))).toBeLessThan(3000);
  });
});
