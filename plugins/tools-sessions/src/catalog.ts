import { lstatSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Logger, SessionProject, SessionSource } from 'mcpgw/plugin-api';
import type { SourceHome } from './homes';
import { reason } from './os-error';

/** One session as listed: its files, their total size and newest modification. */
export interface CatalogSession {
  source: string;
  projectId: string;
  projectName: string;
  projectPath: string | null;
  id: string;
  /** The session's (first) file, absolute. */
  path: string;
  /** Every file of the session in reading order. */
  files: string[];
  /** Bytes of all its files. */
  size: number;
  /** Newest modification of its files, ms since the epoch. */
  mtimeMs: number;
  /** Creation (birth) time of its first file when the platform records it, else its modification time; ms. */
  birthMs: number;
  /** Each file's identity as looked at when listed (same order as `files`), when the listing has it. */
  fileStats?: FileStat[];
  /** A subagent's transcript: the id of the session that started it. */
  parentId?: string;
  /** A fork: the id of the session it was copied from. */
  forkedFrom?: string;
  /** Archived by the assistant (Codex `archived_sessions/`). */
  archived?: boolean;
  /** The title the assistant's own index gives (Codex `session_index.jsonl`). */
  title?: string;
}

/** A file's identity and size as `stat` gave them. */
export interface FileStat {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** Change time (ctime), ms: a rewrite in place moves it even when the size and the modification time are put back. */
  ctimeMs: number;
}

export interface CatalogProject {
  source: string;
  id: string;
  name: string;
  path: string | null;
  /** Whether the project folder still exists (null when the source does not record it). */
  pathExists: boolean | null;
  sessions: CatalogSession[];
}

export interface Catalog {
  projects: CatalogProject[];
  /** Sources whose discovery failed, with the reason (the others are listed). */
  failures: { source: string; message: string }[];
}

/** What the sources' discovery found, before the files are looked at (kept for a moment: listing is the slow part). */
export interface Discovery {
  found: { home: SourceHome; projects: SessionProject[] }[];
  failures: Catalog['failures'];
}

/** Runs every available source's discovery (optionally one source's). A source that fails is reported, not fatal. */
export async function discover(homes: readonly SourceHome[], options: { source?: string; signal?: AbortSignal; log?: Logger } = {}): Promise<Discovery> {
  const found: Discovery['found'] = [];
  const failures: Catalog['failures'] = [];
  for (const h of homes) {
    if (!h.available || !h.realHome) continue;
    if (options.source !== undefined && h.source.name !== options.source) continue;
    try {
      found.push({ home: h, projects: await h.source.discover(h.home, { signal: options.signal }) });
    } catch (err) {
      failures.push({ source: h.source.name, message: reason(err) });
      options.log?.warn('session source discovery failed', { source: h.source.name, error: String(err) });
    }
  }
  return { found, failures };
}

/**
 * The catalog of a discovery with every session file looked at now (size, modification time): sessions newest
 * first. Session files that are not regular files lying inside their source's home are left out.
 */
export function catalogOf(d: Discovery): Catalog {
  const projects: CatalogProject[] = [];
  for (const { home: h, projects: found } of d.found) {
    for (const p of found) {
      const sessions: CatalogSession[] = [];
      for (const s of p.sessions) {
        const files = s.files?.length ? s.files : [s.path];
        const stats = files.map((f) => statInside(f, h));
        if (stats.some((st) => st === null)) continue;
        sessions.push({
          source: h.source.name,
          projectId: p.id,
          projectName: p.name,
          projectPath: p.path,
          id: s.id,
          path: files.includes(s.path) ? s.path : files[0]!,
          files,
          size: stats.reduce((a, st) => a + st!.size, 0),
          mtimeMs: Math.max(...stats.map((st) => st!.mtimeMs)),
          birthMs: stats[0]!.birthtimeMs > 0 ? stats[0]!.birthtimeMs : stats[0]!.mtimeMs,
          fileStats: stats.map((st) => ({ dev: st!.dev, ino: st!.ino, size: st!.size, mtimeMs: st!.mtimeMs, ctimeMs: st!.ctimeMs })),
          ...(s.parent_id ? { parentId: s.parent_id } : {}),
          ...(s.forked_from ? { forkedFrom: s.forked_from } : {}),
          ...(s.archived ? { archived: true } : {}),
          ...(s.title ? { title: s.title } : {}),
        });
      }
      if (sessions.length === 0) continue;
      sessions.sort(newestFirst);
      projects.push({ source: h.source.name, id: p.id, name: p.name, path: p.path, pathExists: p.path === null ? null : isFolder(p.path), sessions });
    }
  }
  return { projects, failures: d.failures };
}

/** Newest modification first; ties by path, so the order is deterministic. */
export function newestFirst(a: CatalogSession, b: CatalogSession): number {
  return b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

/** The file's stat when it is a regular file (not a link) whose path lies lexically inside the home. */
function statInside(file: string, h: SourceHome) {
  if (!within(file, h.home) && !(h.realHome && within(file, h.realHome))) return null;
  try {
    const st = lstatSync(file, { throwIfNoEntry: false });
    return st?.isFile() ? st : null;
  } catch {
    return null;
  }
}

/** Whether `file` lies strictly inside `folder` (lexically; `..` segments resolved). */
function within(file: string, folder: string): boolean {
  const f = file.includes(`${path.sep}.`) || !path.isAbsolute(file) ? path.resolve(file) : file;
  const base = folder.endsWith(path.sep) ? folder : folder + path.sep;
  return f.length > base.length && f.startsWith(base);
}

function isFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The session a response's usage is counted in: a subagent's or fork's records are deduplicated with those of the
 * session it descends from (a fork replays its parent's history, usage records included, and two forks of one parent
 * replay the same records), so the scope is the root of its parent/fork chain within the source.
 */
export function usageRoots(projects: readonly CatalogProject[]): Map<string, string> {
  const up = new Map<string, string>();
  for (const p of projects) for (const s of p.sessions) {
    const parent = s.parentId ?? s.forkedFrom;
    if (parent && parent !== s.id) up.set(`${p.source}\n${s.id}`, parent);
  }
  const roots = new Map<string, string>();
  for (const key of up.keys()) {
    const source = key.slice(0, key.indexOf('\n'));
    let id = key.slice(source.length + 1);
    const seen = new Set<string>();
    while (up.has(`${source}\n${id}`) && !seen.has(id)) { seen.add(id); id = up.get(`${source}\n${id}`)!; }
    roots.set(key, id);
  }
  return roots;
}

/** The source named `name` among the homes, or undefined. */
export function sourceOf(homes: readonly SourceHome[], name: string): SessionSource | undefined {
  return homes.find((h) => h.source.name === name)?.source;
}
