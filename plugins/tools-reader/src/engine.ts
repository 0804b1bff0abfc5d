import type { CompiledQuery, RecordSource, ToolContext } from 'mcpgw/plugin-api';

// TEMPORARY until branch `query` lands the scan engine (ctx.scan): the agreed API's shapes, and a
// local evaluation that materialises the whole file (tests only). Replaced by the kernel's types on merge.

/** Where a scan stopped; opaque to tools. */
export type ScanPosition = unknown;

export interface ScanNode { record: number; path: string; value: unknown }

export interface ScanOutcome {
  nodes: ScanNode[];
  next: ScanPosition | null;
  complete: boolean;
  skipped: number;
  firstSkipped?: { record_index?: number; line?: number; byte_offset?: number; message?: string } | null;
}

export interface ScanCall {
  source: RecordSource;
  query: CompiledQuery;
  resume?: ScanPosition;
  limit: number;
}

/** Runs one page of a whole-file scan through the kernel's engine. */
export async function scanPage(ctx: ToolContext, call: ScanCall): Promise<ScanOutcome> {
  const engine = (ctx as unknown as { scan?: (r: unknown) => Promise<ScanOutcome> }).scan;
  const onProgress = (done: number, total: number) => ctx.progress(done, total, 'reading');
  if (engine) {
    return engine({ source: call.source, query: call.query, addressing: 'file', unit: 'nodes', resume: call.resume, limit: call.limit, signal: ctx.signal, deadline: ctx.deadline, onProgress });
  }
  return localScan(ctx, call);
}

async function localScan(ctx: ToolContext, call: ScanCall): Promise<ScanOutcome> {
  const { source } = call;
  const records: unknown[] = [];
  let skipped = 0;
  let firstSkipped: ScanOutcome['firstSkipped'] = null;
  for await (const batch of source.scan({ signal: ctx.signal })) {
    for (let k = 0; k < batch.count; k++) {
      try {
        records.push(batch.value(k));
      } catch (err) {
        records.push(undefined);
        skipped++;
        firstSkipped ??= { record_index: batch.first + k, message: (err as Error).message };
      }
    }
  }
  const root = source.rootIsSequence ? records.filter((r) => r !== undefined) : records[0];
  const all = call.query.evaluate(root);
  const from = (call.resume as number | undefined) ?? 0;
  const nodes = all.slice(from, from + call.limit).map((n) => ({ record: Number(n.path.split('/')[1] ?? 0), path: n.path, value: n.value }));
  const end = from + nodes.length;
  return { nodes, next: end < all.length ? end : null, complete: end >= all.length, skipped, firstSkipped };
}
