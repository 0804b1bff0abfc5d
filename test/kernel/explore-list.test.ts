import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import { compileGlob } from '../../src/kernel/files/glob';
import { listFiles } from '../../src/kernel/files/list-files';
import { Sandbox } from '../../src/kernel/files/sandbox';
import { formatsOf } from '../helpers/formats';

describe('compileGlob', () => {
  test.each([
    ['*.jsonl', 'a.jsonl', true], ['*.jsonl', 'd/a.jsonl', false], ['**/*.json', 'a/b/c.json', true], ['**/*.json', 'c.json', true],
    ['logs/2024-*.ndjson', 'logs/2024-01.ndjson', true], ['*.{json,jsonl}', 'x.jsonl', true], ['*.{json,jsonl}', 'x.ndjson', false],
    ['file?.json', 'file1.json', true], ['[ab].json', 'b.json', true], ['[!ab].json', 'b.json', false], ['a.b', 'axb', false],
  ])('%s on %s → %s', (glob, p, want) => expect(compileGlob(glob).test(p)).toBe(want));
  test('unbalanced patterns are INVALID_ARGUMENT', () => {
    expect(() => compileGlob('[ab')).toThrow('Unclosed "["');
    expect(() => compileGlob('{a,b')).toThrow('Unclosed "{"');
  });
});

describe('FileAccess.list', () => {
  let base: string;
  let root: string;
  beforeAll(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-list-'));
    root = path.join(base, 'root');
    fs.mkdirSync(path.join(root, 'a', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(root, 'z.jsonl'), '{"a":1}\n');
    fs.writeFileSync(path.join(root, 'a', 'deep', 'x.jsonl'), '{"a":1}\n');
    fs.writeFileSync(path.join(root, 'a', 'readme.txt'), 'hello\n');
    fs.writeFileSync(path.join(base, 'outside.jsonl'), '{"s":1}\n');
    fs.mkdirSync(path.join(base, 'root-other'));
    fs.writeFileSync(path.join(base, 'root-other', 'o.jsonl'), '{"s":1}\n');
    fs.symlinkSync(path.join(base, 'outside.jsonl'), path.join(root, 'link-out.jsonl'));
    fs.symlinkSync(path.join(base, 'root-other'), path.join(root, 'dir-out'));
    fs.symlinkSync(path.join(root, 'a'), path.join(root, 'a', 'deep', 'loop'));
    fs.symlinkSync(path.join(root, 'z.jsonl'), path.join(root, 'link-in.jsonl'));
  });
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

  test('recursive, sorted, links out of the root and loops left out, formats detected', async () => {
    const formats = await formatsOf(jsonl);
    const r = await listFiles(new Sandbox(root), formats, undefined);
    expect(r.files.map((f) => [f.path, f.format])).toEqual([
      ['a/deep/x.jsonl', 'jsonl'], ['a/readme.txt', null], ['link-in.jsonl', 'jsonl'], ['z.jsonl', 'jsonl'],
    ]);
    expect(r).toMatchObject({ folder: '', truncated: false });
    expect(r.files[3]!.size).toBe(8);
  });

  test('max, glob, a sub-folder; outside paths are ACCESS_DENIED', async () => {
    const sandbox = new Sandbox(root);
    expect((await listFiles(sandbox, [], undefined, { max: 2 }))).toMatchObject({ truncated: true, files: [{ path: 'a/deep/x.jsonl' }, { path: 'a/readme.txt' }] });
    expect((await listFiles(sandbox, [], undefined, { glob: '*.txt' })).files.map((f) => f.path)).toEqual(['a/readme.txt']);
    // From a/deep, the link "loop" leads to a (inside the root, not yet visited): listed once, without cycling.
    expect((await listFiles(sandbox, [], 'a/deep')).files.map((f) => f.path)).toEqual(['a/deep/loop/readme.txt', 'a/deep/x.jsonl']);
    await expect(listFiles(sandbox, [], '../root-other')).rejects.toMatchObject({ code: 'ACCESS_DENIED' });
    await expect(listFiles(sandbox, [], 'dir-out')).rejects.toMatchObject({ code: 'ACCESS_DENIED' });
    const ac = new AbortController();
    ac.abort();
    await expect(listFiles(sandbox, [], undefined, { signal: ac.signal })).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});

describe('FileAccess.list: entries it cannot read are counted, not silently dropped', () => {
  let root: string;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-list-skip-'));
    fs.writeFileSync(path.join(root, 'a.jsonl'), '{"a":1}\n');
    fs.writeFileSync(path.join(root, 'gone.jsonl'), '{"a":1}\n');
    fs.mkdirSync(path.join(root, 'sub'));
    fs.symlinkSync('missing.jsonl', path.join(root, 'sub', 'dangling.jsonl'));
    fs.symlinkSync('loop-b', path.join(root, 'sub', 'loop-a'));
    fs.symlinkSync('loop-a', path.join(root, 'sub', 'loop-b'));
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  afterEach(() => jest.restoreAllMocks());

  test('a dangling link, a link loop and an entry that vanishes during the walk, grouped by code, paths relative', async () => {
    // gone.jsonl is removed for real between reading the folder's names and resolving it.
    const resolve = fs.realpathSync.native;
    jest.spyOn(fs.realpathSync, 'native').mockImplementation(((p: string) => {
      if (path.basename(String(p)) === 'gone.jsonl' && fs.existsSync(p)) fs.unlinkSync(p);
      return resolve(p);
    }) as typeof fs.realpathSync.native);
    const r = await listFiles(new Sandbox(root), [], undefined);
    expect(r.files.map((f) => f.path)).toEqual(['a.jsonl']);
    expect(r.truncated).toBe(false);
    expect(r.skipped).toEqual([
      { code: 'NOT_FOUND', count: 2, paths: ['gone.jsonl', 'sub/dangling.jsonl'], message: 'No such file: gone.jsonl' },
      { code: 'INVALID_ARGUMENT', count: 2, paths: ['sub/loop-a', 'sub/loop-b'], message: 'Too many levels of symbolic links: sub/loop-a' },
    ]);
  });

  test('a glob still reports the links (they could have led to folders); nothing skipped is an empty list', async () => {
    expect((await listFiles(new Sandbox(root), [], undefined, { glob: 'a.*' })).skipped!.map((s) => [s.code, s.count])).toEqual([['NOT_FOUND', 1], ['INVALID_ARGUMENT', 2]]);
    fs.mkdirSync(path.join(root, 'clean'));
    fs.writeFileSync(path.join(root, 'clean', 'b.jsonl'), '{"b":1}\n');
    expect(await listFiles(new Sandbox(root), [], 'clean')).toMatchObject({ files: [{ path: 'clean/b.jsonl' }], truncated: false, skipped: [] });
  });
});
