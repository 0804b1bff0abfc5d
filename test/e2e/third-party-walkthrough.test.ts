/**
 * docs/writing-plugins.md, run as written: every ```sh block is executed in order (in one temp
 * folder, `cd` carried from block to block), every block with `file=PATH` is written there, every
 * ```text block must appear in the output of the sh block before it (whitespace runs collapsed), and
 * the ```json tools/call block is called through a real MCP client against the walkthrough's own
 * installed mcpgw. mcpgw is not on a registry: the commands install `$MCPGW_TARBALL`, set to a
 * tarball of this repository (`npm pack`, built-ins bundled). Registry packages (typescript,
 * @types/node, zod) come from the npm registry or npm's cache.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, NODE, REPO } from '../helpers/mcp';

const DOC = path.join(REPO, 'docs', 'writing-plugins.md');

interface Block { lang: string; info: string; body: string; line: number }

/** Fenced code blocks with a language, in document order. */
function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [lang = '', ...rest] = open[1]!.trim().split(/\s+/);
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && lines[j] !== '```') body.push(lines[j++]!);
    if (lang) out.push({ lang, info: rest.join(' '), body: body.join('\n') + '\n', line: i + 1 });
    i = j;
  }
  return out;
}

const squash = (s: string) => s.replace(/[ \t]+/g, ' ').trim();

let tmp: string;
beforeAll(() => {
  if (!fs.existsSync(path.join(REPO, 'dist', 'cli', 'main.js'))) throw new Error('Build first: npx tsc -b (npm test does it).');
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-walk-')));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('docs/writing-plugins.md: the walkthrough runs as written, from npm init to a tool call through an MCP client', async () => {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^npm_/i.test(k) && k !== 'INIT_CWD') env[k] = v;
  Object.assign(env, {
    PATH: `${path.dirname(NODE)}${path.delimiter}${process.env.PATH ?? ''}`, // `#!/usr/bin/env node` finds Node 22
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_loglevel: 'error',
  });
  const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], { cwd: REPO, env, encoding: 'utf8' });
  expect(packed.status).toBe(0);
  const tarball = path.join(tmp, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  const work = path.join(tmp, 'work');
  fs.mkdirSync(work);

  const markdown = fs.readFileSync(DOC, 'utf8');
  const reference = markdown.split('\n').indexOf('## Reference') + 1;
  expect(reference).toBeGreaterThan(0);
  const walkthrough = blocks(markdown).filter((b) => b.line < reference);
  expect(walkthrough.filter((b) => b.lang === 'sh').length).toBeGreaterThanOrEqual(5);
  expect(walkthrough.some((b) => b.info === 'file=src/index.ts')).toBe(true);

  let cwd = work;
  let lastOutput = '';
  let called = 0;
  const cwdFile = path.join(tmp, '.cwd');
  for (const block of walkthrough) {
    const where = `docs/writing-plugins.md:${block.line}`;
    if (block.lang === 'sh') {
      const script = `set -e\n${block.body}\npwd > ${JSON.stringify(cwdFile)}\n`;
      const r = spawnSync('bash', ['-c', script], { cwd, env: { ...env, MCPGW_TARBALL: tarball }, encoding: 'utf8', timeout: 180_000 });
      if (r.status !== 0) throw new Error(`${where}: the sh block exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
      cwd = fs.readFileSync(cwdFile, 'utf8').trim();
      lastOutput = r.stdout;
    } else if (block.info.startsWith('file=')) {
      const file = path.join(cwd, block.info.slice('file='.length));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, block.body);
    } else if (block.lang === 'text') {
      for (const line of block.body.split('\n').filter((l) => l.trim())) {
        expect({ where, output: squash(lastOutput).includes(squash(line)) ? 'contains' : lastOutput }).toEqual({ where, output: 'contains' });
      }
    } else if (block.info === 'tools/call') {
      const { name, arguments: args, structuredContent } = JSON.parse(block.body) as { name: string; arguments: Record<string, unknown>; structuredContent: unknown };
      const conn = await connect([], { cwd, cli: path.join(cwd, 'node_modules', 'mcpgw', 'bin', 'mcpgw.js') });
      try {
        const res = await call(conn.client, name, args);
        expect({ where, isError: res.isError, data: res.data }).toEqual({ where, isError: false, data: structuredContent });
        expect(conn.stderr()).toBe('');
      } finally {
        await conn.close();
      }
      called++;
    }
  }
  expect(called).toBe(1);
  // the walkthrough ended in the second project, which loads the plugin by package name
  expect(path.basename(cwd)).toBe('team-gateway');
  expect(fs.existsSync(path.join(cwd, 'node_modules', 'mcpgw-tools-count', 'dist', 'index.js'))).toBe(true);
}, 300_000);
