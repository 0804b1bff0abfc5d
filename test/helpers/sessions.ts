import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The session fixtures: one home folder per source, written from the format notes (no real person's session). */
export const SESSION_FIXTURES = path.resolve(__dirname, '..', 'fixtures', 'sessions');

export const SOURCES = ['claude', 'codex', 'copilot', 'gemini', 'qwen', 'kimi'] as const;

/** Project folders the fixtures' sessions worked in; `old-api` is left out (a deleted project). */
export const PROJECT_FOLDERS = ['webapp', 'cli-tool', 'payments', 'imgsvc', 'dates', 'configsvc'];

export interface SessionHomes {
  /** The temp folder holding everything (remove it after). */
  dir: string;
  /** Where the project folders are (`@ROOT@` in the fixtures). */
  projects: string;
  /** Home folder per source. */
  homes: Record<(typeof SOURCES)[number], string>;
  /** MCPGW_<NAME>_HOME for every source. */
  env: Record<string, string>;
  /** Path of a fixture file once copied (relative to the fixtures folder, as in the repository). */
  file(rel: string): string;
  remove(): void;
}

/**
 * Copies the fixtures (default: the session fixtures, one home per source) into a temp folder: `@ROOT@` in file contents becomes the temp projects folder, a path segment
 * `@MD5(x)@` becomes the MD5 of `<projects>/x` (Kimi names session folders so), `-ROOT-` in folder names becomes the
 * projects folder encoded as Claude does. Every file's modification time is set to 2025-01-01 (nothing is active).
 */
export function materializeSessions(fixtures = SESSION_FIXTURES): SessionHomes {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-sessions-')));
  const projects = path.join(dir, 'projects');
  for (const p of PROJECT_FOLDERS) fs.mkdirSync(path.join(projects, p), { recursive: true });
  const encoded = projects.replace(/[/.]/g, '-');
  const mapSegment = (seg: string) =>
    seg.replace(/@MD5\(([^)]+)\)@/g, (_, rel: string) => createHash('md5').update(path.join(projects, rel)).digest('hex')).replace(/^-ROOT-/, `${encoded}-`);
  const old = new Date('2025-01-01T00:00:00Z');
  const copy = (from: string, to: string) => {
    for (const e of fs.readdirSync(from, { withFileTypes: true })) {
      const src = path.join(from, e.name);
      const dst = path.join(to, mapSegment(e.name));
      if (e.isDirectory()) {
        fs.mkdirSync(dst, { recursive: true });
        copy(src, dst);
      } else {
        fs.writeFileSync(dst, fs.readFileSync(src, 'utf8').split('@ROOT@').join(projects));
        fs.utimesSync(dst, old, old);
      }
    }
  };
  const homesDir = path.join(dir, 'homes');
  fs.mkdirSync(homesDir);
  copy(fixtures, homesDir);
  const homes = Object.fromEntries(SOURCES.map((s) => [s, path.join(homesDir, s)])) as SessionHomes['homes'];
  const env = Object.fromEntries(SOURCES.map((s) => [`MCPGW_${s.toUpperCase()}_HOME`, homes[s]]));
  return {
    dir,
    projects,
    homes,
    env,
    file: (rel) => path.join(homesDir, ...rel.split('/').map(mapSegment)),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** A config file enabling the sessions bundle as the default profile (plus `extra` keys). */
export function writeSessionsConfig(dir: string, extra: Record<string, unknown> = {}): string {
  const file = path.join(dir, 'mcpgw.json');
  fs.writeFileSync(file, JSON.stringify({ profiles: { default: { bundles: ['sessions'] } }, ...extra }));
  return file;
}
