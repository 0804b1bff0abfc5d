import type { DuckDBType } from '@duckdb/node-api';
import { duckdb } from './libraries';
import { scrubRoots } from './errors';

const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/** Types whose values DuckDB's JSON conversion gives as decimal strings and that are exact numbers. */
let exactAsText: Set<number> | undefined;
const EXACT_AS_TEXT = (): Set<number> => {
  const T = duckdb().DuckDBTypeId;
  return (exactAsText ??= new Set<number>([T.BIGINT, T.UBIGINT, T.HUGEINT, T.UHUGEINT, T.DECIMAL]));
};
const NUMERAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** A value of `type` (from DuckDB's JSON conversion) with exact numbers as `JSON.rawJSON` and the root scrubbed from text. */
export function exactValue(value: unknown, type: DuckDBType, roots: readonly string[]): unknown {
  if (value === null || value === undefined) return null;
  if (EXACT_AS_TEXT().has(type.typeId) && typeof value === 'string') {
    const text = value.replace(/^(-?)0+(?=\d)/, '$1');
    return NUMERAL.test(text) ? rawJSON(text) : value;
  }
  if ((type.typeId === duckdb().DuckDBTypeId.LIST || type.typeId === duckdb().DuckDBTypeId.ARRAY) && Array.isArray(value)) {
    const child = (type as unknown as { valueType: DuckDBType }).valueType;
    return value.map((v) => exactValue(v, child, roots));
  }
  if (type.typeId === duckdb().DuckDBTypeId.STRUCT && typeof value === 'object') {
    const st = type as unknown as { entryNames: readonly string[]; entryTypes: readonly DuckDBType[] };
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const i = st.entryNames.indexOf(k);
      out[k] = i >= 0 ? exactValue(v, st.entryTypes[i]!, roots) : v;
    }
    return out;
  }
  if (typeof value === 'string' && value.includes('/')) return scrubRoots(value, roots);
  return value;
}

export function exactRow(row: readonly unknown[], types: readonly DuckDBType[], roots: readonly string[]): unknown[] {
  return row.map((v, i) => exactValue(v, types[i]!, roots));
}

function hasDouble(type: DuckDBType): boolean {
  if (type.typeId === duckdb().DuckDBTypeId.DOUBLE || type.typeId === duckdb().DuckDBTypeId.FLOAT) return true;
  const t = type as unknown as { valueType?: DuckDBType; entryTypes?: readonly DuckDBType[]; keyType?: DuckDBType };
  if (t.valueType && hasDouble(t.valueType)) return true;
  if (t.keyType && hasDouble(t.keyType)) return true;
  return (t.entryTypes ?? []).some(hasDouble);
}

/** Names of the columns whose type holds a DOUBLE or FLOAT anywhere (nested included). */
export function doubleColumns(names: readonly string[], types: readonly DuckDBType[]): string[] {
  return names.filter((_, i) => hasDouble(types[i]!));
}
