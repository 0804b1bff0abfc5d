import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The shared test data (docs/architecture.md "Tests find shared data"): the folder named by MCPGW_SHARED_DIR, else
 * `shared` beside the repository.
 */
export const SHARED_DIR = process.env.MCPGW_SHARED_DIR ?? path.resolve(__dirname, '..', '..', '..', 'shared');

/** Where each piece of shared data comes from, for the message when it is missing. */
export const SHARED_SOURCES: Readonly<Record<string, string>> = {
  'conformance/JSONTestSuite/test_parsing': 'the test_parsing folder of https://github.com/nst/JSONTestSuite (commit 1ef36fa)',
  'conformance/jsonpath-cts.json': 'cts.json of https://github.com/jsonpath-standard/jsonpath-compliance-test-suite (commit 7be7c1f)',
};

/** True when the environment says the tests run under continuous integration (`CI` set to anything but "" / "0" / "false"). */
export function underCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/** The message naming what is missing, where to get it and how to point the tests at it. */
export function missingMessage(sub: string, dir: string = SHARED_DIR): string {
  const source = SHARED_SOURCES[sub] ?? 'the shared test data';
  return `Shared test data missing: ${path.join(dir, sub)}. Get ${source}, put it at ${sub} in a shared data folder ` +
    `and set MCPGW_SHARED_DIR to that folder (default: "shared" beside the repository).`;
}

/**
 * The path of `sub` inside the shared folder, or null when it is absent. Absent under CI: throws (the test file fails
 * with {@link missingMessage}); absent locally: the caller registers {@link skipMissing}'s one skipped test instead of
 * its tests.
 */
export function sharedPath(sub: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const p = path.join(SHARED_DIR, sub);
  if (fs.existsSync(p)) return p;
  if (underCi(env)) throw new Error(missingMessage(sub));
  return null;
}

/** One explicitly skipped test whose name says which shared data is missing and where to get it. */
export function skipMissing(sub: string): void {
  test.skip(missingMessage(sub), () => undefined);
}
