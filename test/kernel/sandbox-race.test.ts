/**
 * The sandbox against a writer inside the root who swaps a folder for a symlink to a folder outside it, and back,
 * as fast as it can (another process), while files under that folder are opened, read and listed. The path is
 * checked, then opened; what was opened is checked again through the descriptor (the kernel's own name for it), and
 * content is read only through that descriptor: no read, no listed name and no size may come from outside the root.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { McpgwError } from '../../src/kernel/errors';
import { listFiles } from '../../src/kernel/files/list-files';
import { closeQuietly, openInSandbox, readHead } from '../../src/kernel/files/open-file';
import { Sandbox } from '../../src/kernel/files/sandbox';

const INSIDE = '{"inside":true}\n';
const SECRET = '{"secret":"outside the root, never to be read"}\n';
const RUN_MS = 3000;

let tmp: string;
let root: string;
let attacker: ChildProcess | undefined;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-race-')));
  root = path.join(tmp, 'root');
  fs.mkdirSync(path.join(root, 'd', 'sub'), { recursive: true });
  fs.writeFileSync(path.join(root, 'd', 'f.jsonl'), INSIDE);
  fs.writeFileSync(path.join(root, 'd', 'sub', 'g.jsonl'), INSIDE);
  fs.mkdirSync(path.join(tmp, 'outside', 'sub'), { recursive: true });
  fs.writeFileSync(path.join(tmp, 'outside', 'f.jsonl'), SECRET);
  fs.writeFileSync(path.join(tmp, 'outside', 'sub', 'g.jsonl'), SECRET);
  fs.writeFileSync(path.join(tmp, 'outside', 'only-outside.jsonl'), SECRET);
});
afterAll(() => {
  if (attacker?.exitCode === null) attacker.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Starts the swapping process; resolves once it has swapped at least once. */
function startAttacker(): Promise<ChildProcess> {
  const script = `
    const fs = require('fs');
    const [d, keep, out] = process.argv.slice(1);
    let n = 0;
    for (const end = Date.now() + 25000; Date.now() < end;) {
      fs.renameSync(d, keep);
      fs.symlinkSync(out, d);
      if (++n === 1) process.stdout.write('go\\n');
      fs.unlinkSync(d);
      fs.renameSync(keep, d);
      for (let k = (n % 8) * 5000; k > 0; k--); // the folder stays a little while, longer or shorter
    }`;
  const child = spawn(process.execPath, ['-e', script, path.join(root, 'd'), path.join(root, 'd.keep'), path.join(tmp, 'outside')], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`the attacker exited early (${code})`)));
  });
}

test(`a folder swapped for a symlink out of the root, again and again for ${RUN_MS / 1000} s: zero reads and zero listings outside`, async () => {
  const sandbox = new Sandbox(root);
  attacker = await startAttacker();
  let reads = 0, refused = 0, escapes = 0, listings = 0, listedOutside = 0;
  // At least RUN_MS, and on a loaded machine on until both outcomes were seen enough, for as long as the attacker
  // swaps (25 s of its own; no bound of ours in ms, which a loaded machine outlasts).
  const start = Date.now();
  const enough = () => reads >= 50 && refused >= 50 && listings >= 1;
  let turn = 0;
  while (Date.now() - start < RUN_MS || (!enough() && attacker.exitCode === null)) {
    if (++turn % 20 === 0) {
      try {
        const listing = await listFiles(sandbox, [], 'd');
        listings++;
        for (const f of listing.files) if (f.path.includes('only-outside') || f.size !== INSIDE.length) listedOutside++;
        // An entry may vanish while its folder is swapped; whatever is listed is inside.
        for (const f of listing.files) expect(['d/f.jsonl', 'd/sub/g.jsonl']).toContain(f.path);
      } catch (err) {
        if (!(err instanceof McpgwError)) throw err;
        expect(['ACCESS_DENIED', 'NOT_FOUND']).toContain(err.code);
      }
      continue;
    }
    for (const p of ['d/f.jsonl', 'd/sub/g.jsonl']) {
      let opened;
      try {
        opened = openInSandbox(sandbox, p);
      } catch (err) {
        if (!(err instanceof McpgwError)) throw err;
        if (!['ACCESS_DENIED', 'NOT_FOUND'].includes(err.code)) throw new Error(`${err.code}: ${err.message}`);
        refused++;
        continue;
      }
      try {
        const text = readHead(opened, 4096).toString();
        if (text === SECRET) escapes++;
        else expect(text).toBe(INSIDE);
        expect(sandbox.contains(opened.realPath)).toBe(true);
        reads++;
      } finally {
        closeQuietly(opened.fd);
      }
    }
  }
  attacker.kill('SIGKILL');
  expect({ escapes, listedOutside }).toEqual({ escapes: 0, listedOutside: 0 });
  // The race was real: both outcomes happened many times.
  expect(reads).toBeGreaterThanOrEqual(50);
  expect(refused).toBeGreaterThanOrEqual(50);
  expect(listings).toBeGreaterThanOrEqual(1);
}, 60_000);
