/**
 * The plugin kit's runtime helpers and the engine toolkit's, tested once for every plugin that uses them: RFC 6901
 * pointers (escape, format, parse with positions of faults), RFC 8259 whitespace, path tokens, the capturing test
 * context, and the resolution of `mcpgw/plugin-kit` to the running kernel's module for plugins that live where no
 * `mcpgw` package is installed.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { appendToken, escapeToken, formatPointer, parsePointer, PointerSyntaxError, registerPlugin, unescapeToken } from '../../src/plugin-kit/index';
import { isJsonWhitespace, skipJsonWhitespace } from '../../src/engine/bytes/json-walk';
import { tokenIndex, tokenName, tokenText } from '../../src/engine/paths/path-token';
import { canonicalPath } from '../../src/engine/aggregate/spec';
import { REPO, NODE } from '../helpers/mcp';

describe('path tokens: RFC 6901 by the value met, RFC 9535 index and name selectors', () => {
  test('what each kind selects in an array (tokenIndex) and in an object (tokenName)', () => {
    // [token, element in an array (NaN: none), member in an object (undefined: none)]
    const cases: [Parameters<typeof tokenIndex>[0], number, string | undefined][] = [
      ['0', 0, '0'], ['12', 12, '12'], ['01', NaN, '01'], ['-1', NaN, '-1'], ['-', NaN, '-'], ['a', NaN, 'a'],
      [0, 0, '0'], [-1, -1, '-1'],
      [{ index: 0 }, 0, undefined], [{ index: -2 }, -2, undefined],
      [{ name: '0' }, NaN, '0'], [{ name: 'a' }, NaN, 'a'], [{ name: '' }, NaN, ''],
    ];
    for (const [t, index, name] of cases) expect([t, tokenIndex(t), tokenName(t)]).toEqual([t, index, name]);
    expect([{ index: 3 }, { name: 'a/b' }, 'x', 7].map(tokenText)).toEqual(['3', 'a/b', 'x', '7']);
  });

  test('canonical paths: one spelling per meaning, never one for two meanings; plain data through structuredClone and JSON', () => {
    const path = ['0', { name: 'a' }, { name: '0' }, { index: 0 }, 0, '01', { name: '\ud800' }];
    const c = canonicalPath(path);
    expect(c).toEqual([0, 'a', { name: '0' }, { index: 0 }, 0, '01', '\ufffd']);
    expect(structuredClone(c)).toEqual(c);
    expect(JSON.parse(JSON.stringify(c))).toEqual(c);
    const keys = [[0], [{ index: 0 }], [{ name: '0' }]].map((p) => JSON.stringify(canonicalPath(p)));
    expect(new Set(keys).size).toBe(3);
  });
});

describe('RFC 6901 pointers', () => {
  test('escaping: ~ first, then / (§3); unescaping in the reverse order (§4), so ~01 is ~1', () => {
    expect(escapeToken('a/b~c')).toBe('a~1b~0c');
    expect(escapeToken('~1')).toBe('~01');
    expect(escapeToken(12)).toBe('12');
    expect(unescapeToken('~01')).toBe('~1');
    expect(unescapeToken('a~1b~0c')).toBe('a/b~c');
  });

  test('formatting and appending', () => {
    expect(formatPointer([])).toBe('');
    expect(formatPointer(['', 'a/b', 0, '~'])).toBe('//a~1b/0/~0');
    expect(appendToken('/x', 'm~n')).toBe('/x/m~0n');
  });

  test('parsing the examples of RFC 6901 §5 and the fragment form of §6', () => {
    const doc = { foo: ['bar', 'baz'], '': 0, 'a/b': 1, 'c%d': 2, 'e^f': 3, 'g|h': 4, 'i\\j': 5, 'k"l': 6, ' ': 7, 'm~n': 8 };
    const cases: [string, string[]][] = [
      ['', []], ['/foo', ['foo']], ['/foo/0', ['foo', '0']], ['/', ['']], ['/a~1b', ['a/b']], ['/c%d', ['c%d']], ['/e^f', ['e^f']],
      ['/g|h', ['g|h']], ['/i\\j', ['i\\j']], ['/k"l', ['k"l']], ['/ ', [' ']], ['/m~0n', ['m~n']],
    ];
    for (const [text, tokens] of cases) {
      expect(parsePointer(text)).toEqual(tokens);
      expect(formatPointer(tokens)).toBe(text);
      expect(tokens.every((t, k) => k > 0 || t in doc)).toBe(true);
    }
    expect(parsePointer('#/c%25d', { fragment: true })).toEqual(['c%d']);
    expect(parsePointer('#/m~0n', { fragment: true })).toEqual(['m~n']);
    expect(parsePointer('#', { fragment: true })).toEqual([]);
  });

  test.each([
    ['a/b', 'start', 0], ['/a~2', 'escape', 2], ['/ok/x~', 'escape', 5], ['#a', 'start', 1], ['#/%zz', 'fragment', 2],
  ] as const)('%s is no pointer: %s at character %d', (text, reason, position) => {
    let err: unknown;
    try { parsePointer(text, { fragment: true }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(PointerSyntaxError);
    expect(err).toMatchObject({ reason, position });
  });

  test('without fragment: true, # is an ordinary first character (not a pointer)', () => {
    expect(() => parsePointer('#/a')).toThrow(expect.objectContaining({ reason: 'start', position: 0 }));
  });
});

test('JSON whitespace is exactly space, tab, LF and CR (RFC 8259 §2)', () => {
  const ws = [...Array(256).keys()].filter(isJsonWhitespace);
  expect(ws).toEqual([0x09, 0x0a, 0x0d, 0x20]);
  const bytes = Buffer.from(' \t\r\n x \u00a0');
  expect(skipJsonWhitespace(bytes, 0)).toBe(5);
  expect(skipJsonWhitespace(bytes, 6)).toBe(7);
  expect(skipJsonWhitespace(bytes, 0, 3)).toBe(3);
});

test('registerPlugin captures contributions, validated options and log lines', async () => {
  const got = await registerPlugin({
    name: 'p', version: '1.0.0', apiVersion: '^3.0.0',
    options: { safeParse: (o: unknown) => ({ success: true as const, data: { n: Number((o as { n?: number }).n ?? 1) * 2 } }) },
    register(c, o) {
      c.log.warn('hi', { n: o.n });
      c.registerQueryLanguage({ name: 'q', compile: (text) => ({ text, evaluate: () => [] }) });
    },
  }, { n: 4 });
  expect(got.options).toEqual({ n: 8 });
  expect(got.queryLanguages.map((l) => l.name)).toEqual(['q']);
  expect(got.logged).toEqual([['warn', 'hi', { n: 8 }]]);
});

test('a plugin that imports mcpgw/plugin-kit at run time gets the running kernel\'s module, wherever it lives', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-apimod-'));
  try {
    fs.writeFileSync(path.join(dir, 'p.cjs'), "module.exports = require('mcpgw/plugin-kit');\n");
    fs.writeFileSync(path.join(dir, 'p.mjs'), "export { PLUGIN_API_VERSION, escapeToken } from 'mcpgw/plugin-kit';\n");
    const script = `
      const kernel = require(${JSON.stringify(path.join(REPO, 'dist', 'plugin-kit', 'index.js'))});
      let before = 'resolved';
      try { require(${JSON.stringify(path.join(dir, 'p.cjs'))}); } catch (e) { before = e.code; }
      require(${JSON.stringify(path.join(REPO, 'dist', 'kernel', 'plugins', 'api-module.js'))}).installApiResolution();
      const cjs = require(${JSON.stringify(path.join(dir, 'p.cjs'))});
      import(${JSON.stringify('file://' + path.join(dir, 'p.mjs'))}).then((esm) => {
        process.stdout.write(JSON.stringify([before, cjs === kernel, esm.PLUGIN_API_VERSION, esm.escapeToken('a/b')]));
      });`;
    const r = spawnSync(NODE, ['-e', script], { cwd: dir, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(['MODULE_NOT_FOUND', true, '3.3.0', 'a~1b']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('indexOfBytes finds what Buffer#indexOf finds, for needles short and long, from any start (the probe tests are in scan-needle.test.ts)', () => {
  const fc = jest.requireActual('fast-check') as typeof import('fast-check');
  const { indexOfBytes } = jest.requireActual('../../src/engine/bytes/bytes') as typeof import('../../src/engine/bytes/bytes');
  fc.assert(fc.property(
    fc.array(fc.constantFrom(0x41, 0x42, 0x43, 0x2d, 0x5c), { maxLength: 200 }),
    fc.array(fc.constantFrom(0x41, 0x42, 0x43, 0x2d), { minLength: 1, maxLength: 12 }),
    fc.nat(220),
    (hay, needle, from) => {
      const h = Buffer.from(hay), n = Buffer.from(needle);
      expect(indexOfBytes(h, n, from)).toBe(h.indexOf(n, from));
    },
  ), { numRuns: 5000 });
  const big = Buffer.from('x'.repeat(100) + 'NEEDLE-7f3b NEEDLE-7f3a');
  expect(indexOfBytes(big, Buffer.from('NEEDLE-7f3a'), 0)).toBe(112);
  expect(indexOfBytes(big, Buffer.from('NEEDLE-7f3az'), 0)).toBe(-1);
});
