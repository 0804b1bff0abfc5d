import type * as DuckDbApi from '@duckdb/node-api';
import type * as ClickHouseApi from '@clickhouse/client';

let duckdbApi: typeof DuckDbApi | undefined;
let clickhouseApi: typeof ClickHouseApi | undefined;

/**
 * `@duckdb/node-api`, loaded on first use: its native binding costs about 165 ms of CPU at start-up (bench/README.md,
 * "Cold start"), which a server whose profile never runs SQL, or that has not run any yet, should not pay.
 */
export function duckdb(): typeof DuckDbApi {
  return (duckdbApi ??= require('@duckdb/node-api') as typeof DuckDbApi);
}

/** `@clickhouse/client`, loaded on the first dataset query (as {@link duckdb}). */
export function clickhouse(): typeof ClickHouseApi {
  return (clickhouseApi ??= require('@clickhouse/client') as typeof ClickHouseApi);
}
