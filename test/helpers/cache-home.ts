import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The cache folder of one spawned server (`XDG_CACHE_HOME`: its persistent index cache, the sessions bundle's indexes):
 * a fresh temporary folder of its own unless `env` names one, so no server writes the user's real cache folder and no
 * test sees another's entries. Made inside the run's temporary cache home when there is one (test/setup/cache-home.js,
 * removed after the run), else in the system's temporary folder; `remove()` deletes it once the server is gone.
 */
export function serverCacheHome(env: Record<string, string> | undefined): { XDG_CACHE_HOME: string; remove(): void } {
  const given = env?.XDG_CACHE_HOME;
  if (given !== undefined) return { XDG_CACHE_HOME: given, remove: () => {} };
  const base = process.env.MCPGW_TEST_CACHE_HOME && fs.existsSync(process.env.MCPGW_TEST_CACHE_HOME) ? process.env.MCPGW_TEST_CACHE_HOME : os.tmpdir();
  const dir = fs.mkdtempSync(path.join(base, 'server-'));
  return { XDG_CACHE_HOME: dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
