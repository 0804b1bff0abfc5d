/**
 * The limits every part obeys (docs/architecture.md "Configuration", the limits table). Sizes in bytes, times in
 * milliseconds, counts in items. A profile or config may change them; a tool call may only lower
 * `maxResultBytes` and `maxItems` for itself.
 */
export interface Limits {
  /** Files larger than this are refused (RESOURCE_LIMIT_EXCEEDED). `null`: no limit. */
  maxFileBytes: number | null;
  /** One record (line, sequence element, array element), bytes. */
  maxRecordBytes: number;
  /** Nesting depth; deeper input is RESOURCE_LIMIT_EXCEEDED, never a stack overflow. */
  maxDepth: number;
  /**
   * Nodes one query evaluation on one value (a record, or a whole document) may produce or walk beyond one pass
   * over the value (EvaluateOptions.maxNodes); past it RESOURCE_LIMIT_EXCEEDED. Bounds `$..*..*`-style queries,
   * whose node lists grow as depth², and the time one evaluation holds the event loop.
   */
  maxNodes: number;
  /** One tool result, bytes of its JSON text. */
  maxResultBytes: number;
  /**
   * One incoming protocol message (a line on stdio), bytes. A longer line is dropped as it arrives and answered with
   * a JSON-RPC error (-32600, with its id when it names one); the connection goes on.
   */
  maxMessageBytes: number;
  /** Items in one page. */
  maxItems: number;
  /** Explorer records longer than this come back cut, marked, with their full size. */
  maxRecordPreviewBytes: number;
  maxOpenFiles: number;
  maxCursors: number;
  handleIdleMs: number;
  cursorIdleMs: number;
  /** Server-wide concurrent scans. */
  maxConcurrentScans: number;
  /** A scan past this returns what it has with a cursor (`complete: false`). */
  requestTimeoutMs: number;
  /**
   * Time, ms from the call's start, a tool may spend on the parts of an answer that only add detail (get_schema's
   * levels after the first, an empty answer's look in the other addressing mode). Past it the answer says what it
   * left out; the call's deadline (`requestTimeoutMs`) still bounds it.
   */
  detailTimeMs: number;
  /** Bytes and records validated at open in probe mode. */
  probeBytes: number;
  probeRecords: number;
}
