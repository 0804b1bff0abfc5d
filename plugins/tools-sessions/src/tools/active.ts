import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import type { ToolDefinition } from 'mcpgw/plugin-api';
import type { CatalogProject, CatalogSession } from '../catalog';
import type { SessionsService } from '../service';
import { cutSchema, fitting, iso, itemBudget, limitArg, offsetArg, pageLimit, type Cut } from './shared';

/** A session modified this recently counts as active, ms. */
export const ACTIVE_WINDOW_MS = 5 * 60 * 1000;

const input = z.object({ limit: limitArg(50, 'Sessions'), offset: offsetArg });
const output = z.object({
  sessions: z.array(z.object({
    session_id: z.string().nullable(),
    source: z.string(),
    project_path: z.string().nullable(),
    session_path: z.string().nullable(),
    last_modified: z.string().nullable(),
    method: z.enum(['file_modified', 'process', 'process+file_modified', 'process_file', 'process_file+file_modified']).describe(
      'How it was found: its file changed in the last 5 minutes (file_modified); a running process names it in the file the assistant keeps per process or holds it open (process_file: Claude Code\'s sessions/<pid>.json, Copilot\'s inuse.<pid>.lock, the rollout a Codex process keeps open); a running process works in its project and it is the newest session no other process claims (process); or both'),
    pid: z.number().int().optional().describe('The process: one row per running process'),
  })),
  total: z.number().int(),
  has_more: z.boolean(),
  next_offset: z.number().int().optional(),
  processes_checked: z.boolean().describe('false where running processes cannot be listed (no /proc)'),
  cut: cutSchema.optional(),
});

type Row = z.infer<typeof output>['sessions'][number];

/** A running process: its pid, the source whose assistant it runs, and its working folder. */
export interface RunningAssistant { pid: number; source: string; cwd: string }

/** What an assistant's per-process file says: the process and the session it has open. */
export interface ProcessFile { pid: number; source: string; sessionId: string; cwd?: string; procStart?: string }

/**
 * The files assistants keep per running process, naming its session: Claude Code's `<home>/sessions/<pid>.json`
 * (`{pid, sessionId, cwd, procStart}`, procStart being field 22 of /proc/<pid>/stat: a reused pid does not match;
 * older `pid-<n>.json` with `session_id`) and Copilot CLI's `<home>/session-state/<session id>/inuse.<pid>.lock`.
 */
export function processFiles(source: string, home: string): ProcessFile[] {
  const out: ProcessFile[] = [];
  if (source === 'claude') {
    const dir = path.join(home, 'sessions');
    for (const e of safeList(dir)) {
      const m = /^(?:pid-)?(\d+)\.json$/.exec(e);
      if (!m) continue;
      let data: Record<string, unknown>;
      try { data = JSON.parse(readFileSync(path.join(dir, e), 'utf8').slice(0, 64 * 1024)); } catch { continue; }
      const sessionId = typeof data.sessionId === 'string' ? data.sessionId : typeof data.session_id === 'string' ? data.session_id : undefined;
      const pid = typeof data.pid === 'number' ? data.pid : Number(m[1]);
      if (!sessionId || !Number.isInteger(pid)) continue;
      out.push({ pid, source, sessionId, ...(typeof data.cwd === 'string' ? { cwd: data.cwd } : {}), ...(data.procStart !== undefined ? { procStart: String(data.procStart) } : {}) });
    }
  } else if (source === 'copilot') {
    const root = path.join(home, 'session-state');
    for (const sid of safeList(root)) {
      for (const e of safeList(path.join(root, sid))) {
        const m = /^inuse\.(\d+)\.lock$/.exec(e);
        if (m) out.push({ pid: Number(m[1]), source, sessionId: sid });
      }
    }
  }
  return out;
}

/** The `.jsonl` files process `pid` holds open (the targets of /proc/<pid>/fd/*); [] when they cannot be read. */
function openFiles(procRoot: string, pid: number): string[] {
  const out: string[] = [];
  for (const fd of safeList(path.join(procRoot, String(pid), 'fd')).slice(0, 4096)) {
    try {
      const target = readlinkSync(path.join(procRoot, String(pid), 'fd', fd));
      if (target.endsWith('.jsonl')) out.push(target);
    } catch { /* closed meanwhile */ }
  }
  return out;
}

function realOf(p: string): string {
  try { return realpathSync(p); } catch { return p; }
}

function safeList(dir: string): string[] {
  try { return readdirSync(dir); } catch { return []; }
}

/** Whether process `pid` runs now (and, given its start time in clock ticks, is that same process, not a reused pid). */
function alive(procRoot: string, pid: number, procStart?: string): boolean {
  let stat: string;
  try { stat = readFileSync(path.join(procRoot, String(pid), 'stat'), 'utf8'); } catch { return false; }
  if (procStart === undefined) return true;
  // Fields after the command name (which may hold spaces and parentheses): state is field 3, starttime field 22.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] === procStart;
}

/**
 * Running assistant processes found through /proc: a process whose command (argv[0], or the script argv[1] of an
 * interpreter) has a source's process name as its base name. Empty (and `checked: false`) where /proc is missing.
 */
export function runningAssistants(byName: Map<string, string>, procRoot = '/proc'): { checked: boolean; found: RunningAssistant[] } {
  let pids: string[];
  try {
    pids = readdirSync(procRoot).filter((n) => /^\d+$/.test(n));
  } catch {
    return { checked: false, found: [] };
  }
  const found: RunningAssistant[] = [];
  for (const pid of pids) {
    let argv: string[];
    try {
      argv = readFileSync(path.join(procRoot, pid, 'cmdline'), 'utf8').split('\0').filter(Boolean);
    } catch {
      continue;
    }
    const source = [argv[0], argv[1]].map((a) => (a ? byName.get(path.basename(a).replace(/\.(m?js|cjs|exe)$/, '')) : undefined)).find(Boolean);
    if (!source) continue;
    try {
      found.push({ pid: Number(pid), source, cwd: readlinkSync(path.join(procRoot, pid, 'cwd')) });
    } catch { /* gone, or another user's */ }
  }
  return { checked: true, found };
}

export function listActiveSessions(service: SessionsService, procRoot = '/proc'): ToolDefinition<typeof input, typeof output> {
  return {
    name: 'list_active_sessions',
    title: 'List active sessions',
    description:
      'List AI coding sessions that are active now: one row per running assistant process (found through /proc where the platform has it), with the session the process names in its per-process file, else the newest session of its project no other process claims; and sessions whose file changed in the last 5 minutes that no process claims. ' +
      '{sessions: [{session_id, source, project_path, session_path, last_modified, method, pid?}], total}. method says how each was found: process_file, process, file_modified, or a process with +file_modified.',
    inputSchema: input,
    outputSchema: output,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async handler(args, ctx) {
      const homes = service.homes(ctx).filter((h) => h.available);
      const catalog = await service.catalog(ctx, homes);
      const now = ctx.clock.now();
      const rows = new Map<string, Row>();
      const key = (s: CatalogSession) => `${s.source}\n${s.path}`;
      const recent = new Map<string, { s: CatalogSession; p: CatalogProject }>();
      const byId = new Map<string, { s: CatalogSession; p: CatalogProject }>();
      for (const p of catalog.projects) {
        for (const s of p.sessions) {
          byId.set(`${s.source}\n${s.id}`, { s, p });
          if (now - s.mtimeMs <= ACTIVE_WINDOW_MS) recent.set(key(s), { s, p });
        }
      }
      const byName = new Map<string, string>();
      for (const h of homes) for (const n of h.source.processNames ?? []) byName.set(n, h.source.name);
      const procs = byName.size ? runningAssistants(byName, procRoot) : { checked: true, found: [] };
      const claimed = new Set<string>();
      const row = (s: CatalogSession | undefined, p: CatalogProject | undefined, source: string, pid: number, how: 'process' | 'process_file', cwd: string | null): Row => {
        const modified = s !== undefined && recent.has(key(s));
        return {
          session_id: s?.id ?? null, source, project_path: p?.path ?? cwd, session_path: s?.path ?? null,
          last_modified: s ? iso(s.mtimeMs) : null, method: modified ? `${how}+file_modified` : how, pid,
        };
      };
      // 1. Processes that name their session in a per-process file (only while that process runs).
      const named = new Set<number>();
      if (procs.checked) {
        for (const h of homes) {
          for (const f of processFiles(h.source.name, h.home)) {
            if (named.has(f.pid) || !alive(procRoot, f.pid, f.procStart)) continue;
            const found = byId.get(`${f.source}\n${f.sessionId}`);
            named.add(f.pid);
            if (found) claimed.add(key(found.s));
            rows.set(`pid:${f.pid}`, row(found?.s, found?.p, f.source, f.pid, 'process_file', f.cwd ?? null));
          }
        }
      }
      // 1b. Processes that hold a session file open (Codex keeps its rollout open while it runs).
      const byName2 = new Map<string, { s: CatalogSession; p: CatalogProject }[]>();
      for (const { s, p } of byId.values()) for (const f of s.files) {
        const list = byName2.get(path.basename(f)) ?? [];
        list.push({ s, p });
        byName2.set(path.basename(f), list);
      }
      for (const proc of procs.found) {
        if (named.has(proc.pid)) continue;
        for (const target of openFiles(procRoot, proc.pid)) {
          const found = byName2.get(path.basename(target))?.find(({ s }) => s.source === proc.source && s.files.some((f) => f === target || realOf(f) === target));
          if (!found) continue;
          named.add(proc.pid);
          claimed.add(key(found.s));
          rows.set(`pid:${proc.pid}`, row(found.s, found.p, proc.source, proc.pid, 'process_file', proc.cwd));
          break;
        }
      }
      // 2. Other running processes: the newest session of their project that no other process claims.
      for (const proc of [...procs.found].sort((a, b) => a.pid - b.pid)) {
        if (named.has(proc.pid)) continue;
        const project = projectFor(catalog.projects, proc);
        const s = project?.sessions.find((c) => c.parentId === undefined && !claimed.has(key(c)));
        if (s) claimed.add(key(s));
        rows.set(`pid:${proc.pid}`, row(s, project, proc.source, proc.pid, 'process', proc.cwd));
      }
      // 3. Sessions modified lately that no process claims.
      for (const [k, { s, p }] of recent) {
        if (claimed.has(k)) continue;
        rows.set(k, { session_id: s.id, source: s.source, project_path: p.path, session_path: s.path, last_modified: iso(s.mtimeMs), method: 'file_modified' });
      }
      const all = [...rows.values()].sort((a, b) => (b.last_modified ?? '').localeCompare(a.last_modified ?? '') || (a.session_path ?? '').localeCompare(b.session_path ?? ''));
      let items = all.slice(args.offset, args.offset + pageLimit(ctx, args.limit));
      let cut: Cut | undefined;
      const keep = fitting(items, itemBudget(ctx));
      if (keep < items.length) {
        items = items.slice(0, keep);
        cut = { limit: 'maxResultBytes', at: `after ${keep} sessions`, rest: `Call again with offset ${args.offset + keep}.` };
      }
      const next = args.offset + items.length;
      return { sessions: items, total: all.length, has_more: next < all.length, ...(next < all.length ? { next_offset: next } : {}), processes_checked: procs.checked, ...(cut ? { cut } : {}) };
    },
  };
}

/** The project of a process: same source, and the process works in the project folder or below it. */
function projectFor(projects: readonly CatalogProject[], proc: RunningAssistant): CatalogProject | undefined {
  let best: CatalogProject | undefined;
  for (const p of projects) {
    if (p.source !== proc.source || !p.path) continue;
    const rel = path.relative(p.path, proc.cwd);
    if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) {
      if (!best || p.path.length > best.path!.length) best = p;
    }
  }
  return best;
}
