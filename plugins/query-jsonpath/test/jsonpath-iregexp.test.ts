import type { QueryLanguage } from '../../../src/kernel/contracts';
import { nonIRegexpConstructs } from '../src/iregexp';
import { jsonpath } from '../../../test/helpers/query';

let jp: QueryLanguage;
beforeAll(async () => {
  jp = await jsonpath();
});

/** The query's warnings, and its node list's values on `doc`. */
function run(query: string, doc: unknown) {
  const q = jp.compile(query);
  return { warnings: q.warnings ?? [], values: q.evaluate(doc).map((n) => n.value) };
}

const WORDS = ['cat face', 'catalog', 'room 123', 'ana@example', 'WARN', 'x'];

describe('match()/search() stay I-Regexp (RFC 9535 §2.4.6, §2.4.7), with a warning for other dialects', () => {
  it.each([
    // [pattern as the query spells it, its I-Regexp spelling, the construct and spelling the warning names]
    ['\\\\d{3}', '[0-9]{3}', '\\d → [0-9]', ['room 123']],
    ['\\\\w+@\\\\w+', '[0-9A-Za-z_]+@[0-9A-Za-z_]+', '\\w → [0-9A-Za-z_]', ['ana@example']],
    ['t\\\\sf', 't[ \\t\\n\\r]f', '\\s → [ \\t\\n\\r]', ['cat face']],
    ['(?:cat|WARN)', '(cat|WARN)', '(?: → (', ['cat face', 'catalog', 'WARN']],
  ])('search(@, %s): nothing, with a warning; its I-Regexp spelling %s works', (pattern, spelling, named, expected) => {
    const bad = run(`$[?search(@, '${pattern}')]`, WORDS);
    expect(bad.values).toEqual([]); // RFC 9535: not I-Regexp → LogicalFalse
    expect(bad.warnings).toHaveLength(1);
    expect(bad.warnings[0]).toMatchObject({ code: 'NOT_I_REGEXP', position: 14 });
    expect(bad.warnings[0]!.message).toContain(named);
    expect(bad.warnings[0]!.message).toContain('search()');
    const good = run(`$[?search(@, '${spelling.replace(/\\/g, '\\\\')}')]`, WORDS);
    expect(good.warnings).toEqual([]);
    expect(good.values).toEqual(expected);
  });

  it('names a construct without an I-Regexp spelling as such', () => {
    const r = run("$[?search(@, '\\\\bcat\\\\b')]", WORDS);
    expect(r.values).toEqual([]);
    expect(r.warnings[0]!.message).toContain('\\b has no I-Regexp spelling');
  });

  it('warns about a backspace: \\b in a JSONPath string literal is U+0008', () => {
    const r = run("$[?search(@, '\\bcat\\b')]", WORDS);
    expect(r.values).toEqual([]);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]!.message).toContain('backspace');
  });

  it('one warning per bad literal, each with its own position; I-Regexp and ^ $ anchors pass silently', () => {
    const query = "$[?match(@, '\\\\d+') || search(@, 'ca.') || search(@, '(?i)warn')]";
    const r = run(query, WORDS);
    expect(r.warnings.map((w) => [w.position, w.message.slice(0, 12)])).toEqual([[query.indexOf('\\\\d+'), 'The match() '], [query.indexOf('(?i)'), 'The search()']]);
    expect(r.values).toEqual(['cat face', 'catalog']);
    expect(run("$[?search(@, '^cat') && match(@, '[a-z ]+$')]", WORDS)).toEqual({ warnings: [], values: ['cat face', 'catalog'] });
  });

  it('also in whole-file streaming form and inside nested filters', () => {
    expect(jp.compile("$[?@.tags[?search(@, '\\\\d')]]").warnings?.length).toBe(1);
    expect(jp.compile("$..[?match(@.name, '\\\\w')].id").warnings?.length).toBe(1);
    expect(jp.compile('$[?search(@.a, @.b)]').warnings).toBeUndefined(); // not a literal: nothing to say at compile time
  });
});

describe('nonIRegexpConstructs', () => {
  it.each<[string, [string, string | null][]]>([
    ['\\d\\D\\w\\W\\s\\S', [['\\d', '[0-9]'], ['\\D', '[^0-9]'], ['\\w', '[0-9A-Za-z_]'], ['\\W', '[^0-9A-Za-z_]'], ['\\s', '[ \\t\\n\\r]'], ['\\S', '[^ \\t\\n\\r]']]],
    ['[\\d_]', [['\\d inside [...]', '0-9 inside the brackets']]],
    ['\\bx\\B', [['\\b', null], ['\\B', null]]],
    ['(?=a)(?<!b)(?<n>c)(?i)d', [['(?=', null], ['(?<!', null], ['(?<name>', '('], ['(?i)', 'both cases spelled out, e.g. [Cc]at']]],
    ['a*?b+?c{2}d{,3}', [['*?', '*'], ['+?', '+'], ['{,3}', '{0,3}']]],
    ['\\x41\\u00e9\\p{Greek}\\pL\\p{Lu}', [['\\x41', 'the character itself'], ['\\u00e9', 'the character itself'], ['\\p{Greek}', null], ['\\pL', '\\p{L}']]],
    ['(a)\\1\\A\\z', [['\\1', null], ['\\A', '^'], ['\\z', '$']]],
    ['[[:alpha:]]', [['[:alpha:]', 'A-Za-z inside the brackets']]],
    ['[a-z]+\\.(com|org)$', []],
  ])('%s', (pattern, expected) => {
    expect(nonIRegexpConstructs(pattern).map((c) => [c.construct, c.spelling])).toEqual(expected);
  });
});

describe('valid I-Regexps json-p3 2.3.1 made match nothing (RFC 9485 §5: NormalChar %x00-27, SingleCharEsc "\\-"; §5.3 mapping)', () => {
  const W = ['a-b', "a'b", 'x', '10', 'x10', 'ab', 'a\nb', 'a😀b', 'a.b'];
  it.each([
    [`match(@, "a-b")`, ['a-b']],
    [`match(@, "a\\\\-b")`, ['a-b']], // \- is a SingleCharEsc: a literal "-"
    [`match(@, "[Aa]\\\\-[Bb]")`, ['a-b']], // the explorer's case-insensitive predicate spells "-" so
    [`match(@, "[a\\\\-]-b")`, ['a-b']], // \- inside a class too
    [`match(@, "a'b")`, ["a'b"]], // ' is a NormalChar
    [`match(@, 'a\\'b')`, ["a'b"]], // the same pattern, in a single-quoted JSONPath string
    [`search(@, "'")`, ["a'b"]],
    [`match(@, "10$")`, ['10']], // match() stays anchored at both ends with an explicit $ (json-p3: "x10" too)
    [`search(@, "10")`, ['10', 'x10']],
    [`search(@, "10$")`, ['10', 'x10']],
    [`match(@, "^ab")`, ['ab']],
    [`match(@, "a.b")`, ['a-b', "a'b", 'a😀b', 'a.b']], // . is any character but CR and LF, a surrogate pair as one
    [`match(@, "a\\\\.b")`, ['a.b']],
  ])('%s', (expr, expected) => {
    const r = run(`$[?${expr}]`, W);
    expect(r.warnings).toEqual([]);
    expect(r.values).toEqual(expected);
  });

  it('!= of such a literal (the explorer\'s `$.w != "a-b"`) excludes exactly it', () => {
    expect(run('$[?!match(@, "[Aa]\\\\-[Bb]")]', W).values).toEqual(W.filter((w) => w !== 'a-b'));
  });

  it('patterns that are not I-Regexp still match nothing, with the warning where a construct is known', () => {
    expect(run(`$[?match(@, "a\\\\'b")]`, W)).toEqual({ warnings: [expect.objectContaining({ code: 'NOT_I_REGEXP' })], values: [] });
    expect(run(`$[?match(@, "a\\\\qb")]`, W).values).toEqual([]);
  });
});
