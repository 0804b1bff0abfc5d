import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Finds the entry file of a plugin given as a path or an npm package name.
 * - A path (starting with `.`, `/` or a drive letter) is resolved against `fromDir`: a file is its
 *   own entry, a folder is read as a package.
 * - A package name is looked up in `node_modules` folders walking up from each of `searchDirs`
 *   in order (the config file's folder first, then mcpgw's own), like Node does.
 * A package's entry is its `exports["."]` under the `import`, `node`, `require` or `default`
 * condition, else `main`, else `index.js` — so ESM-only and CommonJS packages both resolve.
 * Returns null when nothing is found.
 */
export function resolvePluginModule(spec: string, fromDir: string, searchDirs: readonly string[]): string | null {
  if (isPathSpec(spec)) {
    const p = path.resolve(fromDir, spec);
    if (!existsSync(p)) {
      for (const ext of ['.js', '.mjs', '.cjs']) if (existsSync(p + ext)) return p + ext;
      return null;
    }
    return statSync(p).isDirectory() ? packageEntry(p) : p;
  }
  const { name, subpath } = splitPackageSpec(spec);
  for (const start of searchDirs) {
    let dir = path.resolve(start);
    for (;;) {
      const candidate = path.join(dir, 'node_modules', name);
      if (existsSync(path.join(candidate, 'package.json'))) {
        return subpath ? path.join(candidate, subpath) : packageEntry(candidate);
      }
      const up = path.dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  return null;
}

export function isPathSpec(spec: string): boolean {
  return spec.startsWith('.') || path.isAbsolute(spec);
}

function splitPackageSpec(spec: string): { name: string; subpath: string } {
  const parts = spec.split('/');
  const n = spec.startsWith('@') ? 2 : 1;
  return { name: parts.slice(0, n).join('/'), subpath: parts.slice(n).join('/') };
}

function packageEntry(dir: string): string | null {
  const pkgPath = path.join(dir, 'package.json');
  if (!existsSync(pkgPath)) {
    const index = path.join(dir, 'index.js');
    return existsSync(index) ? index : null;
  }
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { exports?: unknown; main?: string };
  const fromExports = pickExport(pkg.exports);
  const rel = fromExports ?? pkg.main ?? 'index.js';
  const entry = path.resolve(dir, rel);
  if (existsSync(entry) && statSync(entry).isFile()) return entry;
  for (const ext of ['.js', '.mjs', '.cjs']) if (existsSync(entry + ext)) return entry + ext;
  if (existsSync(path.join(entry, 'index.js'))) return path.join(entry, 'index.js');
  return null;
}

function pickExport(exp: unknown): string | null {
  if (exp === undefined || exp === null) return null;
  if (typeof exp === 'string') return exp;
  if (Array.isArray(exp)) {
    for (const e of exp) { const r = pickExport(e); if (r) return r; }
    return null;
  }
  if (typeof exp === 'object') {
    const o = exp as Record<string, unknown>;
    if ('.' in o) return pickExport(o['.']);
    for (const cond of ['import', 'node', 'require', 'default']) {
      if (cond in o) { const r = pickExport(o[cond]); if (r) return r; }
    }
  }
  return null;
}
