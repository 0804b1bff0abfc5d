import { existsSync, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Which plugin's code raised a fault, read from the fault's stack (docs/architecture.md "Isolation and blame"): each
 * loaded plugin owns a folder (its package) or, loaded by the path of a single file, that file; the first stack
 * frame in one of them names the plugin. A fault thrown in a format's batches called by the explorer's tool is the
 * format's plugin's; a fault in engine code a plugin called is that plugin's. Used on the main thread (the registry)
 * and on worker threads (each knows its own plugin).
 */
export class Blame {
  private readonly roots: { root: string; name: string; file: boolean }[] = [];

  /** `root`: the plugin's package folder, or its file (pluginRoot). */
  add(name: string, root: string): void {
    const file = existsSync(root) && statSync(root).isFile();
    this.roots.push({ root, name, file });
    this.roots.sort((a, b) => b.root.length - a.root.length); // the innermost first (a plugin inside another's folder)
  }

  /** The plugin whose code is the first frame of `err`'s stack that lies in a plugin; undefined when none does. */
  of(err: unknown): string | undefined {
    const stack = typeof err === 'object' && err !== null ? (err as { stack?: unknown }).stack : undefined;
    if (typeof stack !== 'string' || this.roots.length === 0) return undefined;
    for (const file of stackFiles(stack)) {
      for (const r of this.roots) {
        if (r.file ? file === r.root : file.startsWith(r.root + path.sep) && !file.slice(r.root.length).includes(`${path.sep}node_modules${path.sep}`)) return r.name;
      }
    }
    return undefined;
  }
}

/** The files of a V8 stack's frames, in order (`at f (/a/b.js:1:2)`, `at /a/b.js:1:2`, `at f (file:///a/b.mjs:1:2)`). */
export function stackFiles(stack: string): string[] {
  const files: string[] = [];
  for (const line of stack.split('\n')) {
    const m = /^\s*at (?:.*?\()?((?:file:\/\/)?\/[^():]*|[A-Za-z]:\\[^():]*):\d+:\d+\)?\s*$/.exec(line);
    if (!m) continue;
    let file = m[1]!;
    if (file.startsWith('file://')) {
      try { file = fileURLToPath(file); } catch { continue; }
    }
    files.push(file);
  }
  return files;
}

/**
 * The folder (or file) a plugin's code lives in: a plugin given as the path of a file is that file (its real path);
 * one given as a folder or a package name is the package holding its entry (the nearest folder with a package.json).
 */
export function pluginRoot(specId: string, fromDir: string, entry: string, isPath: boolean): string {
  const real = (p: string) => { try { return realpathSync(p); } catch { return p; } };
  if (isPath) {
    const given = path.resolve(fromDir, specId);
    if (!(existsSync(given) && statSync(given).isDirectory())) return real(entry);
  }
  let dir = path.dirname(real(entry));
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return path.dirname(real(entry));
    dir = up;
  }
}
