import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
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
    method: z.enum(['file_modified', 'process', 'process+file_modified']).describe('How it was found: its file changed in the last 5 minutes, a running assistant process works in its project, or both'),
    pid: z.number().int().optional(),
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
      'List AI coding sessions that are active now: sessions whose file changed in the last 5 minutes, and running assistant processes (found through /proc where the platform has it) mapped to their project\'s newest session. ' +
      '{sessions: [{session_id, source, project_path, session_path, last_modified, method, pid?}], total}. method says how each was found: file_modified, process, or process+file_modified.',
    inputSchema: input,
    outputSchema: output,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async handler(args, ctx) {
      const homes = service.homes(ctx).filter((h) => h.available);
      const catalog = await service.catalog(ctx, homes);
      const now = ctx.clock.now();
      const rows = new Map<string, Row>();
      const key = (s: CatalogSession) => `${s.source}\n${s.path}`;
      for (const p of catalog.projects) {
        for (const s of p.sessions) {
          if (now - s.mtimeMs > ACTIVE_WINDOW_MS) break; // newest first
          rows.set(key(s), { session_id: s.id, source: s.source, project_path: p.path, session_path: s.path, last_modified: iso(s.mtimeMs), method: 'file_modified' });
        }
      }
      const byName = new Map<string, string>();
      for (const h of homes) for (const n of h.source.processNames ?? []) byName.set(n, h.source.name);
      const procs = byName.size ? runningAssistants(byName, procRoot) : { checked: true, found: [] };
      for (const proc of procs.found) {
        const project = projectFor(catalog.projects, proc);
        const s = project?.sessions[0];
        const existing = s ? rows.get(key(s)) : undefined;
        if (existing) { rows.set(key(s!), { ...existing, method: 'process+file_modified', pid: proc.pid }); continue; }
        rows.set(s ? key(s) : `pid:${proc.pid}`, {
          session_id: s?.id ?? null, source: proc.source, project_path: project?.path ?? proc.cwd, session_path: s?.path ?? null,
          last_modified: s ? iso(s.mtimeMs) : null, method: 'process', pid: proc.pid,
        });
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
