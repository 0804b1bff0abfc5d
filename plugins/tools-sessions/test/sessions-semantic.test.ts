/**
 * semantic_search's ranking over a corpus of our own (test/fixtures/sessions-semantic): paraphrased questions that
 * share no content word with their target session find it in the top 3 (at least 4 of 5), and lexical search alone
 * cannot (it is the lexical side of the same index).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SemanticEngine } from '../src/semantic/engine';
import { gloveSifEmbedder } from '../src/semantic/glove';
import { addEntries } from '../src/semantic/indexer';
import { fuse, lengthPrior, mmr, paragraphs } from '../src/semantic/rank';
import { IndexStore, type IndexedSession } from '../src/semantic/store';
import { contentWords } from '../src/semantic/tokens';

interface Corpus {
  sessions: { id: string; entries: { role: string; text: string }[] }[];
  queries: { query: string; target: string }[];
}
const corpus: Corpus = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'sessions-semantic', 'corpus.json'), 'utf8'));

let store: IndexStore;
let engine: SemanticEngine;
const byRow = new Map<number, IndexedSession>();

beforeAll(async () => {
  store = new IndexStore(null, gloveSifEmbedder.name, gloveSifEmbedder.dimensions);
  for (const s of corpus.sessions) {
    const row = { source: 'claude', path: `/h/${s.id}.jsonl`, sessionId: s.id, projectName: s.id, projectPath: null, firstPrompt: { text: s.entries[0]!.text, markers: [] }, files: [], records: s.entries.length, entries: s.entries.length, modifiedMs: 0, complete: true };
    const id = store.saveSession(row);
    byRow.set(id, { ...row, id });
    await addEntries(store, id, s.entries.map((e, idx) => ({ idx, role: e.role, text: e.text, uuid: `${s.id}-${idx}`, timestamp: null })), gloveSifEmbedder);
  }
  engine = new SemanticEngine(store, gloveSifEmbedder);
});
afterAll(() => store.close());

/** Sessions in the order of their first hit. */
const sessionOrder = (ids: string[]) => [...new Set(ids)];

test('no question shares a content word with its target (the lexical side does not match the target)', () => {
  for (const q of corpus.queries) {
    const hits = store.lexical(contentWords(q.query), 1000);
    const target = [...byRow.values()].find((s) => s.sessionId === q.target)!;
    const targetEntries = new Set([...store.entrySessions()].filter(([, s]) => s === target.id).map(([e]) => e));
    expect({ q: q.query, shared: hits.filter((e) => targetEntries.has(e)) }).toEqual({ q: q.query, shared: [] });
  }
});

test('paraphrased questions find their target session in the top 3 for at least 4 of 5', async () => {
  const ranks: Record<string, number> = {};
  for (const q of corpus.queries) {
    const hits = await engine.search({ query: q.query, sessions: null, limit: 20, maxDistance: 0, diversity: false }, byRow);
    ranks[q.target] = sessionOrder(hits.map((h) => h.session.sessionId)).indexOf(q.target) + 1;
  }
  const found = Object.values(ranks).filter((r) => r >= 1 && r <= 3).length;
  expect({ ranks, found: found >= 4 }).toEqual({ ranks, found: true });
});

test('lexical search alone does not pass the same test', () => {
  let found = 0;
  const entrySession = store.entrySessions();
  for (const q of corpus.queries) {
    const order = sessionOrder(store.lexical(contentWords(q.query), 1000).map((e) => byRow.get(entrySession.get(e)!)!.sessionId));
    const r = order.indexOf(q.target) + 1;
    if (r >= 1 && r <= 3) found++;
  }
  expect(found).toBeLessThan(4);
});

test('results carry a cosine distance in [0, 2]; max_distance drops the farther ones', async () => {
  const all = await engine.search({ query: 'memory keeps growing', sessions: null, limit: 50, maxDistance: 0, diversity: false }, byRow);
  for (const h of all) expect(h.distance === null || (h.distance >= 0 && h.distance <= 2)).toBe(true);
  const near = await engine.search({ query: 'memory keeps growing', sessions: null, limit: 50, maxDistance: 0.5, diversity: false }, byRow);
  expect(near.length).toBeLessThan(all.length);
  for (const h of near) expect(h.distance).toBeLessThanOrEqual(0.5);
});

test('diversity spreads the results across sessions', async () => {
  const q = { query: 'slow page load and database query', sessions: null, limit: 6, maxDistance: 0 };
  const plain = await engine.search({ ...q, diversity: false }, byRow);
  const diverse = await engine.search({ ...q, diversity: true }, byRow);
  expect(new Set(diverse.map((h) => h.session.id)).size).toBe(diverse.length);
  expect(new Set(diverse.map((h) => h.session.id)).size).toBeGreaterThanOrEqual(new Set(plain.map((h) => h.session.id)).size);
});

test('the embedder counts each distinct word of a paragraph once', async () => {
  const [once, repeated, reordered] = await gloveSifEmbedder.embed(['socket timeout', 'socket socket socket socket timeout', 'timeout socket']);
  const gap = (a: Float32Array, b: Float32Array) => Math.max(...Array.from(a, (x, k) => Math.abs(x - b[k]!)));
  expect(gap(repeated!, once!)).toBe(0);
  expect(gap(reordered!, once!)).toBeLessThan(1e-6); // the same sum in another order
  const [other] = await gloveSifEmbedder.embed(['socket timeout memory']);
  expect(gap(other!, once!)).toBeGreaterThan(0.01);
});

describe('fusion', () => {
  test('reciprocal-rank fusion: each side adds 1/(20 + rank) for the entries it ranked, nothing for the others', () => {
    // a: vector rank 1, no lexical match; b: vector 2, lexical 1; c: vector 3, lexical 2 (Cormack et al. 2009, k = 20 here).
    const f = fuse(new Map([[1, 1], [2, 2], [3, 3]]), new Map([[2, 1], [3, 2]]));
    expect(f.get(1)).toBeCloseTo(1 / 21, 12);
    expect(f.get(2)).toBeCloseTo(1 / 22 + 1 / 21, 12);
    expect(f.get(3)).toBeCloseTo(1 / 23 + 1 / 22, 12);
    // an entry both sides rank near the top beats one only the vector side ranks first
    expect([...f].sort((x, y) => y[1] - x[1]).map(([e]) => e)).toEqual([2, 3, 1]);
  });

  test('a lexical match lifts an entry among those with no lexical match', () => {
    const f = fuse(new Map([[1, 1], [2, 2], [3, 3]]), new Map([[3, 1]]));
    expect(f.get(3)! > f.get(2)!).toBe(true);
  });
});

test('mmr picks the most relevant first, then the most different', () => {
  const items = [{ id: 'a', s: 1, rel: 1 }, { id: 'b', s: 1, rel: 0.95 }, { id: 'c', s: 2, rel: 0.7 }];
  expect(mmr(items, 2, (t) => t.rel, (x, y) => (x.s === y.s ? 1 : 0)).map((t) => t.id)).toEqual(['a', 'c']);
});

test('paragraphs: blank-line split, short pieces dropped unless nothing else', () => {
  expect(paragraphs('short\n\nThis paragraph is comfortably longer than forty characters.')).toEqual(['This paragraph is comfortably longer than forty characters.']);
  expect(paragraphs('tiny\n\nbits')).toEqual(['tiny bits']);
});

test('entries another connection adds to the index file are searched after it committed (no restart)', async () => {
  const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'mcpgw-semsync-'));
  const a = new IndexStore(dir, gloveSifEmbedder.name, gloveSifEmbedder.dimensions);
  const b = new IndexStore(dir, gloveSifEmbedder.name, gloveSifEmbedder.dimensions);
  try {
    const add = async (store: IndexStore, id: string, text: string) => {
      const row = { source: 'claude', path: `/h/${id}.jsonl`, sessionId: id, projectName: id, projectPath: null, firstPrompt: { text, markers: [] }, files: [], records: 1, entries: 1, modifiedMs: 0, complete: true };
      const rowId = store.saveSession(row);
      await addEntries(store, rowId, [{ idx: 0, role: 'user', text, uuid: `${id}-0`, timestamp: null }], gloveSifEmbedder);
      return { ...row, id: rowId };
    };
    const first = await add(a, 'first', 'The nightly backup job copies the database dump to the storage bucket.');
    const reader = new SemanticEngine(a, gloveSifEmbedder);
    const sessions = new Map([[first.id, first]]);
    const q = { query: 'the second spreadsheet import drops its header row', sessions: null, limit: 5, maxDistance: 0, diversity: false };
    expect((await reader.search(q, sessions)).map((h) => h.session.sessionId)).toEqual(['first']);
    const second = await add(b, 'second', 'Importing the spreadsheet loses the header row of the second sheet.');
    sessions.set(second.id, second);
    expect((await reader.search(q, sessions)).map((h) => h.session.sessionId)).toEqual(['second', 'first']);
  } finally {
    a.close();
    b.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('length prior', () => {
  test('lengthPrior: n / 6 under six content words, else 1', () => {
    expect([0, 1, 3, 5, 6, 40].map(lengthPrior)).toEqual([0, 1 / 6, 0.5, 5 / 6, 1, 1]);
  });

  test('a short generated title no longer outranks a paragraph about the same thing, though both sides put it first', async () => {
    // added to the fixture corpus (its common component and word statistics are a history's, not three entries')
    const rows = new Map(byRow);
    const add = async (id: string, text: string) => {
      const row = { source: 'claude', path: `/h/${id}.jsonl`, sessionId: id, projectName: id, projectPath: null, firstPrompt: { text, markers: [] }, files: [], records: 1, entries: 1, modifiedMs: 0, complete: true };
      const rowId = store.saveSession(row);
      rows.set(rowId, { ...row, id: rowId });
      await addEntries(store, rowId, [{ idx: 0, role: 'user', text, uuid: `${id}-0`, timestamp: null }], gloveSifEmbedder);
      return rowId;
    };
    const title = await add('title', 'Fix websocket timeout');
    const answer = await add('answer', 'The websocket server drops idle clients after a sixty second timeout, so I added a heartbeat ping from the client every thirty seconds.');
    const query = 'websocket timeout closes the connection';
    const hits = await new SemanticEngine(store, gloveSifEmbedder).search({ query, sessions: new Set([title, answer]), limit: 2, maxDistance: 0, diversity: false }, rows);
    const by = Object.fromEntries(hits.map((h) => [h.session.sessionId, h]));
    // taken plainly, the title is nearer on both sides: a smaller cosine distance, and first for BM25
    expect(by.title!.distance!).toBeLessThan(by.answer!.distance!);
    const entryIds = new Set([by.title!.entry.id, by.answer!.entry.id]);
    expect(store.lexical(contentWords(query), 1000).filter((e) => entryIds.has(e))).toEqual([by.title!.entry.id, by.answer!.entry.id]);
    // with its prior of 3 / 6 on both sides it comes second
    expect(hits.map((h) => h.session.sessionId)).toEqual(['answer', 'title']);
  });
});
