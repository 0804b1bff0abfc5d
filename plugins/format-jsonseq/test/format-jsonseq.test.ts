import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonseq from '../src/index';
import { detectSequence } from '../src/sequence';
import type { Format, RecordWarning } from '../../../src/kernel/contracts';
import type { McpgwError } from '../../../src/kernel/errors';
import { fileService, formatsOf, values } from '../../../test/helpers/formats';

let dir: string;
let formats: Format[];
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-seq-'));
  formats = await formatsOf(jsonseq);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const RS = '\x1e';
function write(name: string, content: string | Buffer): string {
  fs.writeFileSync(path.join(dir, name), content);
  return name;
}
async function open(name: string, limits = {}) {
  return fileService(dir, formats, limits).open(name);
}
function thrown(f: () => unknown): McpgwError {
  try { f(); } catch (e) { return e as McpgwError; }
  throw new Error('did not throw');
}

describe('format-jsonseq (RFC 7464)', () => {
  test('registers json-seq for .json-seq; detects RS at byte 0', () => {
    expect(formats.map((f) => [f.name, f.extensions])).toEqual([['json-seq', ['.json-seq']]]);
    const probe = (s: string) => detectSequence({ fileName: 'x', extension: '', bytes: Buffer.from(s), size: s.length });
    expect(probe(`${RS}{}\n`)).toBe(1);
    expect(probe('{}\n')).toBeNull();
  });

  test('RS-introduced, LF-ended texts are records; values, text and locations', async () => {
    const { source, close } = await open(write('a.json-seq', `${RS}{"a":1}\n${RS}[1,2]\n${RS}"s"\n${RS}3\n${RS}true\n`));
    expect(source).toMatchObject({ format: 'json-seq', rootIsSequence: true, count: 5 });
    expect(source.rootType).toBeUndefined();
    expect(values(source)).toEqual([{ a: 1 }, [1, 2], 's', 3, true]);
    expect(source.text(1)).toBe('[1,2]');
    expect(source.location(1)).toEqual({ byte_offset: 10, line: 2, column: 2, record_index: 1 });
    close();
  });

  test('consecutive RS bytes are not empty records; pretty texts inside an element are fine', async () => {
    const { source, close } = await open(write('b.json-seq', `${RS}${RS}\n${RS}{\n  "a": 1\n}\n${RS}${RS}${RS}{"b":2}\n${RS}`));
    expect(values(source)).toEqual([{ a: 1 }, { b: 2 }]);
    close();
  });

  test('a truncated element is a malformed record at its index and offset; the parser resynchronises at the next RS', async () => {
    const text = `${RS}{"a":1}\n${RS}{"a":\n${RS}{"a":3}\n${RS}{"cut":"abc`;
    const { source, close } = await open(write('c.json-seq', text));
    expect(source.count).toBe(4);
    expect(source.value(2)).toEqual({ a: 3 });
    const err = thrown(() => source.value(1));
    expect(err.code).toBe('SYNTAX_ERROR');
    expect(err.location).toMatchObject({ record_index: 1, line: 2 });
    expect(thrown(() => source.value(3)).location).toMatchObject({ record_index: 3, line: 4 });
    const report = await source.validate!({ mode: 'full' });
    expect(report).toMatchObject({ complete: true, malformedRecords: 2 });
    expect(report.firstMalformed.map((m) => m.recordIndex)).toEqual([1, 3]);
    close();
  });

  test('a top-level number not followed by whitespace is possibly truncated (§2.4); followed by LF it is fine', async () => {
    const { source, close } = await open(write('d.json-seq', `${RS}123${RS}456\n${RS}789`));
    expect(source.count).toBe(3);
    expect(thrown(() => source.value(0)).message).toContain('may be truncated');
    expect(source.value(1)).toBe(456);
    expect(thrown(() => source.value(2)).code).toBe('SYNTAX_ERROR');
    // the same check in scans
    const got: unknown[] = [];
    for await (const b of source.batches()) for (let k = 0; k < b.count; k++) { try { got.push(b.value(k)); } catch (e) { got.push((e as McpgwError).code); } }
    expect(got).toEqual(['SYNTAX_ERROR', 456, 'SYNTAX_ERROR']);
    close();
  });

  test('content before the first RS is one malformed record', async () => {
    const { source, close } = await open(write('e.json-seq', `{"x":0}\n${RS}{"a":1}\n`));
    expect(source.count).toBe(2);
    expect(thrown(() => source.value(0)).message).toContain('record separator');
    expect(source.value(1)).toEqual({ a: 1 });
    close();
  });

  test('exact numbers, lone surrogates with a warning, raw U+2028 inside strings', async () => {
    const { source, close } = await open(write('f.json-seq', `${RS}{"n":9007199254740993,"d":1.10}\n${RS}{"s":"\\ud800","t":"a\u2028b"}\n`));
    expect(JSON.stringify(source.value(0))).toBe('{"n":9007199254740993,"d":1.10}');
    const w: RecordWarning[] = [];
    expect(source.value(1, w)).toEqual({ s: '\ufffd', t: 'a\u2028b' });
    expect(w[0]).toMatchObject({ code: 'LONE_SURROGATE_REPLACED', record_index: 1 });
    close();
  });

  test('many records across chunk boundaries', async () => {
    const parts: string[] = [];
    for (let i = 0; i < 120_000; i++) parts.push(`${RS}${JSON.stringify({ i, p: 'z'.repeat(i % 61) })}\n`);
    const { source, close } = await open(write('g.json-seq', parts.join('')));
    expect(source.count).toBe(120_000);
    for (const i of [0, 1023, 1024, 77_777, 119_999]) expect(source.value(i)).toMatchObject({ i });
    expect(source.location(5000).line).toBe(5001);
    close();
  });
});

describe('an explicit json-seq is authoritative over bytes valid for it (RFC 7464 §2.1)', () => {
  let all: Format[];
  beforeAll(async () => {
    const json = (await import('../../format-json/src/index')).default;
    const jsonl = (await import('../../format-jsonl/src/index')).default;
    all = [...(await formatsOf(json)), ...(await formatsOf(jsonl)), ...formats];
  });
  const strict = (name: string) => fileService(dir, all).open(name, { format: 'json-seq', strictFormat: true });
  // every text RS-introduced, one a line: JSON Lines to the eye once the RS bytes are ignored
  const LINES = [`{"id":1}`, `{"id":2}`, `[3]`, `"four"`];
  const framed = (lead = '') => lead + LINES.map((l) => `${RS}${l}\n`).join('');

  test.each([
    ['lines.jsonl', framed()], ['lines.ndjson', framed()], ['lines.json', framed()], ['lines.txt', framed()], ['lines', framed()],
    // whitespace before the first RS is framing (docs/formats.md), as between texts
    ['lead.jsonl', framed('\n \n')],
  ])('%j opens as json-seq with its four records', async (name, text) => {
    write(name, text);
    const f = await strict(name);
    try {
      expect(f.detection).toEqual({ basis: 'explicit', confidence: 1 });
      expect(f.source.format).toBe('json-seq');
      expect(values(f.source)).toEqual(LINES.map((l) => JSON.parse(l)));
    } finally {
      f.close();
    }
  });

  test.each([
    ['one text, RS on its own line after a blank line', `\n${RS}\n{"id":1}\n`, [{ id: 1 }]],
    ['one text after CRLF', `\r\n${RS}{"id":1}\n`, [{ id: 1 }]],
    ['texts after spaces and tabs', ` \t${RS}{"id":1}\n${RS}{"id":2}\n`, [{ id: 1 }, { id: 2 }]],
  ])('whitespace before the first RS (%s): json-seq, explicitly and by detection', async (_name, text, expected) => {
    write('ws.json-seq', text);
    const f = await strict('ws.json-seq');
    try {
      expect(values(f.source)).toEqual(expected);
    } finally {
      f.close();
    }
    const auto = await fileService(dir, all).open('ws.json-seq');
    try {
      expect(auto.source.format).toBe('json-seq');
    } finally {
      auto.close();
    }
  });

  test('text before the first RS is not RFC 7464 (§2.1): content that JSON Lines reads is FORMAT_MISMATCH naming it', async () => {
    write('plain.json-seq', `{"id":1}\n{"id":2}\n${RS}{"id":3}\n`);
    await expect(strict('plain.json-seq')).rejects.toMatchObject({ code: 'FORMAT_MISMATCH', hint: expect.stringContaining('"jsonl"') });
  });
});
