import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import type { Format, QueryLanguage } from '../../src/kernel/contracts';
import { fileService, formatsOf } from '../helpers/formats';
import { engine, jsonpath, sharedThreads, threadedEngine } from '../helpers/query';

let dir: string;
let formats: Format[];
let jp: QueryLanguage;
/** The file's engine threads: a thread a scan left clean serves the next scan. */
const threads = sharedThreads();
afterAll(() => threads.close());
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-scanw-'));
  formats = await formatsOf(jsonl);
  jp = await jsonpath();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function open(name: string, content: string) {
  fs.writeFileSync(path.join(dir, name), content);
  return fileService(dir, formats).open(name);
}

/** ~12 MB: several 4 MiB batches, so results from both threads must be put back in file order. */
function bigFile(): string {
  const lines: string[] = [];
  for (let i = 0; i < 60000; i++) {
    const status = i % 300 === 7 ? 'failed' : 'ok';
    const id = i % 1000 === 3 ? '9007199254740993' : String(i);
    lines.push(`{"id":${id},"status":"${status}","latency_ms":${(i % 250) + 0.5},"msg":"${'x'.repeat(150)}","user":{"name":"u${i}","tags":["a","b"]}}`);
    if (i === 31000) lines.push('{"broken": ');
  }
  return lines.join('\n') + '\n';
}

describe('scan engine on worker threads', () => {
  test('same node list as the single-threaded engine, in file order, exact numbers', async () => {
    const f = await open('big.jsonl', bigFile());
    for (const q of ['$[?@.status=="failed"].id', '$[?@.latency_ms > 240].user.name', '$[?@.id == 9007199254740993].id']) {
      const one = await engine().run({ source: f.source, query: jp.compile(q), addressing: 'file' });
      const two = await threadedEngine({}, 2, 0, threads).run({ source: f.source, query: jp.compile(q), addressing: 'file' });
      expect(two.nodes.map((n) => [n.record, n.path, JSON.stringify(n.value)])).toEqual(one.nodes.map((n) => [n.record, n.path, JSON.stringify(n.value)]));
      expect(two.nodes.length).toBeGreaterThan(50);
      expect(two.skipped).toBe(one.skipped);
    }
    const t = await threadedEngine({}, 2, 0, threads).run({ source: f.source, query: jp.compile('$[?@.*]'), addressing: 'file', limit: 3, countAll: true });
    expect(t.total).toBe(60000);
    // the malformed record lies past the page's end (record 3): the page that reaches it reports it
    expect(t.skipped).toBe(0);
    expect(t.firstSkipped).toEqual([]);
    const rest = await threadedEngine({}, 2, 0, threads).run({ source: f.source, query: jp.compile('$[?@.*]'), addressing: 'file', limit: 0, countAll: true, resume: t.next! });
    expect(rest.total).toBe(60000 - 3);
    expect(rest.skipped).toBe(1);
    expect(rest.firstSkipped[0]).toMatchObject({ record_index: 31001, line: 31002 });
    expect(t.nodes.map((n) => n.path)).toEqual(['/0', '/1', '/2']);
    expect(t.next).toEqual({ record: 3, node: 0 });
    f.close();
  });

  test('a case-insensitive match() is prefiltered without case: every spelling found, on one thread and on two', async () => {
    // status spellings (JSON text): the letters' cases, \u escapes, and near misses (dotted İ, dotless ı, a space)
    const spellings = ['"failed"', '"FAILED"', '"Failed"', '"fAiLeD"', '"\\u0046ailed"', '"fai\\u006Ced"', '"FAİLED"', '"faıled"', '"failed "', '"ok"'];
    const lines: string[] = [];
    for (let i = 0; i < 40000; i++) {
      const status = i % 97 === 5 ? spellings[(i / 97) % spellings.length | 0]! : '"ok"';
      // "failed" elsewhere in the record never makes it match
      lines.push(`{"id":${i},"status":${status},"msg":"${i % 89 === 3 ? 'FAILED earlier' : 'x'.repeat(120)}","note":"${i % 113 === 1 ? 'failed' : 'n'}"}`);
    }
    const f = await open('cases.jsonl', lines.join('\n') + '\n');
    const want = lines.flatMap((l) => {
      const r = JSON.parse(l) as { id: number; status: unknown };
      return typeof r.status === 'string' && r.status.replace(/[A-Z]/g, (c) => c.toLowerCase()) === 'failed' ? [r.id] : [];
    });
    expect(want.length).toBeGreaterThan(200);
    const query = jp.compile('$[?match(@.status, "[Ff][Aa][Ii][Ll][Ee][Dd]")].id');
    expect(query.requiredCaselessLiterals).toEqual(['"failed"']);
    for (const e of [engine(), threadedEngine({}, 2, 0, threads)]) {
      const r = await e.run({ source: f.source, query, addressing: 'file' });
      expect(r.nodes.map((n) => Number(n.value))).toEqual(want);
    }
    f.close();
  });

  test('worker threads compare numbers exactly too (their registry carries compareNumerals)', async () => {
    const tiny = '0.' + '0'.repeat(400) + '1';
    const xs = [tiny, '0', '-0', '1e400', '1e401', '0.1000000000000000000001', '0.1', '1' + '0'.repeat(1500)];
    const f = await open('exact.jsonl', xs.map((x) => `{"x":${x}}`).join('\n') + '\n');
    const paths = async (q: string) => (await threadedEngine({}, 2, 0, threads).run({ source: f.source, query: jp.compile(q), addressing: 'file' })).nodes.map((n) => n.path);
    expect(await paths('$[?@.x > 0]')).toEqual(['/0', '/3', '/4', '/5', '/6', '/7']);
    expect(await paths('$[?@.x == 0]')).toEqual(['/1', '/2']);
    expect(await paths('$[?@.x > 1e400]')).toEqual(['/4', '/7']);
    expect(await paths('$[?@.x > 0.1 && @.x < 1]')).toEqual(['/5']);
    f.close();
  });

  test("search(@, '(a|b){901}') over 1.35 MB of a's stops at the deadline, the server thread stays responsive", () => {
    // RE2 takes ~15 s on it (7 times the 2 s deadline, unloaded): the deadline comes first. The built engine runs in its
    // own process, as in the server (under Jest's module system one run in many did not return).
    const out = spawnSync(process.execPath, [path.join(__dirname, '..', 'fixtures', 'scan', 'regex-deadline.cjs'), path.resolve(__dirname, '..', '..'), dir, '2000'], { encoding: 'utf8', timeout: 90_000 });
    expect(out.stderr).toBe('');
    const r = JSON.parse(out.stdout) as { complete: boolean; next: { record: number; node: number } | null; firstSkipped: { record_index: number; code: string; message: string }[]; nodes: number; ms: number; ticks: number };
    expect(r.ms).toBeLessThan(60_000); // the match alone would run for ~15 s
    expect(r.ticks).toBeGreaterThan(20); // the event loop kept running (20 ms ticks over ≥ 2 s: 100 when never held)
    expect(r.complete).toBe(false);
    // Normally the thread reaches record 1 early and is still on it half a page's time later: the record cannot be
    // evaluated and is skipped with RESOURCE_LIMIT_EXCEEDED. On a machine so loaded that the thread reached record 1
    // only late, the page stops before it and the next page evaluates it again (nothing skipped).
    if (r.next?.record === 1) {
      expect(r.firstSkipped).toEqual([]);
    } else {
      expect(r.firstSkipped).toEqual([expect.objectContaining({ record_index: 1, code: 'RESOURCE_LIMIT_EXCEEDED' })]);
      expect(r.firstSkipped[0]!.message).toMatch(/^Record 1 could not be evaluated: match\(\)\/search\(\) ran for \d+ ms/);
      expect(r.next).toEqual({ record: 2, node: 0 });
    }
    expect(r.nodes).toBe(0);
  }, 120_000);
});
