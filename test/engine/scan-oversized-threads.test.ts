/**
 * A record over maxRecordBytes that is itself the node (`$[0]`) in a scan run on worker threads: its node reaches the
 * sink (the threads' scan finishes without flushing it again), as on the main thread.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonl from '../../plugins/format-jsonl/src/index';
import type { Format, QueryLanguage } from '../../src/kernel/contracts';
import type { ScanNode } from '../../src/kernel/contracts/scan';
import { DEFAULT_LIMITS } from '../../src/kernel/config/defaults';
import { QueryScanEngine, ThreadPool } from '../../src/engine/scan';
import { fileService, formatsOf } from '../helpers/formats';
import { jsonpath } from '../helpers/query';

let dir: string;
let formats: Format[];
let jp: QueryLanguage;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-oversized-threads-'));
  formats = await formatsOf(jsonl);
  jp = await jsonpath();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const RECORD0 = JSON.stringify({ id: 1, pad: 'x'.repeat(5000), tail: 7 });

test.each([['threads', 0], ['main thread', undefined]])('on the %s: $[0] over maxRecordBytes reaches the sink', async (_, minBytes) => {
  fs.writeFileSync(path.join(dir, 'big.jsonl'), RECORD0 + '\n{"id":2}\n');
  const limits = { ...DEFAULT_LIMITS, maxRecordBytes: 1000 };
  const opened = await fileService(dir, formats, limits).open('big.jsonl');
  const pool = new ThreadPool({ pluginOf: (n) => (n === 'jsonpath' ? { entry: require.resolve('../../plugins/query-jsonpath/dist/index.js'), options: {} } : undefined), threads: 1, ...(minBytes !== undefined ? { minBytes } : {}) });
  try {
    const run = jest.spyOn(pool, 'run');
    const engine = new QueryScanEngine({ limits: () => limits, workers: pool });
    const got: ScanNode[] = [];
    const r = await engine.run({ source: opened.source, query: jp.compile('$[0]'), addressing: 'file', sink: (nodes) => { got.push(...nodes); } });
    expect(run).toHaveBeenCalledTimes(minBytes === 0 ? 1 : 0);
    expect(r.skipped).toBe(0);
    expect(got.map((n) => n.path)).toEqual(['/0']);
    expect(got[0]!.node!.bytes!(0, 1000).toString()).toBe(RECORD0.slice(0, 1000));
    expect(got[0]!.node!.byteLength).toBe(RECORD0.length);
  } finally {
    opened.close();
  }
});
