import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The import graph's rules (DESIGN "Small rooms"): the kernel never imports a plugin; a plugin
 * imports only its own files, npm packages and the public plugin API (types only, so that one
 * kernel instance serves every plugin); nothing reaches into another plugin's internals.
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

test('the plugin API\'s runtime exports hold no kernel state: values come only from the pure helpers, the version, the tokens and the error codes', () => {
  // Plugins import these at run time (one kernel module serves them all), so none may carry per-kernel state.
  const stateless = new Set(['./api/pointer', './api/whitespace', './api/fake-clock', './api/testing', './version', './numbers/compare', './errors', './contracts']);
  const values = importsOf(path.join(REPO, 'src', 'kernel', 'plugin-api.ts')).filter((i) => !i.typeOnly && i.spec !== './contracts/plugin');
  expect(values.map((i) => i.spec).filter((s) => !stateless.has(s))).toEqual([]);
  const contracts = fs.readdirSync(path.join(REPO, 'src', 'kernel', 'contracts')).filter((f) => f.endsWith('.ts'));
  // The contracts' only runtime value is the token table.
  const runtime = contracts.filter((f) => /^export (const|function|class|let|enum) /m.test(fs.readFileSync(path.join(REPO, 'src', 'kernel', 'contracts', f), 'utf8')));
  expect(runtime).toEqual(['tokens.ts']);
});

test('src/ never imports a plugin (by path or by package name)', () => {
  const bad = tsFiles(path.join(REPO, 'src'))
    .flatMap(importsOf)
    .filter((i) => i.spec.startsWith('@mcpgw/') || (i.spec.startsWith('.') && resolveRel(i).startsWith('plugins')));
  expect(bad).toEqual([]);
});

test.each(plugins)('plugins/%s imports only its own files, npm packages and the plugin API', (plugin) => {
  const own = path.join('plugins', plugin);
  const bad = tsFiles(path.join(REPO, own, 'src'))
    .flatMap(importsOf)
    .filter((i) => {
      if (i.spec === 'mcpgw/plugin-api') return false;
      if (i.spec.startsWith('.')) return !resolveRel(i).startsWith(own + path.sep);
      if (i.spec.startsWith('@mcpgw/') || i.spec.startsWith('mcpgw')) return true;
      return false;
    });
  expect(bad).toEqual([]);
});

test('each plugin package has its own package.json with a @mcpgw/ name and a dist entry', () => {
  for (const plugin of plugins) {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'plugins', plugin, 'package.json'), 'utf8'));
    expect({ plugin, name: pkg.name, main: pkg.main }).toEqual({ plugin, name: `@mcpgw/${plugin}`, main: 'dist/index.js' });
  }
});
