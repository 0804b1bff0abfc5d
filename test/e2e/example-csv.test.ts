/**
 * The example CSV format (examples/plugins/csv), tested as a third party meets it: `npm pack` mcpgw and the example,
 * `npm install` both into a scratch deployment, and drive the installed `mcpgw serve` through a real MCP client. The
 * reference is Python's csv module (it writes the file and reads it back). A file of 1 MiB or more re-opens in a fresh
 * server from the persistent index without a pass (the engine's debug line says so, and the answers are the same); a
 * file that only grew is extended; malformed rows are errors located at their line. A package test
 * (`npm run test:package`): it needs the npm registry or npm's cache for csv-parse.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, REPO, type Connected } from '../helpers/mcp';
import { INSTALL, ok, pack, stage } from '../helpers/packages';

let tmp: string;
let app: string;
let bin: string;
let cache: string;
/** What Python's csv module reads back: the rows, as objects of strings. */
let rows: Record<string, string>[];

/** Writes data/people.csv with Python's csv writer (quotes, delimiters and line breaks inside fields, CRLF rows) and reads it back. */
const PYTHON = `
import csv, json, random, sys
random.seed(28)
notes = ['plain', 'with, comma', 'with "quotes"', 'multi\\nline', '', 'café €', '  spaced  ']
with open(sys.argv[1], 'w', newline='', encoding='utf-8') as f:
    w = csv.writer(f)
    w.writerow(['id', 'name', 'note', 'amount'])
    for i in range(40000):
        w.writerow([i, 'name %d' % i, random.choice(notes), '%d.%02d' % (random.randint(0, 10 ** 22), i % 100)])
with open(sys.argv[1], newline='', encoding='utf-8') as f:
    print(json.dumps(list(csv.DictReader(f))))
`;

beforeAll(() => {
  if (!fs.existsSync(path.join(REPO, 'dist', 'cli', 'main.js'))) throw new Error('Build first: npx tsc -b (npm test does it).');
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-example-csv-')));
  app = path.join(tmp, 'app');
  cache = path.join(tmp, 'cache');
  fs.mkdirSync(path.join(app, 'data'), { recursive: true });
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'csv-deployment', version: '1.0.0', private: true }));
  const tarballs = path.join(tmp, 'tarballs');
  ok('npm', [...INSTALL, pack(REPO, tarballs), pack(stage(path.join(REPO, 'examples', 'plugins', 'csv'), path.join(tmp, 'src', 'csv')), tarballs)], app);
  bin = path.join(app, 'node_modules', 'mcpgw', 'bin', 'mcpgw.js');
  const py = spawnSync('python3', ['-c', PYTHON, path.join(app, 'data', 'people.csv')], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (py.status !== 0) throw new Error(`python3 failed: ${py.stderr}`);
  rows = JSON.parse(py.stdout);
  fs.writeFileSync(path.join(app, 'data', 'bad.csv'), 'a,b,c\n1,2,3\n4,5\n"x,y\n');
  fs.writeFileSync(path.join(app, '.mcpgwrc.yaml'), 'root: ./data\nlogLevel: debug\nplugins:\n  - mcpgw-format-csv\n');
}, 300_000);
afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** A fresh server of the deployment (its own process), over the deployment's persistent index folder. */
const serve = () => connect([], { cwd: app, cli: bin, env: { HOME: app, XDG_CACHE_HOME: cache } });

async function readBack(server: Connected, indexes: number[]) {
  const opened = await call(server.client, 'open_file', { path: 'people.csv' });
  expect(opened.data.error).toBeUndefined();
  const records: unknown[] = [];
  for (const index of indexes) records.push(JSON.parse((await call(server.client, 'get_record', { handle: opened.data.handle, index })).data.record));
  return { count: opened.data.record_count, fileType: opened.data.file_type, records };
}

test('every row as Python reads it; a fresh server re-opens the file from the persistent index without a pass', async () => {
  const multiline = rows.map((r, i) => [r, i] as const).filter(([r]) => r.note === 'multi\nline').map(([, i]) => i);
  const picks = [0, 1, multiline[0]!, multiline[1]!, 20000, rows.length - 1];
  const first = await serve();
  let answers: Awaited<ReturnType<typeof readBack>>;
  try {
    answers = await readBack(first, picks);
    expect(answers).toEqual({ count: rows.length, fileType: 'csv', records: picks.map((i) => rows[i]) });
    expect(first.stderr()).not.toContain('opened from the stored index'); // the first open made the pass
    const counted = await call(first.client, 'json_read', { path: 'people.csv', language: 'jsonpath', query: "$[?@.note == 'multi\\nline']", count: true });
    expect(counted.data.count).toBe(multiline.length);
  } finally {
    await first.close();
  }
  const second = await serve();
  try {
    expect(await readBack(second, picks)).toEqual(answers);
    expect(second.stderr()).toContain(`mcpgw debug index cache: opened from the stored index without a pass {"format":"csv","records":${rows.length},"grown":false}`);
  } finally {
    await second.close();
  }
});

test('aggregate over the CSV rows: counts and exact sums per note, as Python computes them with Decimal', async () => {
  const server = await serve();
  try {
    const opened = await call(server.client, 'open_file', { path: 'people.csv' });
    const r = await call(server.client, 'aggregate', { handle: opened.data.handle, group_by: ['note'], metrics: ['count', 'sum(number(amount))'], top: 20 });
    expect(r.data.complete).toBe(true);
    const py = spawnSync('python3', ['-c', `
import csv, json, sys
from decimal import Decimal
groups = {}
with open(sys.argv[1], newline='', encoding='utf-8') as f:
    for row in csv.DictReader(f):
        g = groups.setdefault(row['note'], [0, Decimal(0)])
        g[0] += 1
        g[1] += Decimal(row['amount'])
print(json.dumps({k: [v[0], format(v[1].normalize(), 'f')] for k, v in groups.items()}))
`, path.join(app, 'data', 'people.csv')], { encoding: 'utf8' });
    const expected = JSON.parse(py.stdout) as Record<string, [number, string]>;
    // the sums as exact lexemes (no trailing zeros): the answer's JSON text carries them digit for digit
    const got = Object.fromEntries(r.data.groups.map((g: { key: string; count: number }) => [g.key, g.count]));
    expect(got).toEqual(Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, v[0]])));
    for (const [key, [, sum]] of Object.entries(expected)) expect(r.text).toContain(`${JSON.stringify(key)},"count":${expected[key]![0]},"sum(number(amount))":${sum}`);
  } finally {
    await server.close();
  }
});

test('a file that only grew: the stored index is extended, the new rows read', async () => {
  fs.appendFileSync(path.join(app, 'data', 'people.csv'), '40000,"appended, one",note,1.5\r\n40001,two,"a ""quoted"" one",2\r\n');
  const server = await serve();
  try {
    const r = await readBack(server, [rows.length, rows.length + 1]);
    expect(r.count).toBe(rows.length + 2);
    expect(r.records).toEqual([
      { id: '40000', name: 'appended, one', note: 'note', amount: '1.5' },
      { id: '40001', name: 'two', note: 'a "quoted" one', amount: '2' },
    ]);
    expect(server.stderr()).toContain(`opened from the stored index without a pass {"format":"csv","records":${rows.length + 2},"grown":true}`);
  } finally {
    await server.close();
  }
});

test('malformed rows are errors located at their line; the others read', async () => {
  const server = await serve();
  try {
    const opened = await call(server.client, 'open_file', { path: 'bad.csv' });
    expect(opened.data.record_count).toBe(3);
    const good = await call(server.client, 'get_record', { handle: opened.data.handle, index: 0 });
    expect(JSON.parse(good.data.record)).toEqual({ a: '1', b: '2', c: '3' });
    const short = await call(server.client, 'get_record', { handle: opened.data.handle, index: 1 });
    expect(short.data.error).toMatchObject({ code: 'SYNTAX_ERROR', message: 'Record 1: Row 1 has 2 cells; the header has 3.', location: { line: 3, record_index: 1 } });
    const open = await call(server.client, 'get_record', { handle: opened.data.handle, index: 2 });
    expect(open.data.error).toMatchObject({ code: 'SYNTAX_ERROR', location: { line: 4, record_index: 2 } });
    expect(open.data.error.message).toMatch(/^Record 2: Invalid CSV in row 2: Quote Not Closed/);
  } finally {
    await server.close();
  }
});
