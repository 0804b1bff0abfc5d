import * as fs from 'node:fs';
import * as path from 'node:path';

/** Whether the tests run as root, where permissions do not bite unless the server gives up its privileges. */
export const asRoot = process.getuid?.() === 0;

/** The uid and gid an unprivileged server runs as (nobody / nogroup). */
export const NOBODY = 65534;

/**
 * The environment that makes a spawned server unprivileged, so EACCES and EPERM happen for real: when the tests run
 * as root, a `--require` preload written into `folder` (which must be readable by {@link NOBODY}) switches the server
 * to uid/gid 65534 before anything else runs; otherwise nothing is needed and the object is empty.
 * Pass it as `connect(…, { env })`.
 */
export function unprivilegedEnv(folder: string): Record<string, string> {
  if (!asRoot) return {};
  const drop = path.join(folder, 'drop-privileges.js');
  fs.writeFileSync(drop, `if (process.getuid() === 0) { process.setgid(${NOBODY}); process.setuid(${NOBODY}); }\n`);
  fs.chmodSync(drop, 0o644);
  return { NODE_OPTIONS: `--require ${drop}` };
}
