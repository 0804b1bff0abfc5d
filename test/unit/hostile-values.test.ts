/**
 * Hostile values are handled in time linear in their size and with the right reason: a numeral of millions of
 * digits parses exactly (the regular expressions that look for inexact numerals overflowed their backtracking stack
 * on it, which was reported as "nests too deeply"), and a record of many distinct keys is described by get_schema a
 * page of members at a time, in one pass, rather than described five times over.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import { fileTable } from '../../plugins/tools-explore/src/files';
import { getSchema } from '../../plugins/tools-explore/src/tools/sampling';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import type { ToolContext } from '../../src/kernel/contracts';
import { McpgwError } from '../../src/kernel/errors';
import { hasInexactNumeral, needsExactParse, parseExact } from '../../src/kernel/records/parse';
import { mayNeedExact, parseRecord } from '../../src/kernel/scan/fast-parse';
import { Session } from '../../src/kernel/session/session';
import { fileService, formatsOf } from '../helpers/formats';

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
    fs.writeFileSync(path.join(dir, 'wide.jsonl'), JSON.stringify(Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`k${i}`, i]))) + '\n{"a":{"b":1}}\n');
    const opened = await fileService(dir, await formatsOf(jsonl)).open('wide.jsonl');
    const ctx = {
      session: new Session(), limits: DEFAULT_LIMITS, signal: new AbortController().signal, deadline: Date.now() + 60_000,
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
