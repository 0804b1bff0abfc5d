import type { LazyNode, RecordBatch, RecordSource } from 'mcpgw/plugin-api';
import { appendToken } from '../text/pointer';
import { preview, previewBuilder, tokenPreview, type Preview } from '../text/preview';
import { parseKeepingLexemes, type TextHit } from './text-matcher';

/**
 * Text search by node: every member name and value of a record that holds the text is a match of its own (search
 * counts nodes in a single-document file, and in files whose records are too large to be useful units). A record of
 * at most PIECE_BYTES is searched as one text; a larger one is walked through lazy nodes (`RecordSource.node`), its
 * values of at most PIECE_BYTES searched as texts (after a byte prefilter) and the member names of the containers
 * above them checked one by one, in document order, so a 1 GiB document is searched in bounded memory.
 */
export const PIECE_BYTES = 1024 * 1024;
/** Children listed per read while a large container is walked. */
const WINDOW = 256;

/** What a text matcher offers (TextMatcher and RegexMatcher). */
export interface NodeMatcher {
  matchAll(text: string, parsed?: unknown): TextHit[];
  /** Plain text search only: the raw-text hits no decoded hit covers (TextMatcher.rawHits). */
  rawHits?(text: string, decodedHits: readonly TextHit[], parsed?: unknown): TextHit[];
  /** Plain text search only: every raw occurrence (TextMatcher.rawSpans), and the most bytes one spans. */
  rawSpans?(text: string): { start: number; end: number }[];
  readonly maxHitBytes?: number;
  candidates(batch: RecordBatch, onCandidate: (k: number) => boolean | void): void;
}

/**
 * One matching node, or a place where the walk stopped (`stop`: the deadline) or passed over a malformed part
 * (`skipped`). `at` orders them in document order inside the record and is where a later walk resumes: member
 * positions on the way down (`-1` for a member's name), then the hit's index in its piece. `pause`: the walk asks its
 * caller to let the event loop run; it walks on from there when iterated again (nothing read is read again).
 */
export type NodeEvent =
  | { kind: 'hit'; at: number[]; match_path: string; preview: Preview }
  | { kind: 'stop'; at: number[] }
  | { kind: 'pause' }
  | { kind: 'skipped'; pointer: string; error: Error };

/**
 * What the walk's caller answers between pieces: true to stop (the walk yields `stop` with where to resume, and ends),
 * 'pause' to be given the event loop (the walk yields `pause` and goes on when iterated again), false to go on.
 */
export type WalkCheck = () => boolean | 'pause';

/**
 * The hits of record `i`, in document order, from `resume` (an `at` this walk yielded) on, one per node: a member
 * whose name and value both hold the text is one match (its name's, first in document order). `expired()` is asked
 * between pieces (WalkCheck). A pause keeps the walk, its place and the bytes it holds: a walk started again from
 * `at` reads every container above that place again (up to GROUP_BYTES of each), which costs more than a pause's
 * time slice once a document is a few MB, so each slice got past one member and the search stalled.
 * @throws what reading the record throws when the source has no lazy nodes (RESOURCE_LIMIT_EXCEEDED, SYNTAX_ERROR).
 */
export function* recordHits(source: RecordSource, i: number, matcher: NodeMatcher, resume: number[] | null, expired: WalkCheck, piece = PIECE_BYTES): Generator<NodeEvent> {
  // The hits of one node come one after another (a name before its value): the later ones are dropped. A page never
  // ends between them, since the dropped ones are never seen, so a resume never starts at one.
  let last: string | null = null;
  for (const e of nodeHits(source, i, matcher, resume, expired, piece)) {
    if (e.kind === 'hit') {
      if (e.match_path === last) continue;
      last = e.match_path;
    }
    yield e;
  }
}

function* nodeHits(source: RecordSource, i: number, matcher: NodeMatcher, resume: number[] | null, expired: WalkCheck, piece: number): Generator<NodeEvent> {
  const root = source.node?.(i, '');
  if (!root || !root.children || root.byteLength <= piece) {
    const text = root?.text ? root.text() : source.text(i);
    yield* pieceHits(text, '', [], resume, matcher);
    return;
  }
  yield* walk(root, '', [], resume && resume.length ? resume : null, matcher, expired, piece);
}

function* walk(node: LazyNode, pointer: string, trail: number[], resume: number[] | null, matcher: NodeMatcher, expired: WalkCheck, piece: number): Generator<NodeEvent> {
  const count = node.childCount ?? 0;
  const isObject = node.type === 'object';
  let prevEnd = -1; // where the previous member's value ends (its text's end), -1 while unknown
  for (let from = resume ? resume[0]! : 0; from < count; from += WINDOW) {
    const kids = node.children!(from, Math.min(count, from + WINDOW));
    for (let j = 0; j < kids.length; j++) {
      const m = from + j;
      const kid = kids[j]!;
      const start = prevEnd >= 0 ? prevEnd : m === 0 ? node.byteOffset + 1 : endOf(node.children!(m - 1, m)[0]!.node);
      prevEnd = endOf(kid.node);
      const sub = resume && m === resume[0] ? resume.slice(1) : null;
      resume = null;
      // never at the position a resumed walk starts from: each walk gets past one member at least
      if (!sub) {
        const check = expired();
        if (check === 'pause') yield { kind: 'pause' };
        else if (check) { yield { kind: 'stop', at: [...trail, m] }; return; }
      }
      const here = isObject ? appendToken(pointer, kid.key!) : appendToken(pointer, m);
      if (isObject) {
        if (node.member && node.member(kid.key!)?.index !== m) continue; // a repeated name: the last one counts
        if (!sub || sub.length === 0 || sub[0] === -1) {
          const hit = keyHit(kid.key!, here, matcher) ?? memberRawHit(node, start, kid.node, matcher);
          if (hit) yield { kind: 'hit', at: [...trail, m, -1], match_path: here, preview: hit.preview };
        }
      }
      const inner = sub && sub.length && sub[0] !== -1 ? sub : null;
      if (!kid.node.children || kid.node.byteLength <= piece) {
        let text: string;
        try {
          if (!mayHold(kid.node, matcher)) continue;
          text = kid.node.text ? kid.node.text() : JSON.stringify(kid.node.value());
        } catch (err) {
          if ((err as { code?: string }).code === 'SYNTAX_ERROR' || (err as { code?: string }).code === 'RESOURCE_LIMIT_EXCEEDED') { yield { kind: 'skipped', pointer: here, error: err as Error }; continue; }
          throw err;
        }
        try {
          yield* pieceHits(text, here, [...trail, m], inner, matcher);
        } catch (err) {
          if ((err as { code?: string }).code === 'SYNTAX_ERROR' || err instanceof SyntaxError) { yield { kind: 'skipped', pointer: here, error: err as Error }; continue; }
          throw err;
        }
      } else yield* walk(kid.node, here, [...trail, m], inner, matcher, expired, piece);
    }
  }
}

const endOf = (node: LazyNode) => node.byteOffset + node.byteLength;

/**
 * A raw-text hit that starts in a member's name (or the comma and spaces before it) of a container walked in parts:
 * `"status":"failed"` spans the name and the value, which the walk reads apart. Reads the bytes from the previous
 * member's end (`start`, file offset) to as far into the value as a hit can reach.
 */
function memberRawHit(container: LazyNode, start: number, value: LazyNode, matcher: NodeMatcher): { preview: Preview } | null {
  if (!matcher.rawSpans || !matcher.maxHitBytes || !container.bytes) return null;
  const end = Math.min(endOf(value), value.byteOffset + matcher.maxHitBytes);
  const bytes = container.bytes(start - container.byteOffset, end - container.byteOffset);
  const nameEnd = bytes.subarray(0, value.byteOffset - start).toString('utf8').length;
  const text = bytes.toString('utf8');
  const span = matcher.rawSpans(text).find((h) => h.start < nameEnd);
  return span ? { preview: preview(text, span.start, span.end) } : null;
}

/** The byte prefilter on one value's bytes: false when they cannot hold a match (see TextMatcher.candidates). */
function mayHold(node: LazyNode, matcher: NodeMatcher): boolean {
  if (!node.bytes) return true;
  const bytes = node.bytes();
  let found = false;
  matcher.candidates(oneRecord(bytes), () => { found = true; return false; });
  return found;
}

/** A batch of one record spanning `bytes`. */
function oneRecord(bytes: Buffer): RecordBatch {
  return {
    first: 0, count: 1, bytes,
    span: () => [0, bytes.length],
    recordAt: (o) => (o >= 0 && o < bytes.length ? 0 : -1),
    text: () => bytes.toString('utf8'),
    value: () => JSON.parse(bytes.toString('utf8')),
  };
}

/** The hits inside one JSON text (a record, or a value inside one at `pointer`), from hit index `resume[0]` on. */
function* pieceHits(text: string, pointer: string, trail: number[], resume: number[] | null, matcher: NodeMatcher): Generator<NodeEvent> {
  let hits = matcher.matchAll(text);
  const raw = matcher.rawHits?.(text, hits) ?? [];
  if (hits.length === 0 && raw.length === 0) return;
  // what the value holds once parsed (a repeated member name: the last value wins)
  const parsed = parseKeepingLexemes(text);
  hits = matcher.matchAll(text, parsed);
  // raw-text hits (a query spanning structure) merged in document order: one list, the same for every page's walk
  if (raw.length) hits = [...hits, ...matcher.rawHits!(text, hits, parsed)].sort((a, b) => a.token.start - b.token.start);
  for (let j = resume && resume.length ? resume[0]! : 0; j < hits.length; j++) {
    const h = hits[j]!;
    const shown = h.raw ? preview(text, h.raw.start, h.raw.end) : tokenPreview(text, h.token, h.decoded, h.start, h.end);
    yield { kind: 'hit', at: [...trail, j], match_path: pointer + h.token.pointer, preview: shown };
  }
}

/** A member name of a large container that holds the text, as a hit at the member's pointer. */
function keyHit(key: string, pointer: string, matcher: NodeMatcher): { match_path: string; preview: Preview } | null {
  const quoted = JSON.stringify(key);
  const text = `{${quoted}:null}`;
  const hit = matcher.matchAll(text).find((h) => h.token.kind === 'key');
  if (!hit) return null;
  // the name, then `: …` (its value left out: the `…` is a marker)
  const p = tokenPreview(`${quoted}: `, { kind: 'key', start: 0, end: quoted.length }, hit.decoded, hit.start, hit.end);
  return { match_path: pointer, preview: previewBuilder().append(p).mark('…').build() };
}

/** Lexicographic order of two `at` trails (a prefix first). */
export function compareAt(a: readonly number[], b: readonly number[]): number {
  for (let k = 0; k < Math.min(a.length, b.length); k++) if (a[k] !== b[k]) return a[k]! - b[k]!;
  return a.length - b.length;
}
