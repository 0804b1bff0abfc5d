import type { BatchOptions, BlankLines, FileIdentity, RecordBatch, RecordSource, RecordWarning, ValidateOptions, ValidationReport } from '../../kernel/contracts/format';
import type { Limits } from '../../kernel/contracts/limits';
import { McpgwError, type ErrorLocation } from '../../kernel/errors';
import type { IndexedRecordSource } from './source';
import { validateSource } from './validate';

const NEWLINE = Buffer.from('\n');

/**
 * The records of a format of another syntax (CSV, …) seen as JSON (the indexing kit, framed.ts): an
 * `IndexedRecordSource` over the file's own bytes (`inner`: index, growth, the persistent index, locations) whose
 * records are handed to the format's `decode` (record text → JSON value). Every reader sees the value: `text` and
 * `raw` are its JSON text, batches hold the records' JSON texts (so scans parse them as any JSON record), and a record
 * `decode` rejects is malformed — its batch's `value`, `text` and `checkFraming` throw the format's error, located at
 * the record — so scans skip and report it and validation counts it. A fault of `decode` that is not a catalogue
 * error is the format's (its stack names the plugin) and is not caught here.
 */
export class DecodedRecordSource implements RecordSource {
  readonly rootIsSequence = true;
  readonly format: string;

  constructor(readonly inner: IndexedRecordSource, private readonly decode: (text: string, index: number) => unknown, private readonly limits: Limits) {
    this.format = inner.format;
  }

  get count(): number {
    return this.inner.count;
  }

  get identity(): FileIdentity {
    return this.inner.identity;
  }

  blankLines(): BlankLines | undefined {
    return this.inner.blankLines();
  }

  grow(now: FileIdentity): boolean {
    return this.inner.grow(now);
  }

  offset(i: number): number {
    return this.inner.offset(i);
  }

  location(i: number): ErrorLocation {
    return this.inner.location(i);
  }

  value(i: number, _warnings?: RecordWarning[]): unknown {
    return this.decoded(i, this.inner.text(i));
  }

  text(i: number): string {
    return JSON.stringify(this.value(i));
  }

  checkedText(i: number): string {
    return this.text(i);
  }

  raw(i: number): Buffer {
    return Buffer.from(this.text(i));
  }

  validate(options?: ValidateOptions): Promise<ValidationReport> {
    return validateSource(this, this.limits, options);
  }

  async *batches(options: BatchOptions = {}): AsyncGenerator<RecordBatch> {
    for await (const batch of this.inner.batches(options)) yield batch.oversized ? batch : this.asJson(batch);
  }

  close(): void {
    this.inner.close();
  }

  /** `decode` of record i's text; a catalogue error without a location gets the record's. */
  private decoded(i: number, text: string): unknown {
    try {
      return this.decode(text, i);
    } catch (err) {
      if (!(err instanceof McpgwError) || err.location !== undefined) throw err;
      throw new McpgwError(err.code, err.message.startsWith(`Record ${i}`) ? err.message : `Record ${i}: ${err.message}`, {
        ...(err.hint !== undefined ? { hint: err.hint } : {}),
        ...(err.limit !== undefined ? { limit: err.limit } : {}),
        ...(err.plugin !== undefined ? { plugin: err.plugin } : {}),
        location: this.inner.location(i),
      });
    }
  }

  /** A batch of the file's records as a batch of their JSON texts (one per line); rejected records have empty spans. */
  private asJson(batch: RecordBatch): RecordBatch {
    const n = batch.count;
    const values: unknown[] = new Array(n);
    const errors: (McpgwError | undefined)[] = new Array(n);
    const parts: Buffer[] = [];
    const spans = new Float64Array(2 * n);
    let at = 0;
    for (let k = 0; k < n; k++) {
      const i = batch.first + k;
      try {
        values[k] = this.decoded(i, batch.text(k));
        const json = Buffer.from(JSON.stringify(values[k]));
        parts.push(json, NEWLINE);
        spans[2 * k] = at;
        spans[2 * k + 1] = at + json.length;
        at += json.length + 1;
      } catch (err) {
        if (!(err instanceof McpgwError)) throw err;
        errors[k] = err;
        spans[2 * k] = spans[2 * k + 1] = at;
      }
    }
    const bytes = Buffer.concat(parts, at);
    const fail = (k: number) => {
      const e = errors[k];
      if (e) throw e;
    };
    return {
      first: batch.first,
      count: n,
      bytes,
      span: (k) => [spans[2 * k]!, spans[2 * k + 1]!],
      recordAt(offset) {
        let lo = 0, hi = n - 1;
        while (lo <= hi) {
          const mid = (lo + hi) >> 1;
          if (offset < spans[2 * mid]!) hi = mid - 1;
          else if (offset >= spans[2 * mid + 1]!) lo = mid + 1;
          else return mid;
        }
        return -1;
      },
      text: (k) => {
        fail(k);
        return bytes.toString('utf8', spans[2 * k]!, spans[2 * k + 1]!);
      },
      value: (k) => {
        fail(k);
        return values[k];
      },
      checkFraming: fail,
    };
  }
}
