/**
 * The JSONPath Compliance Test Suite evaluated through the lazy walk (src/engine/scan/walk.ts): each case's document
 * is written as a file (wrapped as {"d": document}, so array documents are documents too) and the query `$['d']…` runs
 * on the scan engine with thresholds that force every value through lazy nodes — once walking every container, once
 * streaming every array as a nested scan. Results must be the suite's, paths included.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import json from '../../plugins/format-json/src/index';
import type { Format, QueryLanguage } from '../../src/kernel/contracts';
import { compileJsonPath } from '../../plugins/query-jsonpath/src/compile';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { McpgwError } from '../../src/kernel/errors';
import { compareNumerals } from '../../src/engine/numbers/compare';
import { QueryScanEngine } from '../../src/engine/scan';
import { fileService, formatsOf } from '../helpers/formats';
import { jsonpath } from '../helpers/query';
import { sharedPath, skipMissing } from '../helpers/shared';
import { normalizedToPointer, type CtsCase } from './jsonpath-cts.test';

const file = sharedPath('conformance/jsonpath-cts.json');
/** Queries that read $ in a filter have no segments: they are never walked. */
const walkable = (c: CtsCase) => !!compileJsonPath(c.selector, {}, (code, message) => new McpgwError(code, message), compareNumerals).segments;
const cases: CtsCase[] = file ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { tests: CtsCase[] }).tests.filter((c) => !c.invalid_selector) : [];
let jp: QueryLanguage;
let formats: Format[];
let dir: string;
beforeAll(async () => {
  jp = await jsonpath();
  formats = await formatsOf(json);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-ctswalk-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const engines = {
  walked: new QueryScanEngine({ limits: () => DEFAULT_LIMITS, lazyBytes: 0, walk: { pieceBytes: 0, streamMin: Number.POSITIVE_INFINITY } }),
  streamed: new QueryScanEngine({ limits: () => DEFAULT_LIMITS, lazyBytes: 0, walk: { pieceBytes: 0, streamMin: 2 } }),
};

if (!file) skipMissing('conformance/jsonpath-cts.json');
(file ? describe.each(Object.keys(engines) as (keyof typeof engines)[]) : () => undefined)('CTS through lazy nodes (%s)', (mode: keyof typeof engines) => {
  test('every case is covered but the ones that read $ in a filter (they are never walked: the document is parsed whole, or the query is refused over maxRecordBytes)', () => {
    const unwalkable = cases.filter((c) => !walkable(c));
    expect(unwalkable).toHaveLength(13);
    for (const c of unwalkable) expect(c.selector).toMatch(/\?.*\$(?!')/s);
  });

  test.each(cases.map((c, i) => [`${i} ${c.name}`, i, c] as const).filter(([, , c]) => walkable(c)))('%s', async (_name, i, c) => {
    const name = `${mode}-${i}.json`;
    fs.writeFileSync(path.join(dir, name), JSON.stringify({ d: c.document }));
    const f = await fileService(dir, formats).open(name);
    try {
      const query = jp.compile(`$['d']${c.selector.slice(1)}`);
      const r = await engines[mode].run({ source: f.source, query, addressing: 'file' });
      expect(r.complete).toBe(true);
      const values = r.nodes.map((n) => n.value);
      const paths = r.nodes.map((n) => n.path);
      const expectPaths = (ps: string[]) => expect(paths).toEqual(ps.map((p) => '/d' + normalizedToPointer(p)));
      if (c.result) {
        expect(values).toEqual(c.result);
        expectPaths(c.result_paths!);
      } else {
        const k = c.results!.findIndex((res) => JSON.stringify(res) === JSON.stringify(values));
        expect(k).toBeGreaterThanOrEqual(0);
        expectPaths(c.results_paths![k]!);
      }
    } finally {
      f.close();
    }
  });
});
