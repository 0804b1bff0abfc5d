import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** A clean environment for child processes: no npm_* variables from an outer `npm test`. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^npm_/i.test(k) && k !== 'INIT_CWD') env[k] = v;
  return { ...env, ...extra };
}

/** Runs a command to its end: its exit status and output. */
export function run(cmd: string, args: string[], cwd: string, timeout = 120_000) {
  const r = spawnSync(cmd, args, { cwd, env: cleanEnv(), encoding: 'utf8', timeout });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs a command that must succeed; its stdout. */
export function ok(cmd: string, args: string[], cwd: string): string {
  const r = run(cmd, args, cwd);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** `npm pack` of the package in `dir` into `into`; the tarball's path. */
export function pack(dir: string, into: string): string {
  fs.mkdirSync(into, { recursive: true });
  const out = ok('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', into], dir);
  const [{ filename }] = JSON.parse(out) as { filename: string }[];
  return path.join(into, filename);
}

/** Copies a package folder to `to` (outside the repository, so npm sees no workspace around it), without dist/ and node_modules/. */
export function stage(from: string, to: string): string {
  fs.cpSync(from, to, { recursive: true, filter: (p) => !p.includes(`${path.sep}dist`) && !p.includes('node_modules') });
  return to;
}

/** `npm install` arguments for tarballs into a scratch project: no audit, no scripts, the cache first. */
export const INSTALL = ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', '--loglevel=error'];
