/**
 * Datasets on a real ClickHouse cluster: two clickhouse-server processes on 127.0.0.1 (one shard each, free ports) and
 * a `Distributed` table over both, read by the `sql` bundle through a real MCP client as a read-only user.
 * `dataset_aggregate` equals the explorer's `aggregate` over the same rows as a local JSON Lines file (the reference),
 * `dataset_sample_records` equals `sample_records`; the read-only user cannot write; a slow query is stopped at the
 * deadline; a server that is not there is a clear error, not a hang. Without clickhouse-server (installed by .ci/run)
 * the file is one skipped test locally, and fails under CI.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { call, connect, type Connected } from '../../../test/helpers/mcp';
import { clickhouseBinary, exec, freePort, startCluster, type ChCluster } from '../../../test/helpers/clickhouse';

const binary = clickhouseBinary();

/** JSON text with every number kept as its lexeme (a string), so exact numbers compare digit for digit. */
function lexemes(text: string): unknown {
  return (JSON.parse as (t: string, r: (k: string, v: unknown, c?: { source?: string }) => unknown) => unknown)(text, (_k, v, c) => (typeof v === 'number' ? `#${c?.source}` : v));
}

const SERVICES = ['auth', 'billing', 'inventory', 'search', 'web'];
const STATUSES = ['ok', 'ok', 'ok', 'failed', 'pending', 'retried'];
const N = 2000;

/** Row i of the data set, as ClickHouse takes it (JSONEachRow) and as the local file holds it (same member order). */
function row(i: number): { ch: string; file: string } {
  const id = i + 1;
  const ts = Date.UTC(2026, 10, 1) + i * 97_000; // one every 97 s: 2000 rows over ~54 h
  const service = SERVICES[(i * 7) % SERVICES.length]!;
  const status = STATUSES[(i * 13 + (i >> 3)) % STATUSES.length]!;
  const latency = `${(i * 37) % 900 + 1}.${String((i * 53) % 100).padStart(2, '0')}`; // two decimals, as the column's scale
  const bytes = i % 10 === 0 ? `${9007199254740000n + BigInt(i)}` : String((i * 7919) % 100_000); // some past 2^53
  const iso = new Date(ts).toISOString().replace('.000Z', 'Z');
  const chTs = iso.replace('T', ' ').replace('Z', '');
  return {
    ch: `{"id":${id},"ts":"${chTs}","service":"${service}","status":"${status}","latency_ms":${latency},"bytes":${bytes}}`,
    file: `{"id":${id},"ts":"${iso}","service":"${service}","status":"${status}","latency_ms":${latency},"bytes":${bytes}}`,
  };
}

if (!binary) {
  test.skip('sql datasets on ClickHouse: clickhouse-server is not installed (apt-get install clickhouse-server; .ci/run does)', () => {});
} else {
  let cluster: ChCluster;
  let base: string;
  let conn: Connected;
  let short: Connected;
  let goneUrl: string;

  beforeAll(async () => {
    cluster = await startCluster(binary, 2);
    const [a, b] = cluster.servers as [ChCluster['servers'][0], ChCluster['servers'][0]];
    const ddl = 'CREATE TABLE default.events_local (id UInt64, ts DateTime, service String, status String, latency_ms Decimal(12, 2), bytes UInt64) ENGINE = MergeTree ORDER BY id';
    await exec(a.http, ddl);
    await exec(b.http, ddl);
    await exec(a.http, 'CREATE TABLE default.events_all AS default.events_local ENGINE = Distributed(mcpgw_test, default, events_local, id)');
    const rows = Array.from({ length: N }, (_, i) => row(i));
    // Odd ids on the first shard, even ids on the second: the answer needs both.
    await exec(a.http, 'INSERT INTO default.events_local FORMAT JSONEachRow', { body: rows.filter((_, i) => i % 2 === 0).map((r) => r.ch).join('\n') });
    await exec(b.http, 'INSERT INTO default.events_local FORMAT JSONEachRow', { body: rows.filter((_, i) => i % 2 === 1).map((r) => r.ch).join('\n') });
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-sqlch-')));
    fs.mkdirSync(path.join(base, 'data'));
    fs.writeFileSync(path.join(base, 'data', 'events.jsonl'), rows.map((r) => r.file).join('\n') + '\n');
    goneUrl = `http://127.0.0.1:${await freePort()}`;
    const config = {
      root: './data',
      sql: {
        datasets: {
          events: { url: `http://127.0.0.1:${a.http}`, user: 'reader', passwordEnv: 'MCPGW_TEST_CH_PASSWORD', table: 'default.events_all', orderBy: ['id'], description: 'test events on two shards' },
          gone: { url: goneUrl, user: 'reader', table: 'default.events_all' },
        },
      },
      profiles: {
        default: { bundles: ['explore', 'sql'] },
        short: { bundles: ['sql'], limits: { requestTimeoutMs: 1000 } },
      },
    };
    fs.writeFileSync(path.join(base, 'mcpgw.json'), JSON.stringify(config));
    const env = { MCPGW_TEST_CH_PASSWORD: cluster.readerPassword };
    conn = await connect(['--config', path.join(base, 'mcpgw.json')], { env });
    short = await connect(['--config', path.join(base, 'mcpgw.json'), '--profile', 'short'], { env });
  }, 180_000);

  afterAll(async () => {
    await conn?.close();
    await short?.close();
    await cluster?.stop();
    if (base) fs.rmSync(base, { recursive: true, force: true });
  }, 60_000);

  test('the Distributed table holds both shards\' rows', async () => {
    const [a, b] = cluster.servers;
    expect((await exec(a!.http, 'SELECT count() FROM default.events_local')).trim()).toBe(String(N / 2));
    expect((await exec(b!.http, 'SELECT count() FROM default.events_local')).trim()).toBe(String(N / 2));
    const { data, isError } = await call(conn.client, 'sql_query', { dataset: 'events', sql: 'SELECT count() AS n, sum(bytes) AS s FROM t' });
    expect(isError).toBe(false);
    expect(data.engine).toBe('clickhouse');
    const expectedSum = Array.from({ length: N }, (_, i) => BigInt(/"bytes":(\d+)/.exec(row(i).ch)![1]!)).reduce((x, y) => x + y, 0n);
    expect(data.rows[0][0]).toBe(N);
    const { text: raw } = await call(conn.client, 'sql_query', { dataset: 'events', sql: 'SELECT sum(bytes) AS s FROM t' });
    expect(raw).toContain(`"rows":[[${expectedSum}]]`);
  });

  describe('dataset_aggregate equals aggregate over the same rows as a local JSON Lines file', () => {
    let handle: string;
    beforeAll(async () => {
      handle = (await call(conn.client, 'open_file', { path: 'events.jsonl' })).data.handle;
    });
    const cases: [string, Record<string, unknown>][] = [
      ['group by status with exact metrics', { group_by: 'status', metrics: ['sum(bytes)', 'avg(latency_ms)', 'min(latency_ms)', 'max(bytes)', 'sum(latency_ms)', 'count_distinct(service)'] }],
      ['two group_by paths, key order', { group_by: ['service', 'status'], order: 'key_asc', top: 50 }],
      ['hour buckets of ts', { bucket: { path: 'ts', width: '1h' }, order: 'key_asc', top: 100, metrics: ['avg(bytes)'] }],
      ['day buckets with a where predicate', { where: '$.status == "FAILED" || $.latency_ms > 850', bucket: { path: 'ts', width: '1d' }, metrics: ['max(latency_ms)'] }],
      ['numeric buckets of id, ordered by a metric', { bucket: { path: 'id', width: 250 }, metrics: ['sum(latency_ms)'], order: 'sum(latency_ms)_desc' }],
      ['no group_by', { metrics: ['sum(bytes)', 'min(ts)', 'max(ts)'] }],
    ];
    test.each(cases)('%s', async (_name, args) => {
      const local = await call(conn.client, 'aggregate', { handle, ...args });
      const remote = await call(conn.client, 'dataset_aggregate', { dataset: 'events', ...args });
      expect(local.isError).toBe(false);
      if (remote.isError) console.log(remote.text);
      expect(remote.isError).toBe(false);
      const l = lexemes(local.text) as Record<string, unknown>;
      const r = lexemes(remote.text) as Record<string, unknown>;
      expect(r.groups).toEqual(l.groups);
      for (const k of ['groups_total', 'records_scanned', 'records_matched', 'group_by', 'metrics', 'complete']) expect([k, r[k]]).toEqual([k, l[k]]);
      expect((l.groups as unknown[]).length).toBeGreaterThan(0);
    });

    test('pages of groups follow next_cursor as aggregate\'s do', async () => {
      const args = { group_by: ['service', 'status'], top: 7 };
      const l1 = await call(conn.client, 'aggregate', { handle, ...args });
      const r1 = await call(conn.client, 'dataset_aggregate', { dataset: 'events', ...args });
      const l2 = await call(conn.client, 'aggregate', { handle, ...args, cursor: l1.data.next_cursor });
      const r2 = await call(conn.client, 'dataset_aggregate', { dataset: 'events', ...args, cursor: r1.data.next_cursor });
      expect((lexemes(r2.text) as { groups: unknown }).groups).toEqual((lexemes(l2.text) as { groups: unknown }).groups);
    });

    test.each(['first', 'last', 'even'])('dataset_sample_records equals sample_records (%s)', async (strategy) => {
      const local = await call(conn.client, 'sample_records', { handle, count: 4, strategy });
      const remote = await call(conn.client, 'dataset_sample_records', { dataset: 'events', count: 4, strategy });
      expect(remote.data.records).toEqual(local.data.records.map((x: { index: number; record: string }) => ({ index: x.index, record: x.record })));
      expect(remote.data.total_records).toBe(N);
    });
  });

  test('sql_tables lists the datasets by name with columns, and no server address', async () => {
    const { data, text } = await call(conn.client, 'sql_tables', { glob: 'none-*.jsonl' });
    const events = data.tables.find((t: { name: string }) => t.name === 'events');
    expect(events.columns).toEqual([
      { name: 'id', type: 'UInt64' }, { name: 'ts', type: 'DateTime' }, { name: 'service', type: 'String' },
      { name: 'status', type: 'String' }, { name: 'latency_ms', type: 'Decimal(12, 2)' }, { name: 'bytes', type: 'UInt64' },
    ]);
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain('events_all');
  });

  test('the read-only user cannot write, neither through sql_query nor on the server itself', async () => {
    const viaTool = await call(conn.client, 'sql_query', { dataset: 'events', sql: 'INSERT INTO t VALUES (1)' });
    expect(viaTool.data.error.code).toBe('ACCESS_DENIED');
    const a = cluster.servers[0]!;
    await expect(exec(a.http, "INSERT INTO default.events_local (id) VALUES (99999)", { user: 'reader', password: cluster.readerPassword })).rejects.toThrow(/Code: 164|readonly/i);
    await expect(exec(a.http, 'CREATE TABLE default.x (a UInt8) ENGINE = Memory', { user: 'reader', password: cluster.readerPassword })).rejects.toThrow(/Code: 164|readonly/i);
    expect((await exec(a.http, 'SELECT count() FROM default.events_local')).trim()).toBe(String(N / 2));
  });

  test.each([
    ['another table', 'SELECT * FROM system.tables'],
    ['a table function in the FROM list', 'SELECT count() FROM t, numbers(10)'],
    ['url()', "SELECT * FROM t WHERE id IN (SELECT id FROM url('http://127.0.0.1:9/x', CSV, 'id UInt64'))"],
    ['a SETTINGS clause', 'SELECT count() FROM t SETTINGS max_execution_time = 3600'],
    ['two statements', 'SELECT 1 FROM t; SELECT 2 FROM t'],
  ])('a dataset query that reaches past the dataset is refused: %s', async (_name, sql) => {
    const { data, text } = await call(conn.client, 'sql_query', { dataset: 'events', sql });
    expect(['ACCESS_DENIED', 'INVALID_ARGUMENT']).toContain(data.error.code);
    expect(text).not.toContain('127.0.0.1');
  });

  test('a syntax error has ClickHouse\'s position in the assistant\'s text', async () => {
    const { data } = await call(conn.client, 'sql_query', { dataset: 'events', sql: 'SELECT status,, count() FROM t' });
    expect(data.error.code).toBe('QUERY_SYNTAX_ERROR');
    expect(data.error.location.position).toBe(14);
  });

  test('a slow query is stopped at the 1 s deadline', async () => {
    const started = Date.now();
    const { data } = await call(short.client, 'sql_query', { dataset: 'events', sql: 'SELECT count() FROM t WHERE sleepEachRow(0.0025) = 0' });
    expect(data.error.code).toBe('CANCELLED');
    // Logged, not asserted (a shared machine): each shard would sleep 2.5 s.
    console.log(`slow dataset query stopped ${Date.now() - started} ms after the call (deadline 1000 ms)`);
  });

  test('a server that is not there is a clear error, not a hang', async () => {
    const { data, text } = await call(short.client, 'sql_query', { dataset: 'gone', sql: 'SELECT count() FROM t' });
    expect(data.error.code).toBe('IO_ERROR');
    expect(data.error.message).toMatch(/dataset gone cannot be reached/);
    expect(text).not.toContain(goneUrl);
    expect(text).not.toContain('127.0.0.1');
  });
}
