import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../src/index';
import { detectJsonLines } from '../src/detect';
import type { Format } from '../../../src/kernel/contracts';
import { McpgwError } from '../../../src/kernel/errors';
import { fileService, formatsOf, values } from '../../../test/helpers/formats';

let dir: string;
let formats: Format[];
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-jsonl-'));
  formats = await formatsOf(jsonl);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string | Buffer): string {
  fs.writeFileSync(path.join(dir, name), content);
  return name;
}

async function open(name: string, limits = {}) {
  return fileService(dir, formats, limits).open(name);
}

describe('format-jsonl framing', () => {
  test('registers format jsonl for .jsonl and .ndjson', () => {
    expect(formats.map((f) => [f.name, f.extensions])).toEqual([['jsonl', ['.jsonl', '.ndjson']]]);
  });

  test('BOM, CRLF, blank and whitespace-only lines: three records, no CR or BOM in values', async () => {
    const name = write('framing.jsonl', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"t":"a","n":1}\r\n\r\n \t\r\n{"t":"b","n":2}\r\n{"t":"c","n":3}\r\n')]));
    const { source, close } = await open(name);
    expect(source.count).toBe(3);
    expect(values(source)).toEqual([{ t: 'a', n: 1 }, { t: 'b', n: 2 }, { t: 'c', n: 3 }]);
    expect(source.raw(0).toString()).toBe('{"t":"a","n":1}');
    expect(source.location(1)).toEqual({ byte_offset: 26, line: 4, column: 1, record_index: 1 });
    // the two blank lines are said, with their numbers
    expect(source.blankLines?.()).toEqual({ count: 2, firstLines: [2, 3] });
    close();
  });

  test('blank lines: counted across chunks, the first five numbered; none is undefined; kept by the stored state', async () => {
    expect((await open(write('plain.jsonl', '{"a":1}\n{"a":2}\n'))).source.blankLines?.()).toBeUndefined();
    const b = await open(write('blank.jsonl', '\n \n\t\r\n'));
    expect(b.source.blankLines?.()).toEqual({ count: 3, firstLines: [1, 2, 3] });
    b.close();
    // a blank line after every 1,000th record of 200,000 (~6 MB: several chunks); line of blank k = 1000k + k + 2
    const lines: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      lines.push(JSON.stringify({ i, pad: 'p'.repeat(i % 31) }));
      if (i % 1000 === 0) lines.push('  ');
    }
    const { source, close } = await open(write('blanks.jsonl', lines.join('\n') + '\n'));
    expect(source.blankLines?.()).toEqual({ count: 200, firstLines: [2, 1003, 2004, 3005, 4006] });
    // the persistent index's state carries them: a source restored from it says the same, and grows on
    const state = (source as unknown as { persistable(): { state: Uint8Array } }).persistable().state;
    const { LineIndexer } = await import('../src/index-lines');
    const restored = LineIndexer.restore({ push() {}, finish() {}, count: 0 } as never, state)!;
    expect(restored.blankLines()).toEqual({ count: 200, firstLines: [2, 1003, 2004, 3005, 4006] });
    restored.feed(restored.fed, Buffer.from('\n{"x":1}\n'));
    expect(restored.blankLines()).toEqual({ count: 201, firstLines: [2, 1003, 2004, 3005, 4006] });
    // a state of the earlier layout (5 doubles, no blank lines) is not taken: the file is indexed again
    expect(LineIndexer.restore({} as never, new Uint8Array(Float64Array.of(0x4a4c0001, 1, 0, 0, 0).buffer))).toBeNull();
    close();
  });

  test('a last line without a newline is a record', async () => {
    const { source, close } = await open(write('nolf.jsonl', '{"a":1}\n{"a":2}'));
    expect(values(source)).toEqual([{ a: 1 }, { a: 2 }]);
    close();
  });

  test('an empty file and a blank-only file have no records', async () => {
    const a = await open(write('empty.jsonl', ''));
    expect(a.source.count).toBe(0);
    a.close();
    const b = await open(write('blank.jsonl', '\n \n\t\r\n'));
    expect(b.source.count).toBe(0);
    b.close();
  });

  test('U+2028 and U+2029 inside strings are not line breaks', async () => {
    const { source, close } = await open(write('ls.jsonl', '{"s":"a\u2028b\u2029c"}\n{"s":"d"}\n'));
    expect(source.count).toBe(2);
    expect(source.value(0)).toEqual({ s: 'a\u2028b\u2029c' });
    close();
  });

  test('a malformed line is a record that reads as SYNTAX_ERROR with its line; the others stay readable', async () => {
    const { source, close } = await open(write('bad.jsonl', '{"a":1}\n\n{"a":\n{"a":3}\n'));
    expect(source.count).toBe(3);
    expect(source.value(2)).toEqual({ a: 3 });
    let err: unknown;
    try { source.value(1); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(McpgwError);
    expect((err as McpgwError).code).toBe('SYNTAX_ERROR');
    expect((err as McpgwError).location).toMatchObject({ line: 3, record_index: 1, byte_offset: 9 + 5 });
    close();
  });

  test('numbers stay exact: beyond 2^53, long decimals, 1.0 and exponents serialize as written', async () => {
    const line = '{"big":12345678901234567891,"dec":0.12345678901234567890123,"one":1.0,"exp":1e3,"neg":-0,"ok":42}';
    const { source, close } = await open(write('nums.jsonl', line + '\n'));
    expect(JSON.stringify(source.value(0))).toBe(line);
    close();
  });

  test('key order is kept in record text, including integer-like keys', async () => {
    const { source, close } = await open(write('keys.jsonl', '{"b":1,"2":2,"a":3}\n'));
    expect(source.text(0)).toBe('{"b":1,"2":2,"a":3}');
    close();
  });

  test('invalid UTF-8 is SYNTAX_ERROR at its byte offset', async () => {
    const { source, close } = await open(write('utf8.jsonl', Buffer.concat([Buffer.from('{"a":1}\n{"s":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')])));
    expect(source.value(0)).toEqual({ a: 1 });
    expect(() => source.text(1)).toThrow(expect.objectContaining({ code: 'SYNTAX_ERROR', location: expect.objectContaining({ byte_offset: 14 }) }));
    close();
  });

  test('nesting past maxDepth is RESOURCE_LIMIT_EXCEEDED, not a stack overflow', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const { source, close } = await open(write('deep.jsonl', deep + '\n'));
    expect(() => source.value(0)).toThrow(expect.objectContaining({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: expect.objectContaining({ name: 'maxDepth', limit: 2000 }) }));
    close();
  });

  test('a record over maxRecordBytes is RESOURCE_LIMIT_EXCEEDED naming the limit', async () => {
    const { source, close } = await open(write('long.jsonl', `{"s":"${'x'.repeat(5000)}"}\n{"a":1}\n`), { maxRecordBytes: 1024 });
    expect(() => source.raw(0)).toThrow(expect.objectContaining({ code: 'RESOURCE_LIMIT_EXCEEDED', limit: { name: 'maxRecordBytes', limit: 1024, value: 5008 } }));
    expect(source.value(1)).toEqual({ a: 1 });
    close();
  });

  test('indexing across chunk boundaries: 200,000 lines over several 4 MiB chunks, with lines and blank lines at every boundary', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      lines.push(JSON.stringify({ i, pad: 'p'.repeat(i % 97) }));
      if (i % 1000 === 0) lines.push('');
    }
    const { source, close } = await open(write('many.jsonl', lines.join('\n') + '\n'));
    expect(source.count).toBe(200_000);
    for (const i of [0, 1, 1023, 1024, 65_535, 99_999, 199_999]) expect(source.value(i)).toMatchObject({ i });
    // line numbers count the blank lines before each record
    expect(source.location(1001).line).toBe(1001 + 2 + 1);
    let seen = 0, last = -1;
    for await (const batch of source.batches()) {
      for (let k = 0; k < batch.count; k++) {
        const v = JSON.parse(batch.text(k)) as { i: number };
        expect(v.i).toBe(last + 1);
        last = v.i;
        seen++;
      }
    }
    expect(seen).toBe(200_000);
    close();
  });

  test('scan with from/to delivers exactly those records; an aborted signal stops it with CANCELLED', async () => {
    const { source, close } = await open(write('range.jsonl', Array.from({ length: 50 }, (_, i) => `{"i":${i}}`).join('\n')));
    const got: number[] = [];
    for await (const b of source.batches({ from: 10, to: 13 })) for (let k = 0; k < b.count; k++) got.push((b.value(k) as { i: number }).i);
    expect(got).toEqual([10, 11, 12]);
    const ac = new AbortController();
    ac.abort();
    await expect((async () => { for await (const _ of source.batches({ signal: ac.signal })) void _; })()).rejects.toMatchObject({ code: 'CANCELLED' });
    close();
  });
});

describe('format-jsonl detection', () => {
  const probe = (text: string, fileName = 'x.txt') => {
    const bytes = Buffer.from(text);
    return detectJsonLines({ fileName, extension: path.extname(fileName), bytes, size: bytes.length });
  };
  test('several line-aligned values: high confidence', () => expect(probe('{"a":1}\n{"a":2}\n')).toBe(0.95));
  test('one value: a tie that the extension breaks', () => expect(probe('{"a":1}\n')).toBe(0.55));
  test('pretty-printed JSON is not JSON Lines', () => expect(probe('{\n  "a": 1\n}\n')).toBeNull());
  test('RS-led content is JSON-seq, not JSON Lines', () => expect(probe('\x1e{"a":1}\n')).toBeNull());
  test('a malformed line among good ones still detects', () => expect(probe('{"a":1}\n{"a":\n{"a":3}\n')).toBe(0.7));
});
