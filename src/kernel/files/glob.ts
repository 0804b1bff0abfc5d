import { McpgwError } from '../errors';

/** Longest glob accepted, characters. */
export const MAX_GLOB_CHARS = 4096;
/** Most alternatives a glob's braces may expand to (`{a,b}{c,d}` is 4). */
export const MAX_GLOB_ALTERNATIVES = 256;

/** A compiled glob: `test(path)` on `/`-separated paths. */
export interface Glob {
  test(path: string): boolean;
}

type Token =
  | { kind: 'char'; c: number }
  | { kind: 'one' } // ?   one character but /
  | { kind: 'star' } // *   any characters but /
  | { kind: 'any' } // **  any characters
  | { kind: 'dirs' } // **/ nothing, or any characters ending in /
  | { kind: 'class'; negated: boolean; ranges: [number, number][] };

const SLASH = 0x2f;

/**
 * Compiles a glob over `/`-separated paths: `**` any number of segments, `*` any characters but `/`, `?` one
 * character but `/`, `[…]` / `[!…]` a class (ranges `a-z`), `{a,b}` alternatives (nested too). Matching simulates
 * the pattern as an automaton over the path's characters, so it takes time linear in the path for every glob (a
 * regular expression built from `*a*a*a…` backtracked, and one built from a million nested braces ran the
 * regular-expression compiler out of memory).
 * @throws McpgwError INVALID_ARGUMENT for an unbalanced `[` or `{`, a glob over MAX_GLOB_CHARS characters, or
 *   braces expanding to more than MAX_GLOB_ALTERNATIVES alternatives.
 */
export function compileGlob(glob: string): Glob {
  if (glob.length > MAX_GLOB_CHARS) {
    throw new McpgwError('INVALID_ARGUMENT', `The glob is ${glob.length} characters long, over the ${MAX_GLOB_CHARS} allowed.`, { hint: 'Use a shorter pattern, e.g. "**/*.jsonl".' });
  }
  const alternatives = expandBraces(glob).map(tokenize);
  return { test: (path) => alternatives.some((tokens) => run(tokens, path)) };
}

/** The brace-free globs a glob stands for, in order. */
function expandBraces(glob: string): string[] {
  // Find the first top-level `{` outside a class, its matching `}` and its top-level commas.
  let open = -1;
  let depth = 0;
  const commas: number[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) throw new McpgwError('INVALID_ARGUMENT', `Unclosed "[" in glob ${quote(glob)}.`);
      i = close;
    } else if (c === '{') {
      if (depth++ === 0) open = i;
    } else if (c === '}' && depth > 0) {
      if (--depth === 0) {
        const prefix = glob.slice(0, open);
        const rest = expandBraces(glob.slice(i + 1));
        const parts: string[] = [];
        let from = open + 1;
        for (const comma of [...commas, i]) {
          parts.push(glob.slice(from, comma));
          from = comma + 1;
        }
        const out: string[] = [];
        for (const part of parts) {
          for (const inner of expandBraces(part)) {
            for (const tail of rest) {
              out.push(prefix + inner + tail);
              if (out.length > MAX_GLOB_ALTERNATIVES) throw tooMany(glob);
            }
          }
        }
        return out;
      }
    } else if (c === ',' && depth === 1) commas.push(i);
  }
  if (depth !== 0) throw new McpgwError('INVALID_ARGUMENT', `Unclosed "{" in glob ${quote(glob)}.`);
  return [glob];
}

function tooMany(glob: string): McpgwError {
  return new McpgwError('INVALID_ARGUMENT', `The braces of glob ${quote(glob)} expand to more than ${MAX_GLOB_ALTERNATIVES} alternatives.`, { hint: 'Use fewer {a,b} groups, or list the folder with a broader glob.' });
}

function quote(glob: string): string {
  return glob.length > 200 ? `${JSON.stringify(glob.slice(0, 200))}… (${glob.length} characters)` : JSON.stringify(glob);
}

function tokenize(glob: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i++;
        if (glob[i + 1] === '/') { i++; out.push({ kind: 'dirs' }); } else out.push({ kind: 'any' });
      } else out.push({ kind: 'star' });
    } else if (c === '?') out.push({ kind: 'one' });
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      let body = glob.slice(i + 1, close);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      const chars = [...body];
      const ranges: [number, number][] = [];
      for (let k = 0; k < chars.length; k++) {
        const lo = chars[k]!.codePointAt(0)!;
        if (chars[k + 1] === '-' && k + 2 < chars.length) {
          ranges.push([lo, chars[k + 2]!.codePointAt(0)!]);
          k += 2;
        } else ranges.push([lo, lo]);
      }
      out.push({ kind: 'class', negated, ranges });
      i = close;
    } else {
      const cp = glob.codePointAt(i)!;
      if (cp > 0xffff) i++;
      out.push({ kind: 'char', c: cp });
    }
  }
  return out;
}

/**
 * Runs the tokens as a non-deterministic automaton over the path's code points: state i is "before token i",
 * `inside[i]` "inside the `**​/` of token i". O(path × tokens), no backtracking.
 */
function run(tokens: Token[], path: string): boolean {
  const m = tokens.length;
  let at = new Uint8Array(m + 1);
  let inside = new Uint8Array(m + 1);
  let nextAt = new Uint8Array(m + 1);
  let nextInside = new Uint8Array(m + 1);
  at[0] = 1;
  close(tokens, at);
  for (let p = 0; p < path.length; p++) {
    const c = path.codePointAt(p)!;
    if (c > 0xffff) p++;
    nextAt.fill(0);
    nextInside.fill(0);
    let alive = false;
    for (let i = 0; i < m; i++) {
      if (inside[i]) {
        nextInside[i] = 1;
        if (c === SLASH) nextAt[i + 1] = 1;
        alive = true;
      }
      if (!at[i]) continue;
      const t = tokens[i]!;
      switch (t.kind) {
        case 'char': if (c === t.c) { nextAt[i + 1] = 1; alive = true; } break;
        case 'one': if (c !== SLASH) { nextAt[i + 1] = 1; alive = true; } break;
        case 'star': if (c !== SLASH) { nextAt[i] = 1; alive = true; } break;
        case 'any': nextAt[i] = 1; alive = true; break;
        case 'dirs':
          nextInside[i] = 1;
          if (c === SLASH) nextAt[i + 1] = 1;
          alive = true;
          break;
        case 'class': {
          let hit = false;
          for (const [lo, hi] of t.ranges) if (c >= lo && c <= hi) { hit = true; break; }
          if (hit !== t.negated) { nextAt[i + 1] = 1; alive = true; }
          break;
        }
      }
    }
    if (!alive) return false;
    [at, nextAt] = [nextAt, at];
    [inside, nextInside] = [nextInside, inside];
    close(tokens, at);
  }
  return at[m] === 1;
}

/** Follows the empty moves: `*`, `**` and `**​/` may match nothing. */
function close(tokens: Token[], at: Uint8Array): void {
  for (let i = 0; i < tokens.length; i++) {
    const k = tokens[i]!.kind;
    if (at[i] && (k === 'star' || k === 'any' || k === 'dirs')) at[i + 1] = 1;
  }
}
