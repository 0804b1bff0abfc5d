/**
 * System errors that a temp folder cannot provoke (EIO, EMFILE, an errno nobody expected) become catalogue errors
 * naming the path as given, never the system's message, which quotes the absolute path. The failing system call is
 * replaced for one call by a stub that throws what Node throws (a SystemError-shaped Error with code, errno,
 * syscall and path).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { toErrorPayload, McpgwError } from '../../src/kernel/errors';
import { Sandbox } from '../../src/kernel/files/sandbox';
import { openInside } from '../../src/kernel/files/descriptor';
import { osError } from '../../src/kernel/files/os-error';
import { catalogueCode, reason, sessionPathError } from '../../plugins/tools-sessions/src/os-error';

/** When set, `openSync` calls it instead of opening (one failing system call on demand). */
let mockOpen: ((p: string) => never) | null = null;
jest.mock('node:fs', () => {
  const actual = jest.requireActual('node:fs');
  return { ...actual, openSync: (...args: unknown[]) => (mockOpen ? mockOpen(String(args[0])) : actual.openSync(...args)) };
});

let tmp: string;
let root: string;
let sandbox: Sandbox;

/** What Node throws for a failed system call on `p`. */
function systemError(code: string, errno: number, syscall: string, p: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, ${syscall} '${p}'`), { code, errno: -errno, syscall, path: p });
}

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-oserr-unit-')));
  root = path.join(tmp, 'data');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'f.jsonl'), '{"a":1}\n');
  sandbox = new Sandbox(root);
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(() => { jest.restoreAllMocks(); mockOpen = null; });

const payload = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(McpgwError);
    return (err as McpgwError).toPayload();
  }
  throw new Error('no error');
};

test('the errno table: each code, the path as given, no system message', () => {
  const abs = path.join(root, 'x.jsonl');
  const cases: [string, number, string, string][] = [
    ['ENOENT', 2, 'NOT_FOUND', 'No such file: x.jsonl'],
    ['ENOTDIR', 20, 'NOT_FOUND', 'No such file: x.jsonl'],
    ['EACCES', 13, 'ACCESS_DENIED', 'Permission denied: x.jsonl'],
    ['EPERM', 1, 'ACCESS_DENIED', 'Permission denied: x.jsonl'],
    ['ELOOP', 40, 'INVALID_ARGUMENT', 'Too many levels of symbolic links: x.jsonl'],
    ['ENAMETOOLONG', 36, 'INVALID_ARGUMENT', 'The path is longer than the system allows: x.jsonl'],
    ['EISDIR', 21, 'INVALID_ARGUMENT', 'x.jsonl is not a regular file.'],
    ['ENXIO', 6, 'INVALID_ARGUMENT', 'x.jsonl is not a regular file.'],
    ['EMFILE', 24, 'RESOURCE_LIMIT_EXCEEDED', 'Cannot open x.jsonl: the server has too many files open.'],
    ['ENFILE', 23, 'RESOURCE_LIMIT_EXCEEDED', 'Cannot open x.jsonl: the server has too many files open.'],
    ['EIO', 5, 'IO_ERROR', 'Cannot open x.jsonl: the system reported EIO (open).'],
    ['EOVERFLOW', 75, 'IO_ERROR', 'Cannot open x.jsonl: the system reported EOVERFLOW (open).'],
  ];
  for (const [errno, n, code, message] of cases) {
    const p = osError(systemError(errno, n, 'open', abs), 'x.jsonl', 'open').toPayload();
    expect({ errno, code: p.code, message: p.message }).toEqual({ errno, code, message });
    expect(JSON.stringify(p)).not.toContain(tmp);
  }
});

test('the sandbox: an unexpected errno from realpath is IO_ERROR without the absolute path', () => {
  const real = fs.realpathSync.native;
  jest.spyOn(fs.realpathSync, 'native').mockImplementation((p) => {
    if (String(p).endsWith('f.jsonl')) throw systemError('EIO', 5, 'realpath', String(p));
    return real(p);
  });
  expect(payload(() => sandbox.resolve('f.jsonl'))).toEqual({ code: 'IO_ERROR', message: 'Cannot resolve f.jsonl: the system reported EIO (realpath).' });
});

test('opening: EMFILE is RESOURCE_LIMIT_EXCEEDED, EIO is IO_ERROR, neither quotes the root', () => {
  const real = sandbox.resolve('f.jsonl');
  for (const [errno, n, code] of [['EMFILE', 24, 'RESOURCE_LIMIT_EXCEEDED'], ['EIO', 5, 'IO_ERROR']] as const) {
    mockOpen = (p) => { throw systemError(errno, n, 'open', p); };
    const p = payload(() => openInside(sandbox, real, 'f.jsonl'));
    expect(p.code).toBe(code);
    expect(p.message).toContain('f.jsonl');
    expect(JSON.stringify(p)).not.toContain(tmp);
  }
  mockOpen = null;
  const ok = openInside(sandbox, real, 'f.jsonl');
  fs.closeSync(ok.fd);
});

test('a system error no caller mapped becomes IO_ERROR naming errno and call, not INTERNAL_ERROR quoting the path', () => {
  expect(toErrorPayload(systemError('ENOSPC', 28, 'write', path.join(root, 'f.jsonl')))).toEqual({
    code: 'IO_ERROR',
    message: 'A file operation failed: the system reported ENOSPC (write).',
  });
  // Other errors keep their meaning.
  expect(toErrorPayload(new TypeError('x is not a function'))).toEqual({ code: 'INTERNAL_ERROR', message: 'Internal error: x is not a function' });
});

test('sessions: path errors get catalogue codes; reasons and warning codes never carry the system message', () => {
  const ctx = { error: (code: any, message: string, details?: any) => new McpgwError(code, message, details) };
  const home = '/home/someone/.claude/projects/x.jsonl';
  const codes = Object.fromEntries(['ENOENT', 'EACCES', 'ELOOP', 'ENAMETOOLONG', 'EMFILE', 'EIO'].map((e) => [e, sessionPathError(ctx, systemError(e, 1, 'realpath', `/secret${home}`), home).toPayload()]));
  expect(Object.fromEntries(Object.entries(codes).map(([e, p]) => [e, p.code]))).toEqual({
    ENOENT: 'NOT_FOUND', EACCES: 'ACCESS_DENIED', ELOOP: 'INVALID_ARGUMENT', ENAMETOOLONG: 'INVALID_ARGUMENT', EMFILE: 'RESOURCE_LIMIT_EXCEEDED', EIO: 'IO_ERROR',
  });
  expect(codes.EIO!.message).toBe(`Cannot read ${home}: the system reported EIO (realpath)`);
  for (const p of Object.values(codes)) expect(JSON.stringify(p)).not.toContain('/secret');
  expect(reason(systemError('EACCES', 13, 'scandir', '/secret/home'))).toBe('the system reported EACCES (scandir)');
  expect(reason(new McpgwError('SYNTAX_ERROR', 'bad JSON at byte 3'))).toBe('bad JSON at byte 3');
  expect(catalogueCode(systemError('EIO', 5, 'read', '/x'))).toBe('IO_ERROR');
  expect(catalogueCode(new McpgwError('SOURCE_CHANGED', 'x'))).toBe('SOURCE_CHANGED');
  expect(catalogueCode(new Error('plain'))).toBe('IO_ERROR');
});
