import * as fs from 'node:fs';
import * as path from 'node:path';

/** `../shared` beside the repository (DESIGN "Tests find shared data"), or MCPGW_SHARED_DIR. */
export const SHARED_DIR = process.env.MCPGW_SHARED_DIR ?? path.resolve(__dirname, '..', '..', '..', 'shared');

/**
 * The path of `sub` inside the shared folder, or null when it is absent — in which case the caller
 * skips its tests with a message. Under CI=true an absent shared folder fails instead.
 */
export function sharedPath(sub: string): string | null {
  const p = path.join(SHARED_DIR, sub);
  if (fs.existsSync(p)) return p;
  if (process.env.CI === 'true') throw new Error(`Shared test data missing: ${p} (set MCPGW_SHARED_DIR or put ../shared beside the repository).`);
  // eslint-disable-next-line no-console
  console.warn(`Skipping: shared test data not found at ${p}`);
  return null;
}
