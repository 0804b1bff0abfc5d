/** list_active_sessions' process side: assistants found through a /proc-shaped folder of our own. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runningAssistants } from '../src/tools/active';

let proc: string;
beforeAll(() => {
  proc = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-proc-')));
  const pid = (n: number, argv: string[], cwd: string | null) => {
    fs.mkdirSync(path.join(proc, String(n)));
    fs.writeFileSync(path.join(proc, String(n), 'cmdline'), argv.join('\0') + '\0');
    if (cwd) fs.symlinkSync(cwd, path.join(proc, String(n), 'cwd'));
  };
  pid(101, ['/usr/local/bin/claude', '--resume'], '/home/ana/webapp');
  pid(102, ['node', '/opt/codex/bin/codex.js'], '/home/ana/cli');
  pid(103, ['/usr/bin/bash'], '/home/ana');
  pid(104, ['/usr/bin/gemini'], null); // cwd unreadable (another user's process)
  fs.mkdirSync(path.join(proc, 'self'));
});
afterAll(() => fs.rmSync(proc, { recursive: true, force: true }));

test('a process whose command (or script) is a source\'s process name is found with its working folder', () => {
  const names = new Map([['claude', 'claude'], ['codex', 'codex'], ['gemini', 'gemini']]);
  const r = runningAssistants(names, proc);
  expect(r.checked).toBe(true);
  expect(r.found.sort((a, b) => a.pid - b.pid)).toEqual([
    { pid: 101, source: 'claude', cwd: '/home/ana/webapp' },
    { pid: 102, source: 'codex', cwd: '/home/ana/cli' },
  ]);
});

test('no /proc: nothing found, and it says so', () => {
  expect(runningAssistants(new Map([['claude', 'claude']]), path.join(proc, 'missing'))).toEqual({ checked: false, found: [] });
});
