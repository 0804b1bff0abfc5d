/**
 * FileAccess.within: file access confined to several folders (the session homes), each a wall like the root.
 * T/a (a wall), T/b (a wall), T/outside; T/a/link-b -> T/b/f.jsonl (crosses walls), T/a/link-out -> T/outside/s.jsonl.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import { formatsOf, fileService } from '../helpers/formats';
import type { Format } from '../../src/kernel/contracts';
import { RootlessFiles } from '../../src/kernel/files/file-service';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';

let tmp: string;
let formats: Format[];

beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-within-')));
  for (const d of ['a/sub', 'b', 'outside', 'root']) fs.mkdirSync(path.join(tmp, d), { recursive: true });
  fs.writeFileSync(path.join(tmp, 'a', 'sub', 'f.jsonl'), '{"in":"a"}\n');
  fs.writeFileSync(path.join(tmp, 'b', 'f.jsonl'), '{"in":"b"}\n{"in":"b2"}\n');
  fs.writeFileSync(path.join(tmp, 'outside', 's.jsonl'), '{"secret":1}\n');
  fs.symlinkSync(path.join(tmp, 'b', 'f.jsonl'), path.join(tmp, 'a', 'link-b.jsonl'));
  fs.symlinkSync(path.join(tmp, 'outside', 's.jsonl'), path.join(tmp, 'a', 'link-out.jsonl'));
  formats = await formatsOf(jsonl);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const codeOf = async (p: Promise<unknown>) => p.then(() => 'ok', (e) => (e as { code?: string }).code);

test('opens absolute paths inside any of the folders; display paths are absolute real paths', async () => {
  const files = fileService(path.join(tmp, 'root'), formats).within([path.join(tmp, 'a'), path.join(tmp, 'b'), path.join(tmp, 'missing')]);
  const a = await files.open(path.join(tmp, 'a', 'sub', 'f.jsonl'));
  expect([a.path, a.source.count, a.source.value(0)]).toEqual([path.join(tmp, 'a', 'sub', 'f.jsonl'), 1, { in: 'a' }]);
  a.close();
  const b = await files.open(path.join(tmp, 'b', 'f.jsonl'));
  expect(b.source.count).toBe(2);
  files.verify(b.source, b.realPath);
  b.close();
});

test('outside every folder, through a link out, or across walls: ACCESS_DENIED; relative paths: INVALID_ARGUMENT', async () => {
  const files = fileService(path.join(tmp, 'root'), formats).within([path.join(tmp, 'a'), path.join(tmp, 'b')]);
  expect(await codeOf(files.open(path.join(tmp, 'outside', 's.jsonl')))).toBe('ACCESS_DENIED');
  expect(await codeOf(files.open(path.join(tmp, 'a', 'link-out.jsonl')))).toBe('ACCESS_DENIED');
  expect(await codeOf(files.open(path.join(tmp, 'a', 'link-b.jsonl')))).toBe('ACCESS_DENIED');
  expect(await codeOf(files.open(path.join(tmp, 'a', '..', 'outside', 's.jsonl')))).toBe('ACCESS_DENIED');
  expect(await codeOf(files.open(path.join(tmp, 'nope', 'x.jsonl')))).toBe('ACCESS_DENIED');
  expect(await codeOf(files.open(path.join(tmp, 'a', 'nope.jsonl')))).toBe('NOT_FOUND');
  expect(await codeOf(files.open('sub/f.jsonl'))).toBe('INVALID_ARGUMENT');
});

test('the root stays out of reach of a within() that does not name it', async () => {
  fs.writeFileSync(path.join(tmp, 'root', 'r.jsonl'), '{}\n');
  const files = fileService(path.join(tmp, 'root'), formats).within([path.join(tmp, 'a')]);
  expect(await codeOf(files.open(path.join(tmp, 'root', 'r.jsonl')))).toBe('ACCESS_DENIED');
});

test('openRaw: a checked descriptor of a file inside the walls, refused as open refuses; closing it twice is harmless', async () => {
  const files = fileService(path.join(tmp, 'root'), formats).within([path.join(tmp, 'a'), path.join(tmp, 'b')]);
  const raw = files.openRaw!(path.join(tmp, 'b', 'f.jsonl'));
  const buf = Buffer.alloc(64);
  expect([raw.path, raw.size, buf.subarray(0, fs.readSync(raw.fd, buf, 0, 64, 0)).toString()]).toEqual([path.join(tmp, 'b', 'f.jsonl'), Buffer.byteLength('{"in":"b"}\n{"in":"b2"}\n'), '{"in":"b"}\n{"in":"b2"}\n']);
  raw.close();
  expect(() => fs.fstatSync(raw.fd)).toThrow();
  raw.close();
  const code = (fn: () => unknown) => { try { fn(); return 'ok'; } catch (e) { return (e as { code?: string }).code; } };
  expect(code(() => files.openRaw!(path.join(tmp, 'a', 'link-out.jsonl')))).toBe('ACCESS_DENIED');
  expect(code(() => files.openRaw!(path.join(tmp, 'outside', 's.jsonl')))).toBe('ACCESS_DENIED');
  expect(code(() => files.openRaw!(path.join(tmp, 'a', 'sub')))).toBe('INVALID_ARGUMENT');
  expect(code(() => files.openRaw!(path.join(tmp, 'a', 'nope.jsonl')))).toBe('NOT_FOUND');
  expect(code(() => new RootlessFiles(() => formats, DEFAULT_LIMITS).openRaw(path.join(tmp, 'b', 'f.jsonl')))).toBe('ACCESS_DENIED');
});
