import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The import graph's rules (docs/architecture.md "Small rooms"): the kernel hosts and never imports the engine, a
 * plugin, the plugin API's module, the composition root or the CLI; the engine computes and imports of the kernel only
 * its contracts, its errors and its clock; a plugin imports only its own files, npm packages, the public plugin API
 * (types only) and the plugin kit (a few stateless helpers, so that one kernel instance serves every plugin); nothing
 * reaches into another plugin's internals.
 */
const REPO = path.resolve(__dirname, '..');

function tsFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : tsFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

interface Import { file: string; spec: string; typeOnly: boolean }

function importsOf(file: string): Import[] {
  const src = fs.readFileSync(file, 'utf8');
  const out: Import[] = [];
  const re = /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|\brequire\(\s*['"]([^'"]+)['"]\s*\)|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const m of src.matchAll(re)) {
    const spec = m[3] ?? m[4] ?? m[5] ?? m[6];
    if (spec) out.push({ file: path.relative(REPO, file), spec, typeOnly: !!m[2] });
  }
  return out;
}

const resolveRel = (imp: Import) => path.relative(REPO, path.resolve(REPO, path.dirname(imp.file), imp.spec));
const plugins = fs.readdirSync(path.join(REPO, 'plugins')).filter((p) => fs.existsSync(path.join(REPO, 'plugins', p, 'package.json')));

test('the import scanner finds imports (guards the rules below against an empty scan)', () => {
  const kernelImports = tsFiles(path.join(REPO, 'src', 'kernel')).flatMap(importsOf);
  expect(kernelImports.length).toBeGreaterThan(50);
  expect(kernelImports.some((i) => i.spec === 'zod')).toBe(true);
});

test('mcpgw/plugin-api emits no runtime value: the contracts are types only', () => {
  // every export of the source is `export type`, and the built module (what `require('mcpgw/plugin-api')` gets) is empty
  const src = fs.readFileSync(path.join(REPO, 'src', 'plugin-api', 'index.ts'), 'utf8');
  expect(src.split('\n').filter((l) => /^export\b/.test(l) && !/^export type\b/.test(l))).toEqual([]);
  expect(importsOf(path.join(REPO, 'src', 'plugin-api', 'index.ts')).filter((i) => !i.typeOnly)).toEqual([]);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  expect(Object.keys(require(path.join(REPO, 'dist', 'plugin-api', 'index.js')))).toEqual([]);
});

test('mcpgw/plugin-kit has at most 20 runtime exports, all without kernel state', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const kit = Object.keys(require(path.join(REPO, 'dist', 'plugin-kit', 'index.js')));
  expect(kit.length).toBeLessThanOrEqual(20);
  expect(kit).toContain('definePlugin'); // the count reads the built module
  // Plugins import these at run time (one kernel module serves them all), so none may carry per-kernel state.
  const stateless = new Set(['../engine/paths/pointer', '../kernel/fake-clock', './register-plugin', './tool-tester', './exact-json', '../kernel/version', '../engine/numbers/compare', '../kernel/errors', '../kernel/contracts/tokens']);
  const values = importsOf(path.join(REPO, 'src', 'plugin-kit', 'index.ts')).filter((i) => !i.typeOnly);
  expect(values.map((i) => i.spec).filter((s) => !stateless.has(s))).toEqual([]);
  const contracts = fs.readdirSync(path.join(REPO, 'src', 'kernel', 'contracts')).filter((f) => f.endsWith('.ts'));
  // The contracts' only runtime value is the token table.
  const runtime = contracts.filter((f) => /^export (const|function|class|let|enum) /m.test(fs.readFileSync(path.join(REPO, 'src', 'kernel', 'contracts', f), 'utf8')));
  expect(runtime).toEqual(['tokens.ts']);
});

/** Non-test TypeScript lines under `dir` (every line, blank and comment lines too: `wc -l` of the .ts files). */
function lineCount(dir: string): number {
  return tsFiles(dir).reduce((n, f) => n + fs.readFileSync(f, 'utf8').split('\n').length - (fs.readFileSync(f, 'utf8').endsWith('\n') ? 1 : 0), 0);
}

const inside = (rel: string, dir: string) => rel === dir || rel.startsWith(dir + path.sep);
const K = path.join('src', 'kernel');

test('the kernel never imports the engine, the plugin API module, the composition root or the CLI (by path)', () => {
  const bad = tsFiles(path.join(REPO, K)).flatMap(importsOf).filter((i) => i.spec.startsWith('.') && !inside(resolveRel(i), K));
  expect(bad).toEqual([]);
  // the scan sees the kernel's imports of its own files
  expect(tsFiles(path.join(REPO, K)).flatMap(importsOf).filter((i) => i.spec.startsWith('.')).length).toBeGreaterThan(100);
});

test('the engine imports of the kernel only its contracts, its errors and its clock', () => {
  const allowed = (rel: string) => inside(rel, path.join(K, 'contracts')) || rel === path.join(K, 'errors') || rel === path.join(K, 'clock');
  const imports = tsFiles(path.join(REPO, 'src', 'engine')).flatMap(importsOf).filter((i) => i.spec.startsWith('.'));
  const bad = imports.filter((i) => { const rel = resolveRel(i); return !inside(rel, path.join('src', 'engine')) && !allowed(rel); });
  expect(bad).toEqual([]);
  expect(imports.filter((i) => inside(resolveRel(i), path.join(K, 'contracts'))).length).toBeGreaterThan(50);
});

test('no bundle is special: the kernel names no bundle, session source or embedder; "sessions" there are MCP (HTTP) sessions only', () => {
  const lines = tsFiles(path.join(REPO, K)).flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').map((l, i) => `${path.relative(REPO, f)}:${i + 1}: ${l}`));
  expect(lines.filter((l) => /tools-sessions|session[ -]?source|embedder|sessionsBundle|'sessions'|"sessions"|`sessions`/i.test(l))).toEqual([]);
  const mcpSessions = (l: string) => l.startsWith(path.join(K, 'http') + path.sep) || /2025-era|maxSessions/.test(l);
  expect(lines.filter((l) => /\bsessions\b/i.test(l.slice(l.indexOf(': ') + 2)) && !mcpSessions(l))).toEqual([]);
});

test('the kernel is at most 8,000 lines of non-test TypeScript', () => {
  // Counted as `find src/kernel -name '*.ts' | xargs cat | wc -l` counts: 18,504 before the engine moved out.
  const kernel = lineCount(path.join(REPO, K));
  expect(kernel).toBeLessThanOrEqual(8000);
  expect(kernel).toBeGreaterThan(3000); // the count reads the files
});

describe('one of each machine', () => {
  const code = () => [tsFiles(path.join(REPO, 'src')), ...plugins.map((p) => tsFiles(path.join(REPO, 'plugins', p, 'src')))].flat();
  const WALKER = path.join('src', 'engine', 'bytes', 'json-walk.ts');

  test('one JSON walker: no file but src/engine/bytes/json-walk.ts defines a string-end, value-end or whitespace scanner', () => {
    // a definition by one of the walker's usual names, a whitespace table, or the four-byte whitespace test
    const walker = /\b(function|const|let)\s+(stringEnd|valueEnd|skipValue|scalarEnd|isWs|isJsonWs|skipWs|isWhitespace)\b|\[0x20\]\s*=|=== 0x20 \|\| \w+ === 0x0[9ad]\b/;
    const found = code().filter((f) => walker.test(fs.readFileSync(f, 'utf8'))).map((f) => path.relative(REPO, f));
    // check-simd.ts assembles the aggregate's record check as WebAssembly SIMD instructions (no JavaScript walk to share);
    // the session digest's skim.ts checks every byte as JSON.parse does (control characters, escapes, numbers) while it
    // builds a projection on engine threads, where the walker (which follows brackets and strings of bytes known
    // well-formed) has nothing to check with
    expect(found.sort()).toEqual([path.join('plugins', 'tools-sessions', 'src', 'session', 'skim.ts'), path.join('src', 'engine', 'aggregate', 'check-simd.ts'), WALKER]);
  });

  test('one pool of worker threads: only src/engine/scan/engine-threads.ts starts one (scans, aggregates and plugins\' tasks share it)', () => {
    const found = code().filter((f) => /\bnew Worker\(/.test(fs.readFileSync(f, 'utf8'))).map((f) => path.relative(REPO, f));
    // Besides the pool, only the kernel's load watchdog (docs/architecture.md "Isolation and blame"): a thread that keeps
    // time while plugins load, started before any engine thread, which a busy main thread cannot block.
    expect(found.sort()).toEqual([path.join('src', 'engine', 'scan', 'engine-threads.ts'), path.join('src', 'kernel', 'plugins', 'load-watchdog.ts')]);
  });
});

test('src/ never imports a plugin (by path or by package name)', () => {
  const bad = tsFiles(path.join(REPO, 'src'))
    .flatMap(importsOf)
    .filter((i) => i.spec.startsWith('@mcpgw/') || (i.spec.startsWith('.') && resolveRel(i).startsWith('plugins')));
  expect(bad).toEqual([]);
});

test.each(plugins)('plugins/%s imports only its own files, npm packages, the plugin API and the plugin kit', (plugin) => {
  const own = path.join('plugins', plugin);
  const bad = tsFiles(path.join(REPO, own, 'src'))
    .flatMap(importsOf)
    .filter((i) => {
      if (i.spec === 'mcpgw/plugin-api' || i.spec === 'mcpgw/plugin-kit') return false;
      if (i.spec.startsWith('.')) return !resolveRel(i).startsWith(own + path.sep);
      if (i.spec.startsWith('@mcpgw/') || i.spec.startsWith('mcpgw')) return true;
      return false;
    });
  expect(bad).toEqual([]);
});

/**
 * A plugin's tests (plugins/NAME/test) are not the plugin: they stand in for the host that loads it. So besides what
 * the plugin may import they may reach the shared test harness (test/helpers, test/setup, test/fixtures) and mcpgw's
 * own source (src/: the kernel and engine a test builds a context from), and another built-in plugin through its entry
 * (plugins/OTHER/src/index, as the host loads it) — never another plugin's internals, except the named tests below,
 * each checking a meaning two plugins must share. The rule above for plugin source is unchanged; nothing under
 * plugins/NAME/src may import a test file.
 */
const SHARED_MEANING_TESTS: Record<string, string[]> = {
  // explore and jsonpath agree on which numerals are integers, how strings order and how long they are
  [path.join('plugins', 'tools-explore', 'test', 'answers-meaning.test.ts')]: [path.join('plugins', 'query-jsonpath', 'src', 'exact'), path.join('plugins', 'query-jsonpath', 'src', 'compile')],
  // the explorer's probe and the reader's full validation of a source without its own validate
  [path.join('plugins', 'tools-explore', 'test', 'validate-fallback.test.ts')]: [path.join('plugins', 'tools-reader', 'src', 'validate')],
};

test.each(plugins)('plugins/%s/test imports the plugin, the plugin API and kit, the test harness, src/ and other plugins\' entries', (plugin) => {
  const own = path.join('plugins', plugin);
  const harness = ['helpers', 'setup', 'fixtures'].map((d) => path.join('test', d));
  const imports = tsFiles(path.join(REPO, own, 'test')).flatMap(importsOf);
  const bad = imports.filter((i) => {
    if (!i.spec.startsWith('.')) return i.spec.startsWith('@mcpgw/') || (i.spec.startsWith('mcpgw') && i.spec !== 'mcpgw/plugin-api' && i.spec !== 'mcpgw/plugin-kit');
    const rel = resolveRel(i);
    if (inside(rel, own) || inside(rel, 'src') || harness.some((h) => inside(rel, h))) return false;
    const other = /^plugins[\\/]([^\\/]+)[\\/]src(?:[\\/]index(?:\.ts)?)?$/.exec(rel);
    if (other && plugins.includes(other[1]!)) return false;
    return !(SHARED_MEANING_TESTS[i.file] ?? []).includes(rel);
  });
  expect(bad).toEqual([]);
  expect(imports.filter((i) => i.spec.startsWith('.')).length).toBeGreaterThan(0); // the scan sees them
  // and the plugin's source never reaches its tests
  expect(tsFiles(path.join(REPO, own, 'src')).flatMap(importsOf).filter((i) => i.spec.startsWith('.') && inside(resolveRel(i), path.join(own, 'test')))).toEqual([]);
});

test('src/kernel/contracts imports only its own files, the error catalogue and types from npm packages', () => {
  const own = path.join('src', 'kernel', 'contracts');
  const bad = tsFiles(path.join(REPO, own))
    .flatMap(importsOf)
    .filter((i) => {
      if (i.spec.startsWith('.')) return !(resolveRel(i).startsWith(own + path.sep) || resolveRel(i) === path.join('src', 'kernel', 'errors'));
      return !i.typeOnly;
    });
  expect(bad).toEqual([]);
});

test('each plugin package has its own package.json with a @mcpgw/ name and a dist entry', () => {
  for (const plugin of plugins) {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'plugins', plugin, 'package.json'), 'utf8'));
    expect({ plugin, name: pkg.name, main: pkg.main }).toEqual({ plugin, name: `@mcpgw/${plugin}`, main: 'dist/index.js' });
  }
});

/**
 * The design of record is docs/architecture.md: code, tests, benchmarks and docs never cite a design document outside
 * the repository nor an issue number, and every reference into it (its path, then a heading in double quotes) names one
 * of its headings.
 */
describe('references point into docs/architecture.md', () => {
  const TEXT = /\.(ts|mts|cts|js|mjs|cjs|md)$/;
  function textFiles(dir: string): string[] {
    if (!fs.existsSync(dir)) return [];
    if (fs.statSync(dir).isFile()) return [dir];
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return ['node_modules', 'dist', 'results'].includes(e.name) ? [] : textFiles(p);
      return TEXT.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
    });
  }
  const files = ['src', 'plugins', 'test', 'bench', 'docs', 'README.md'].flatMap((d) => textFiles(path.join(REPO, d)));
  const THIS = path.join(REPO, 'test', 'architecture.test.ts');
  /** `[file:line, text]` of every line matching `re`, outside this file (which spells the patterns). */
  const grep = (re: RegExp) => files.filter((f) => f !== THIS).flatMap((f) => fs.readFileSync(f, 'utf8').split('\n')
    .flatMap((line, i) => (re.test(line) ? [`${path.relative(REPO, f)}:${i + 1}: ${line.trim()}`] : [])));

  test('the scan covers the code, the tests and the docs', () => {
    const rel = files.map((f) => path.relative(REPO, f));
    expect(rel).toEqual(expect.arrayContaining(['src/kernel/errors.ts', 'test/helpers/shared.ts', 'docs/architecture.md', 'README.md', 'bench/run.mjs']));
    expect(rel.some((f) => f.startsWith('plugins/tools-explore/src/'))).toBe(true);
  });

  test('no reference to an outside design document', () => {
    expect(grep(/DESIGN|design card|\.\.\/shared\/[A-Za-z]/)).toEqual([]);
  });

  test('no issue numbers', () => {
    expect(grep(/(^|[^&\w])#[0-9]{1,4}\b|\bissues? #?[0-9]+\b/i)).toEqual([]);
  });

  test('docs/architecture.md is the short design of record (at most 250 lines); the decision log is docs/decisions.md', () => {
    expect(fs.readFileSync(path.join(REPO, 'docs', 'architecture.md'), 'utf8').split('\n').length - 1).toBeLessThanOrEqual(250);
    expect(fs.readFileSync(path.join(REPO, 'docs', 'decisions.md'), 'utf8')).toMatch(/^## Memory is given back at close$/m);
  });

  test('every reference into docs/architecture.md names one of its headings', () => {
    const headings = new Set([...fs.readFileSync(path.join(REPO, 'docs', 'architecture.md'), 'utf8').matchAll(/^#{2,4} (.+)$/gm)].map((m) => m[1]!.trim()));
    const refs = files.flatMap((f) => [...fs.readFileSync(f, 'utf8').matchAll(/architecture\.md\s*(?:\*\s*)?"([^"]+)"/g)]
      .map((m) => ({ file: path.relative(REPO, f), section: m[1]!.replace(/\s+/g, ' ') })));
    expect(refs.length).toBeGreaterThan(20);
    expect(refs.filter((r) => !headings.has(r.section))).toEqual([]);
  });
});

/** The tables of docs/architecture.md that restate code are checked against it, so they cannot go stale. */
describe('docs/architecture.md tables match the code', () => {
  const doc = fs.readFileSync(path.join(REPO, 'docs', 'architecture.md'), 'utf8');
  /** The rows (cells) of the first table after the heading `## name`. */
  function table(name: string): string[][] {
    const start = doc.indexOf(`\n## ${name}\n`);
    expect(start).toBeGreaterThan(-1);
    const end = doc.indexOf('\n## ', start + 4);
    const lines = doc.slice(start, end === -1 ? undefined : end).split('\n');
    const first = lines.findIndex((l) => l.startsWith('| '));
    const rows: string[][] = [];
    for (const line of lines.slice(first + 2)) {
      if (!line.startsWith('|')) break;
      rows.push(line.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim()));
    }
    return rows;
  }

  test('"Error results" lists exactly the catalogue of src/kernel/errors.ts, in order, each with when it is used', () => {
    const { ERROR_CODES } = require('../src/kernel/errors') as typeof import('../src/kernel/errors');
    const rows = table('Error results');
    expect(rows.map((r) => r[0])).toEqual([...ERROR_CODES]);
    for (const r of rows) expect(r[1]!.length).toBeGreaterThan(10);
  });

  test('"Configuration" lists every limit of the limits schema, in order, with its default', () => {
    const { limitsSchema } = require('../src/kernel/config/schema') as typeof import('../src/kernel/config/schema');
    const { DEFAULT_LIMITS } = require('../src/kernel/config/defaults') as typeof import('../src/kernel/config/defaults');
    const rows = table('Configuration');
    expect(rows.map((r) => r[0])).toEqual(Object.keys(limitsSchema.shape));
    expect(Object.keys(DEFAULT_LIMITS)).toEqual(Object.keys(limitsSchema.shape));
    const value = (text: string): number | null => {
      if (text === 'none') return null;
      const m = /^(\d+) (KiB|MiB)$/.exec(text);
      return m ? Number(m[1]) * (m[2] === 'KiB' ? 1024 : 1024 * 1024) : Number(text);
    };
    expect(Object.fromEntries(rows.map((r) => [r[0], value(r[1]!)]))).toEqual(DEFAULT_LIMITS);
    for (const r of rows) expect(r[2]!.length).toBeGreaterThan(10);
  });
});
