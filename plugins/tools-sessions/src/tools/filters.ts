import type { ToolContext } from 'mcpgw/plugin-api';
import type { SourceHome } from '../homes';

/** What a project filter is compared with: a project's name (any letter case), id or folder. */
export interface ProjectLike {
  source: string;
  id: string;
  name: string;
  path: string | null;
}

/** Whether `p` is the project `project` names (its name in any letter case, its id, or its folder). */
export function isProject(p: ProjectLike, project: string): boolean {
  return p.name.toLowerCase() === project.toLowerCase() || p.id === project || p.path === project;
}

/**
 * Checks a `source` argument against the available sources (enabled, home present).
 * @throws NOT_FOUND naming the available sources when `source` is given and is not one of them
 */
export function requireSource(ctx: ToolContext, homes: readonly SourceHome[], source: string | undefined): void {
  if (source === undefined || homes.some((h) => h.available && h.source.name === source)) return;
  throw ctx.error('NOT_FOUND', `No available session source named ${JSON.stringify(source)}.`, {
    hint: `Available sources: ${homes.filter((h) => h.available).map((h) => h.source.name).join(', ') || '(none)'}.`,
  });
}

/**
 * Checks a `project` argument against the projects of the sources searched (`projects`, already narrowed by source).
 * @throws NOT_FOUND naming up to 5 project names nearest to it (edit distance, letter case ignored) when no project
 *   matches
 */
export function requireProject(ctx: ToolContext, projects: readonly ProjectLike[], project: string | undefined): void {
  if (project === undefined || projects.some((p) => isProject(p, project))) return;
  const wanted = project.toLowerCase();
  const names = [...new Set(projects.map((p) => p.name))]
    .map((n) => ({ n, d: distance(wanted, n.toLowerCase()) }))
    .sort((a, b) => a.d - b.d || (a.n < b.n ? -1 : a.n > b.n ? 1 : 0))
    .slice(0, 5)
    .map((x) => x.n);
  throw ctx.error('NOT_FOUND', `No project named ${JSON.stringify(project)} (by name, id or folder) in the sources searched.`, {
    hint: names.length ? `Nearest project names: ${names.join(', ')}. list_projects lists them all.` : 'There are no projects: list_sources shows where sessions are looked for.',
  });
}

/** Levenshtein distance in UTF-16 units (inputs are short names), one row at a time. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
