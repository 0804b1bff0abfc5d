import * as fs from 'node:fs';
import type { QueryLanguage } from '../../src/kernel/contracts';
import { McpgwError } from '../../src/kernel/errors';
import { jsonpath } from '../helpers/query';
import { sharedPath, skipMissing } from '../helpers/shared';

export interface CtsCase {
  name: string;
  selector: string;
  document?: unknown;
  result?: unknown[];
  results?: unknown[][];
  result_paths?: string[];
  results_paths?: string[][];
  invalid_selector?: boolean;
}

/** RFC 9535 §2.7 normalized path → RFC 6901 pointer. */
export function normalizedToPointer(p: string): string {
  let out = '';
  let i = 1; // after $
  while (i < p.length) {
    if (p[i] !== '[') throw new Error(`bad normalized path ${p}`);
    i++;
    if (p[i] === "'") {
      i++;
      let name = '';
      while (p[i] !== "'") {
        if (p[i] === '\\') {
          const c = p[i + 1]!;
          if (c === 'u') { name += String.fromCharCode(parseInt(p.slice(i + 2, i + 6), 16)); i += 6; continue; }
          name += ({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '/': '/', '\\': '\\', "'": "'" } as Record<string, string>)[c]!;
          i += 2;
          continue;
        }
        name += p[i];
        i++;
      }
      i += 2; // ']
      out += '/' + name.replace(/~/g, '~0').replace(/\//g, '~1');
    } else {
      const j = p.indexOf(']', i);
      out += '/' + p.slice(i, j);
      i = j + 1;
    }
  }
  return out;
}

const file = sharedPath('conformance/jsonpath-cts.json');
const cases: CtsCase[] = file ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { tests: CtsCase[] }).tests : [];
let jp: QueryLanguage;
beforeAll(async () => {
  jp = await jsonpath();
});

if (!file) skipMissing('conformance/jsonpath-cts.json');
(file ? describe : () => undefined)('JSONPath Compliance Test Suite (RFC 9535), every case through the plugin', () => {
  test('the suite has 703 cases', () => {
    expect(cases).toHaveLength(703);
  });

  test.each(cases.map((c, i) => [`${i} ${c.name}`, c] as const))('%s', (_name, c) => {
    if (c.invalid_selector) {
      let err: unknown;
      try { jp.compile(c.selector); } catch (e) { err = e; }
      expect(err).toBeInstanceOf(McpgwError);
      expect((err as McpgwError).code).toBe('QUERY_SYNTAX_ERROR');
      expect(typeof (err as McpgwError).location?.position).toBe('number');
      return;
    }
    const nodes = jp.compile(c.selector).evaluate(c.document);
    const values = nodes.map((n) => n.value);
    const paths = nodes.map((n) => n.path);
    if (c.result) {
      expect(values).toEqual(c.result);
      expect(paths).toEqual(c.result_paths!.map(normalizedToPointer));
    } else {
      const k = c.results!.findIndex((r) => JSON.stringify(r) === JSON.stringify(values));
      expect(k).toBeGreaterThanOrEqual(0);
      expect(paths).toEqual(c.results_paths![k]!.map(normalizedToPointer));
    }
  });
});
