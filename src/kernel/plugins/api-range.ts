/**
 * The plugin-API check's common case without loading semver (start-up time: semver's range module and its
 * dependencies are 21 files and ~60 KB of regular expressions built at load).
 *
 * `^M.m.p` with M ≥ 1 (digits only: no `v`, no prerelease, no build, no spaces) is the caret range `>=M.m.p
 * <(M+1).0.0-0` (node-semver's caret rule; semver 2.0.0 §11 for the order): `version` (`M.m.p`, no prerelease)
 * satisfies it when its major equals M and its minor and patch are at least m and p. Returns true only when that
 * form matches and is satisfied; every other range, and a caret range that is not satisfied, returns false, and the
 * caller asks semver (which words the error).
 */
export function satisfiesCaretRange(version: string, range: string): boolean {
  const r = CARET.exec(range);
  const v = VERSION.exec(version);
  if (!r || !v) return false;
  const [rMajor, rMinor, rPatch] = [Number(r[1]), Number(r[2]), Number(r[3])];
  const [major, minor, patch] = [Number(v[1]), Number(v[2]), Number(v[3])];
  if (rMajor < 1 || major !== rMajor) return false;
  return minor > rMinor || (minor === rMinor && patch >= rPatch);
}

// numbers without leading zeros, at most 15 digits (semver refuses numbers beyond 2^53 − 1)
const NUM = '(0|[1-9]\\d{0,14})';
const CARET = new RegExp(`^\\^${NUM}\\.${NUM}\\.${NUM}$`);
const VERSION = new RegExp(`^${NUM}\\.${NUM}\\.${NUM}$`);
