import type { QueryLanguage } from '../../../src/kernel/contracts';
import { McpgwError } from '../../../src/kernel/errors';
import { pointer } from '../../../test/helpers/query';

let ptr: QueryLanguage;
beforeAll(async () => {
  ptr = await pointer();
});

const select = (p: string, doc: unknown) => ptr.compile(p).evaluate(doc);
const values = (p: string, doc: unknown) => select(p, doc).map((n) => n.value);
function syntaxError(p: string): McpgwError {
  try { ptr.compile(p); } catch (e) { return e as McpgwError; }
  throw new Error(`${p} compiled`);
}

/** RFC 6901 §5 example document. */
const DOC = { foo: ['bar', 'baz'], '': 0, 'a/b': 1, 'c%d': 2, 'e^f': 3, 'g|h': 4, 'i\\j': 5, 'k"l': 6, ' ': 7, 'm~n': 8 };

describe('JSON Pointer (RFC 6901)', () => {
  test('§5 examples, JSON string form', () => {
    expect(values('', DOC)).toEqual([DOC]);
    expect(values('/foo', DOC)).toEqual([['bar', 'baz']]);
    expect(values('/foo/0', DOC)).toEqual(['bar']);
    expect(values('/', DOC)).toEqual([0]);
    expect(values('/a~1b', DOC)).toEqual([1]);
    expect(values('/c%d', DOC)).toEqual([2]);
    expect(values('/e^f', DOC)).toEqual([3]);
    expect(values('/g|h', DOC)).toEqual([4]);
    expect(values('/i\\j', DOC)).toEqual([5]);
    expect(values('/k"l', DOC)).toEqual([6]);
    expect(values('/ ', DOC)).toEqual([7]);
    expect(values('/m~0n', DOC)).toEqual([8]);
  });

  test('§6 URI fragment form with percent-decoding', () => {
    expect(values('#', DOC)).toEqual([DOC]);
    expect(values('#/foo/0', DOC)).toEqual(['bar']);
    expect(values('#/', DOC)).toEqual([0]);
    expect(values('#/a~1b', DOC)).toEqual([1]);
    expect(values('#/c%25d', DOC)).toEqual([2]);
    expect(values('#/e%5Ef', DOC)).toEqual([3]);
    expect(values('#/i%5Cj', DOC)).toEqual([5]);
    expect(values('#/k%22l', DOC)).toEqual([6]);
    expect(values('#/%20', DOC)).toEqual([7]);
    expect(values('#/m~0n', DOC)).toEqual([8]);
    expect(values('#/%C3%BC', { ü: 9 })).toEqual([9]);
    expect(syntaxError('#/%zz').code).toBe('QUERY_SYNTAX_ERROR');
  });

  test('escape order: ~01 is the key "~1", not "/"', () => {
    expect(values('/~01', { '~1': 'tilde-one', '/': 'slash' })).toEqual(['tilde-one']);
    expect(select('/~01', { '~1': 1 })[0]!.path).toBe('/~01');
  });

  test('bad escapes and pointers not starting with / are QUERY_SYNTAX_ERROR with the position', () => {
    expect(syntaxError('/a~2').location).toEqual({ position: 2 });
    expect(syntaxError('/a~').code).toBe('QUERY_SYNTAX_ERROR');
    expect(syntaxError('a/b').location).toEqual({ position: 0 });
    expect(syntaxError('#a').location).toEqual({ position: 1 });
  });

  test('array indexes: no leading zeros, "-" and past-the-end select nothing', () => {
    expect(values('/foo/01', DOC)).toEqual([]);
    expect(values('/foo/-', DOC)).toEqual([]);
    expect(values('/foo/2', DOC)).toEqual([]);
    expect(values('/foo/1', DOC)).toEqual(['baz']);
    expect(values('/foo/+1', DOC)).toEqual([]);
    expect(values('/missing', DOC)).toEqual([]);
    expect(values('/foo/0/x', DOC)).toEqual([]);
  });

  test('own members only: prototype names are data or nothing', () => {
    const doc = JSON.parse('{"__proto__":{"x":1},"list":[1,2]}');
    expect(values('/__proto__/x', doc)).toEqual([1]);
    expect(values('/constructor', doc)).toEqual([]);
    expect(values('/toString', doc)).toEqual([]);
    expect(values('/list/length', doc)).toEqual([]);
    expect(values('/__proto__/hasOwnProperty', doc)).toEqual([]);
  });

  test('exact numbers pass through untouched', () => {
    const doc = { id: JSON.rawJSON('12345678901234567891') };
    expect(JSON.stringify(values('/id', doc)[0])).toBe('12345678901234567891');
  });

  test('split for whole-file addressing: first token picks a record, canonical index only', () => {
    const q = ptr.compile('/2/a~1b');
    expect(q.split!.range(5)).toEqual({ start: 2, end: 3, step: 1 });
    expect(q.split!.range(2)).toEqual({ start: 0, end: 0, step: 1 });
    expect(q.split!.inner!.evaluate({ 'a/b': 7 })).toEqual([{ path: '/a~1b', value: 7 }]);
    expect(ptr.compile('/02').split!.range(5)).toEqual({ start: 0, end: 0, step: 1 });
    expect(ptr.compile('/1').split!.inner).toBeNull();
    expect(ptr.compile('').split).toBeUndefined();
  });
});
