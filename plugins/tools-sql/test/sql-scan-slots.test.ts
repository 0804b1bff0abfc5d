/**
 * DuckDB computes on this machine's cores, so sql_query and sql_tables take one of the server-wide scan slots
 * (maxConcurrentScans) while they work, as a scan does, and give it back; a ClickHouse dataset query takes none. The
 * engines are fakes that record when they run; the slots are a counter standing for `ctx.scan.slot`.
 */
import { FakeClock } from '../../../src/kernel/fake-clock';
import { McpgwError } from '../../../src/kernel/errors';
import { sqlQuery, sqlTables, type Engines } from '../src/tools';
import type { RowStream, SqlEngine } from '../src/engine';
import { exploreContext } from '../../../test/helpers/explore-context';

function stream(engine: string, rows: unknown[][], held: () => number, seen: number[]): RowStream {
  let done = false;
  return {
    engine, columns: [{ name: 'n', type: 'BIGINT' }], warnings: [], stamps: [],
    async next() { seen.push(held()); if (done) return null; done = true; return rows; },
    close() { done = true; },
  };
}

function setup(refuse = false) {
  let held = 0, taken = 0;
  const seen: number[] = [];
  const slot = async () => {
    if (refuse) throw new McpgwError('RESOURCE_LIMIT_EXCEEDED', 'No scan slot freed before the deadline.', { limit: { name: 'maxConcurrentScans', limit: 1 } });
    held++; taken++;
    let given = false;
    return () => { if (!given) { given = true; held--; } };
  };
  const engine = (name: string): SqlEngine => ({
    name,
    tables: async () => { seen.push(held); return { tables: [{ name: 't.jsonl', kind: 'file', engine: name, columns: [] }], more: false }; },
    run: async () => stream(name, [[1], [2], [3]], () => held, seen),
  }) as unknown as SqlEngine;
  const engines = () => ({ files: engine('duckdb'), datasets: [Object.assign(engine('clickhouse'), { datasets: () => ['logs'] })] }) as unknown as Engines;
  const ctx = exploreContext(new FakeClock(0), { extra: { scan: { slot }, root: '/r' } });
  return { engines, ctx, held: () => held, taken: () => taken, seen };
}

test('a DuckDB query holds one slot while it computes its page, and gives it back', async () => {
  const s = setup();
  const out = await sqlQuery(s.engines).handler({ sql: 'SELECT 1', path: 't.jsonl', max_rows: 2 } as never, s.ctx) as any;
  expect(out.rows).toEqual([[1], [2]]);
  expect(s.seen).toEqual([1]); // the engine ran with the slot held
  expect([s.taken(), s.held()]).toEqual([1, 0]);
  // The next page of the same query: a slot again.
  await sqlQuery(s.engines).handler({ cursor: out.next_cursor } as never, s.ctx);
  expect([s.taken(), s.held()]).toEqual([2, 0]);
});

test('a ClickHouse dataset query takes no slot', async () => {
  const s = setup();
  await sqlQuery(s.engines).handler({ sql: 'SELECT 1', dataset: 'logs' } as never, s.ctx);
  expect(s.seen).toEqual([0, 0]);
  expect(s.taken()).toBe(0);
});

test('sql_tables describes with a slot held; no free slot is the tools\' error, nothing run', async () => {
  const s = setup();
  await sqlTables(s.engines).handler({} as never, s.ctx);
  expect(s.seen[s.seen.length - 1]).toBe(1);
  expect([s.taken(), s.held()]).toEqual([1, 0]);
  const busy = setup(true);
  await expect(sqlQuery(busy.engines).handler({ sql: 'SELECT 1', path: 't.jsonl' } as never, busy.ctx)).rejects.toMatchObject({ code: 'RESOURCE_LIMIT_EXCEEDED' });
  expect(busy.seen).toEqual([]);
});
