/**
 * The sessions catalog's folder listing (the sources' discovery): reused while the folders it looked into keep their
 * modification times, listed again when one changed — a session file added to a project folder, a new day's folder
 * under a month's — and, whatever the folders say, after a minute; a listing whose folders changed right before it is
 * reused for 2 s at most. Real files, a fake clock, and sources that count their discoveries.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SessionSource, ToolContext } from 'mcpgw/plugin-api';
import { SessionsService } from '../src/service';
import { optionsSchema } from '../src/homes';
import { claudeSource } from '../src/sources/claude';
import { codexSource } from '../src/sources/codex';
import { FakeClock } from '../../../src/kernel/fake-clock';

let tmp: string;
let claudeHome: string;
let codexHome: string;
let clock: FakeClock;
let ctx: ToolContext;
let service: SessionsService;
const discoveries = { claude: 0, codex: 0 };

const counting = (source: SessionSource, name: 'claude' | 'codex'): SessionSource => ({
  ...source,
  discover: (home, options) => { discoveries[name]++; return source.discover(home, options); },
});
const sources = [counting(claudeSource, 'claude'), counting(codexSource, 'codex')];

const claudeLine = JSON.stringify({ type: 'user', uuid: 'u1', sessionId: 's', cwd: '/w/app', timestamp: '2026-01-01T00:00:00.000Z', message: { role: 'user', content: 'hello' } }) + '\n';
const codexLine = JSON.stringify({ timestamp: '2026-01-01T00:00:00.000Z', type: 'session_meta', payload: { id: 'c1', cwd: '/w/tool' } }) + '\n';

/** Sets every folder under (and including) `dir` to have been modified an hour before the clock's start. */
function age(dir: string) {
  const t = (clock.now() - 3_600_000) / 1000;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(d, e.name));
    fs.utimesSync(d, t, t);
  };
  walk(dir);
}

async function sessionPaths(): Promise<string[]> {
  const catalog = await service.catalog(ctx, service.homes(ctx).filter((h) => h.available));
  return catalog.projects.flatMap((p) => p.sessions.map((s) => path.relative(tmp, s.path))).sort();
}

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-scatalog-')));
  claudeHome = path.join(tmp, 'claude');
  codexHome = path.join(tmp, 'codex');
  fs.mkdirSync(path.join(claudeHome, 'projects', '-w-app'), { recursive: true });
  fs.writeFileSync(path.join(claudeHome, 'projects', '-w-app', 'a.jsonl'), claudeLine);
  fs.mkdirSync(path.join(codexHome, 'sessions', '2026', '01', '01'), { recursive: true });
  fs.writeFileSync(path.join(codexHome, 'sessions', '2026', '01', '01', 'rollout-1.jsonl'), codexLine);
  clock = new FakeClock(Date.now());
  age(tmp);
  discoveries.claude = discoveries.codex = 0;
  ctx = {
    registry: { extensions: () => ({ list: () => sources, get: (n: string) => sources.find((s) => s.name === n) }) },
    signal: new AbortController().signal,
    clock,
    log: { error() {}, warn() {}, info() {}, debug() {} },
  } as unknown as ToolContext;
  service = new SessionsService(optionsSchema.parse({}), { MCPGW_CLAUDE_HOME: claudeHome, MCPGW_CODEX_HOME: codexHome });
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('unchanged folders: the listing is reused, however much later (within a minute)', async () => {
  const first = await sessionPaths();
  expect(first).toEqual(['claude/projects/-w-app/a.jsonl', 'codex/sessions/2026/01/01/rollout-1.jsonl']);
  clock.advance(30_000);
  expect(await sessionPaths()).toEqual(first);
  expect(discoveries).toEqual({ claude: 1, codex: 1 });
  // A session file that grew changes no folder: still reused (its size is looked at anew by every catalog).
  fs.appendFileSync(path.join(claudeHome, 'projects', '-w-app', 'a.jsonl'), claudeLine);
  await sessionPaths();
  expect(discoveries).toEqual({ claude: 1, codex: 1 });
});

test('a session file added to a project folder is noticed by the folder\'s modification time, without waiting', async () => {
  await sessionPaths();
  clock.advance(10_000);
  await sessionPaths();
  fs.writeFileSync(path.join(claudeHome, 'projects', '-w-app', 'b.jsonl'), claudeLine);
  expect(await sessionPaths()).toContain('claude/projects/-w-app/b.jsonl');
  expect(discoveries).toEqual({ claude: 2, codex: 2 });
});

test('a new day\'s folder under a month\'s (a nested layout) is noticed through the month folder', async () => {
  await sessionPaths();
  clock.advance(10_000);
  await sessionPaths();
  expect(discoveries.codex).toBe(1);
  fs.mkdirSync(path.join(codexHome, 'sessions', '2026', '01', '02'));
  fs.writeFileSync(path.join(codexHome, 'sessions', '2026', '01', '02', 'rollout-2.jsonl'), codexLine);
  expect(await sessionPaths()).toContain('codex/sessions/2026/01/02/rollout-2.jsonl');
});

test('listed again after a minute, and on demand (forgetCatalog)', async () => {
  await sessionPaths();
  clock.advance(60_000);
  await sessionPaths();
  expect(discoveries).toEqual({ claude: 2, codex: 2 });
  service.forgetCatalog();
  await sessionPaths();
  expect(discoveries).toEqual({ claude: 3, codex: 3 });
});

test('folders modified right before the listing (the same clock tick could hide a later change): reused for 2 s only', async () => {
  fs.utimesSync(path.join(claudeHome, 'projects', '-w-app'), clock.now() / 1000, clock.now() / 1000);
  await sessionPaths();
  clock.advance(1_000);
  await sessionPaths();
  expect(discoveries.claude).toBe(1);
  clock.advance(1_500);
  await sessionPaths();
  expect(discoveries.claude).toBe(2);
  // That listing began 2.5 s after the folder's modification: settled, reused from now on.
  clock.advance(30_000);
  await sessionPaths();
  expect(discoveries.claude).toBe(2);
});
