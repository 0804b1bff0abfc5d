import * as fs from 'node:fs';
import type { ToolContext } from 'mcpgw/plugin-api';
import { ERROR_CODES } from 'mcpgw/plugin-kit';
import { scrub } from './errors';
import type { SourceStamp } from './engine';

/** Files a view reads: real paths (for the engine, never shown) and stamps (for SOURCE_CHANGED). */
export interface ResolvedFiles {
  /** As the caller named it. */
  given: string;
  real: string[];
  stamps: SourceStamp[];
}

const GLOB = /[*?[{]/;

/**
 * Resolves a root-relative file or glob through the sandbox (`ctx.files`: `..`, absolute paths outside the root and
 * symlinks out are ACCESS_DENIED there), before the engine sees any path. A glob is listed by the sandbox (links are
 * followed only inside the root) and each match opened again as a file. @throws NOT_FOUND when a glob matches
 * nothing; RESOURCE_LIMIT_EXCEEDED past `maxFiles` matches.
 */
export async function resolveFiles(ctx: ToolContext, given: string, maxFiles: number): Promise<ResolvedFiles> {
  try {
    return await resolve(ctx, given, maxFiles);
  } catch (err) {
    // The sandbox names a path as given; an absolute one (outside the root) must not come back in the answer.
    const e = err as Error & { code?: string; hint?: string };
    if (typeof e.code !== 'string' || !(ERROR_CODES as readonly string[]).includes(e.code)) throw err;
    const message = scrub(e.message, [ctx.root]);
    if (message === e.message) throw err;
    throw ctx.error(e.code as never, message, e.hint !== undefined ? { hint: e.hint } : {});
  }
}

async function resolve(ctx: ToolContext, given: string, maxFiles: number): Promise<ResolvedFiles> {
  let paths: string[];
  if (GLOB.test(given)) {
    const listing = await ctx.files.list(undefined, { glob: given, max: maxFiles, signal: ctx.signal, deadline: ctx.deadline });
    if (listing.truncated) {
      throw ctx.error('RESOURCE_LIMIT_EXCEEDED', `The glob ${JSON.stringify(given)} matches more than ${maxFiles} files (or the listing stopped at the deadline).`, {
        hint: 'Narrow the glob.', limit: { name: 'maxFiles', limit: maxFiles },
      });
    }
    paths = listing.files.map((f) => f.path);
    if (paths.length === 0) throw ctx.error('NOT_FOUND', `No file under the root matches ${JSON.stringify(given)}.`, { hint: 'sql_tables lists the files there are.' });
  } else {
    paths = [given];
  }
  const real: string[] = [];
  const stamps: SourceStamp[] = [];
  for (const p of paths) {
    const stamp = stampOf(ctx, p);
    real.push(stamp.real);
    stamps.push(stamp.stamp);
  }
  return { given, real, stamps };
}

/** Opens `path` through the sandbox (checks as every tool's open) and reads its identity. */
function stampOf(ctx: ToolContext, path: string): { real: string; stamp: SourceStamp } {
  if (!ctx.files.openRaw) throw ctx.error('INTERNAL_ERROR', 'The kernel gives no raw file access (plugin API 2.5 needed).');
  const raw = ctx.files.openRaw(path);
  try {
    const st = fs.fstatSync(raw.fd);
    return { real: raw.path, stamp: { path, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino } };
  } finally {
    raw.close();
  }
}

/** @throws SOURCE_CHANGED when a file a query read was rewritten, replaced, removed or resized since. */
export function verifyStamps(ctx: ToolContext, stamps: readonly SourceStamp[]): void {
  for (const s of stamps) {
    let now: SourceStamp | null = null;
    try {
      now = stampOf(ctx, s.path).stamp;
    } catch {
      now = null;
    }
    if (!now || now.size !== s.size || now.mtimeMs !== s.mtimeMs || now.ino !== s.ino) {
      throw ctx.error('SOURCE_CHANGED', `${s.path} changed since the query started; its later pages would not match the first.`, { hint: 'Run the query again.' });
    }
  }
}
