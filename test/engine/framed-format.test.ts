/**
 * The indexing kit (`context.records.openFramed`, src/engine/records/framed.ts) with a format of another syntax: the
 * TSV fixture plugin (test/fixtures/plugins/format-tsv.cjs) gives only a framer (line starts, the header kept in its
 * state) and `decode`. The kit's source answers as a hand parse of the file; a re-open in a fresh server (a new index
 * cache over the same folder) restores from the persistent index without a pass — the framer is never started and
 * fed no byte; a file that only grew is extended by feeding the appended bytes alone; a malformed row is reported by
 * validation and skipped with its error by batches.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { formatsOf } from '../helpers/formats';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { FileService } from '../../src/kernel/files/file-service';
import { Sandbox } from '../../src/kernel/files/sandbox';
import { systemClock } from '../../src/kernel/clock';
import { IndexCache } from '../../src/engine/cache/index-cache';
import { EngineIndexer } from '../../src/engine/files/indexer';
import { openRegularFile } from '../../src/kernel/files/regular-file';
import type { Format, Plugin } from '../../src/kernel/contracts';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const tsv = require('../fixtures/plugins/format-tsv.cjs') as Plugin & { stats: { starts: number; restores: number; fedBytes: number } };
const quiet = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };

let tmp: string;
let formats: Format[];
beforeAll(async () => {
  formats = await formatsOf(tsv);
});
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-framed-'));
  fs.mkdirSync(path.join(tmp, 'root'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A server's file access with a persistent index cache of its own over the test's cache folder (a fresh server each call). */
const server = () => new FileService(new Sandbox(path.join(tmp, 'root')), () => formats, { ...DEFAULT_LIMITS }, systemClock,
  new EngineIndexer(new IndexCache({ dir: path.join(tmp, 'cache'), maxBytes: 1 << 30, salt: 'test@1', openFile: openRegularFile, log: quiet, minFileBytes: 0 })));

/** The file's rows parsed by hand: header, then each non-blank line split on tabs (with its 1-based line). */
function byHand(text: string): { line: number; value: Record<string, string> | 'malformed' }[] {
  const lines = text.split('\n');
  const header = lines[0]!.replace(/\r$/, '').split('\t');
  const rows: { line: number; value: Record<string, string> | 'malformed' }[] = [];
  lines.slice(1).forEach((l, k) => {
    const cells = l.replace(/\r$/, '');
    if (cells === '') return;
    const parts = cells.split('\t');
    rows.push({ line: k + 2, value: parts.length === header.length ? Object.fromEntries(header.map((h, j) => [h, parts[j]!])) : 'malformed' });
  });
  return rows;
}

function tsvText(n: number, from = 0): string {
  let out = '';
  for (let i = from; i < from + n; i++) {
    out += i === 17 ? `${i}\tbad\textra\tcell\n` : `${i}\tname ${i}\t${'é'.repeat(i % 5)}${i % 9 === 4 ? '\r' : ''}\n`;
    if (i % 400 === 7) out += '\n';
  }
  return out;
}

async function readAll(service: FileService, name: string) {
  const opened = await service.open(name);
  try {
    const s = opened.source;
    const rows: unknown[] = [];
    for (let i = 0; i < s.count; i++) {
      try { rows.push({ line: s.location(i).line, value: s.value(i) }); } catch (e) { rows.push({ line: s.location(i).line, value: 'malformed', code: (e as { code: string }).code, at: (e as { location?: { line?: number } }).location?.line }); }
    }
    const report = await s.validate!({ mode: 'full' });
    const fromBatches: unknown[] = [];
    for await (const b of s.batches()) {
      for (let k = 0; k < b.count; k++) {
        try { b.checkFraming?.(k); const [x, y] = b.span(k); fromBatches.push(JSON.parse(b.bytes.toString('utf8', x, y))); } catch (e) { fromBatches.push((e as { code: string }).code); }
      }
    }
    return { format: s.format, count: s.count, rows, report, fromBatches };
  } finally {
    opened.close();
  }
}

test('a TSV file: the kit\'s source answers as a hand parse; a re-open in a fresh server makes no pass', async () => {
  const text = 'id\tname\taccent\n' + tsvText(3000);
  fs.writeFileSync(path.join(tmp, 'root', 'people.tsv'), text);
  const expected = byHand(text);
  const before = { ...tsv.stats };
  const first = await readAll(server(), 'people.tsv');
  expect(tsv.stats.starts).toBe(before.starts + 1);
  expect(tsv.stats.fedBytes).toBe(before.fedBytes + Buffer.byteLength(text));
  expect(first.format).toBe('tsv');
  expect(first.count).toBe(expected.length);
  expect(first.rows).toEqual(expected.map((r) => (r.value === 'malformed' ? { line: r.line, value: 'malformed', code: 'SYNTAX_ERROR', at: r.line } : r)));
  expect(first.fromBatches).toEqual(expected.map((r) => (r.value === 'malformed' ? 'SYNTAX_ERROR' : r.value)));
  expect(first.report).toMatchObject({ complete: true, recordsExamined: expected.length, malformedRecords: 1, firstMalformed: [{ recordIndex: 17, code: 'SYNTAX_ERROR', line: expected[17]!.line }] });
  expect(first.report.firstMalformed[0]!.message).toBe('Record 17: Row 17 has 4 cells; the header has 3.');

  const again = { ...tsv.stats };
  const second = await readAll(server(), 'people.tsv');
  expect(tsv.stats).toEqual({ ...again, restores: again.restores + 1 }); // not started, not one byte fed
  expect(second).toEqual(first);
});

test('a TSV file that only grew: restored, then extended by feeding the appended bytes alone', async () => {
  const file = path.join(tmp, 'root', 'grows.tsv');
  const head = 'id\tname\taccent\n' + tsvText(500);
  fs.writeFileSync(file, head);
  await readAll(server(), 'grows.tsv');
  const more = tsvText(300, 500);
  fs.appendFileSync(file, more);
  const before = { ...tsv.stats };
  const grown = await readAll(server(), 'grows.tsv');
  expect(tsv.stats.starts).toBe(before.starts);
  expect(tsv.stats.restores).toBe(before.restores + 1);
  expect(tsv.stats.fedBytes).toBe(before.fedBytes + Buffer.byteLength(more));
  const expected = byHand(head + more);
  expect(grown.count).toBe(expected.length);
  expect(grown.fromBatches).toEqual(expected.map((r) => (r.value === 'malformed' ? 'SYNTAX_ERROR' : r.value)));
});
