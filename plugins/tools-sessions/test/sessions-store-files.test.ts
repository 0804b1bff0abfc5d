/**
 * The semantic index's file: private modes, a damaged file found on opening is thrown away and the store starts
 * empty (it only caches the history), an index folder that cannot be made private is refused with a clear error.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CacheFolderError, IndexStore, INDEX_FILE, privateFolder } from '../src/semantic/store';

let tmp: string;
beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-store-')); });
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('a new index: folder 0700, file 0600', () => {
  const folder = path.join(tmp, 'cache', 'mcpgw');
  const store = new IndexStore(folder, 'e', 4);
  try {
    expect(fs.statSync(folder).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(folder, INDEX_FILE)).mode & 0o777).toBe(0o600);
    expect(store.rebuilt).toBe(false);
  } finally {
    store.close();
  }
});

test('a file that is not a database is replaced by an empty index, 0600', () => {
  const folder = path.join(tmp, 'mcpgw');
  fs.mkdirSync(folder, { mode: 0o700 });
  fs.writeFileSync(path.join(folder, INDEX_FILE), Buffer.alloc(8192, 0x5a), { mode: 0o644 });
  const store = new IndexStore(folder, 'e', 4);
  try {
    expect(store.rebuilt).toBe(true);
    expect(store.sessions()).toEqual([]);
    expect(fs.statSync(path.join(folder, INDEX_FILE)).mode & 0o777).toBe(0o600);
  } finally {
    store.close();
  }
});

test('a healthy index is kept as it is', () => {
  const folder = path.join(tmp, 'mcpgw');
  const a = new IndexStore(folder, 'e', 4);
  a.saveSession({ source: 'claude', path: '/x.jsonl', sessionId: 'x', projectName: 'p', projectPath: null, firstPrompt: null, files: [], records: 1, entries: 1, modifiedMs: 1, complete: true });
  a.close();
  const b = new IndexStore(folder, 'e', 4);
  try {
    expect(b.rebuilt).toBe(false);
    expect(b.sessions().map((s) => s.path)).toEqual(['/x.jsonl']);
  } finally {
    b.close();
  }
});

test('a folder that is not a folder is refused with a clear error', () => {
  const file = path.join(tmp, 'plain');
  fs.writeFileSync(file, '');
  expect(() => privateFolder(file)).toThrow(CacheFolderError);
  expect(() => privateFolder(file)).toThrow(`The cache folder ${file} is not a folder.`);
});
