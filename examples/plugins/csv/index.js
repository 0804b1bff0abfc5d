'use strict';
/**
 * mcpgw-format-csv — an mcpgw format plugin written as a third party writes one: it imports mcpgw/plugin-kit (at run
 * time), mcpgw/plugin-api (types, in JSDoc) and npm packages, nothing else of mcpgw. Everything else comes through the
 * plugin's context: `context.records.openFramed`, mcpgw's indexing kit, does the streaming pass, the persistent index
 * (a file opened again in any later server skips the pass), growing files and malformed-row reports. This plugin
 * supplies the two things only it knows: where rows start (a framer over bytes, whose state can be saved and restored)
 * and what a row is as JSON (csv-parse).
 *
 * @typedef {import('mcpgw/plugin-api').PluginContext} PluginContext
 * @typedef {import('mcpgw/plugin-api').OffsetIndex} OffsetIndex
 * @typedef {import('mcpgw/plugin-api').RecordFramer} RecordFramer
 * @typedef {{ delimiter: string, cast: boolean, relaxColumnCount: boolean }} CsvOptions
 */
const { definePlugin } = require('mcpgw/plugin-kit');
const { parse } = require('csv-parse/sync');
const { z } = require('zod');

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
/** Names the layout of a saved state: change it whenever what the state means changes. */
const STATE_TAG = 'mcpgw-format-csv/1\n';
/** A JSON number lexeme (RFC 8259 §6). */
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Where rows start, as a resumable state machine over the file's bytes: a row ends at a line feed outside double
 * quotes (a quoted field may hold line feeds; `""` inside quotes is a quote); a carriage return before it is not part
 * of the row; empty lines are not rows; a UTF-8 BOM at byte 0 is skipped. The first row is the header: it is kept
 * (in the saved state too) and is not a record. Rows are found with `indexOf` (memchr), not byte by byte.
 * @implements {RecordFramer}
 */
class CsvFramer {
  /**
   * @param {OffsetIndex} index
   * @param {(framer: CsvFramer) => (text: string, index: number) => unknown} decoder what a row is, given this framer's header
   * @param {{ header: string | null, headerParts: string, inQuotes: boolean, content: boolean, rowStart: number } | null} state
   */
  constructor(index, decoder, state) {
    this.index = index;
    /** The header row's text once complete, else null (its text so far in `headerParts`). */
    this.header = state ? state.header : null;
    this.headerParts = state ? state.headerParts : '';
    this.inQuotes = state ? state.inQuotes : false;
    /** The current row has begun (its start is pushed, or it is the header). */
    this.content = state ? state.content : false;
    /** Where the current line starts (its row's start offset). */
    this.rowStart = state ? state.rowStart : 0;
    this.decodeRow = decoder(this);
  }

  /** @param {number} offset @param {Uint8Array} bytes */
  feed(offset, bytes) {
    const n = bytes.length;
    let i = 0;
    if (offset === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = this.rowStart = 3;
    let headerFrom = this.header === null && this.content ? 0 : -1;
    // The next quote and line feed at or after i (-1: none in this chunk), looked up again only once passed.
    let q = -2, nl = -2;
    while (i < n) {
      if (this.inQuotes) {
        if (q !== -1 && q < i) q = bytes.indexOf(QUOTE, i);
        if (q === -1) { i = n; break; }
        this.inQuotes = false;
        i = q + 1;
        continue;
      }
      if (!this.content) {
        const b = bytes[i];
        if (b === LF) { i++; this.rowStart = offset + i; continue; }
        if (b === CR) { i++; continue; }
        this.content = true;
        if (this.header === null) headerFrom = i;
        else this.index.push(this.rowStart, NaN);
      }
      if (q !== -1 && q < i) q = bytes.indexOf(QUOTE, i);
      if (nl !== -1 && nl < i) nl = bytes.indexOf(LF, i);
      if (q !== -1 && (nl === -1 || q < nl)) { this.inQuotes = true; i = q + 1; continue; }
      if (nl === -1) { i = n; break; }
      if (this.header === null) {
        this.header = (this.headerParts + Buffer.from(bytes.subarray(headerFrom, nl)).toString('utf8')).replace(/\r$/, '');
        this.headerParts = '';
        headerFrom = -1;
      }
      i = nl + 1;
      this.rowStart = offset + i;
      this.content = false;
    }
    if (headerFrom !== -1) this.headerParts += Buffer.from(bytes.subarray(headerFrom, n)).toString('utf8');
  }

  saveState() {
    const { header, headerParts, inQuotes, content, rowStart } = this;
    return Buffer.from(STATE_TAG + JSON.stringify({ header, headerParts, inQuotes, content, rowStart }));
  }

  /** @param {string} text @param {number} i */
  decode(text, i) {
    return this.decodeRow(text, i);
  }

  /** A framer going on from a saved state; null when `bytes` is not a state this framer saved. */
  static restore(index, decoder, bytes) {
    const text = Buffer.from(bytes).toString('utf8');
    if (!text.startsWith(STATE_TAG)) return null;
    let s;
    try { s = JSON.parse(text.slice(STATE_TAG.length)); } catch { return null; }
    if (!s || (s.header !== null && typeof s.header !== 'string') || typeof s.headerParts !== 'string' || typeof s.inQuotes !== 'boolean' || typeof s.content !== 'boolean' || !Number.isInteger(s.rowStart) || s.rowStart < 0) return null;
    return new CsvFramer(index, decoder, s);
  }
}

module.exports = definePlugin({
  name: 'mcpgw-format-csv',
  version: '1.0.0',
  apiVersion: '^3.1.0',
  options: z.strictObject({
    delimiter: z.string().length(1).default(',').describe('the field delimiter, one character'),
    cast: z.boolean().default(false).describe('cells that are JSON numbers become numbers, digit for digit'),
    relaxColumnCount: z.boolean().default(false).describe('rows with more or fewer cells than the header are read (extra cells as column_N) instead of malformed'),
  }),
  /** @param {PluginContext} context @param {CsvOptions} options */
  register(context, options) {
    const parseOptions = { delimiter: options.delimiter, quote: '"', escape: '"', bom: true, relax_column_count: true };
    /** The header's column names, parsed once per header text. */
    const columnsOf = memo((header) => parseRow(header, 'the header row').map(String));

    function parseRow(text, what) {
      // A row without quotes is its cells split at the delimiter (RFC 4180: only quoted fields hold delimiters, quotes
      // and line breaks); csv-parse reads the others.
      if (!text.includes('"') && !text.includes('\n') && !text.includes('\r')) return text.split(options.delimiter);
      let rows;
      try {
        rows = parse(text, parseOptions);
      } catch (err) {
        throw context.error('SYNTAX_ERROR', `Invalid CSV in ${what}: ${err.message}`);
      }
      if (rows.length !== 1) throw context.error('SYNTAX_ERROR', `Invalid CSV in ${what}: it holds ${rows.length} rows, not one.`);
      return rows[0];
    }

    /** Row `i` (its text) as the object {header: cell} in header order. */
    const rowDecoder = (framer) => (text, i) => {
      const columns = columnsOf(framer.header ?? '');
      const cells = parseRow(text, `row ${i}`);
      if (!options.relaxColumnCount && cells.length !== columns.length) {
        throw context.error('SYNTAX_ERROR', `Row ${i} has ${cells.length} cells; the header has ${columns.length}.`, {
          hint: 'Set the plugin option relaxColumnCount: true to read such rows.',
        });
      }
      const row = {};
      cells.forEach((cell, k) => {
        const key = k < columns.length ? columns[k] : `column_${k + 1}`;
        row[key] = options.cast && NUMBER.test(cell) ? (String(Number(cell)) === cell ? Number(cell) : JSON.rawJSON(cell)) : cell;
      });
      return row;
    };

    /** @type {import('mcpgw/plugin-api').FramedFormat} */
    const framed = {
      format: 'csv',
      // a row's bytes are trimmed of the line breaks around it (never of spaces: they are data in CSV)
      framing: { isPadding: (b) => b === LF || b === CR },
      start: (index) => new CsvFramer(index, rowDecoder, null),
      restore: (index, state) => CsvFramer.restore(index, rowDecoder, state),
    };
    context.registerFormat({
      name: 'csv',
      extensions: ['.csv'],
      emptyText: 'no-records',
      description: 'CSV (RFC 4180) with a header row: one JSON object per row, {header: cell}; quoted fields may hold delimiters, quotes and line breaks.',
      detect(probe) {
        if (probe.extension !== '.csv') return null;
        const first = probe.bytes.subarray(0, 64).toString('latin1').trimStart();
        return first.startsWith('{') || first.startsWith('[') ? 0.2 : 0.9;
      },
      open: (file, openOptions) => context.records.openFramed(file, openOptions, framed),
    });
  },
});

/** `fn` remembered for its last argument. */
function memo(fn) {
  let key, value, set = false;
  return (arg) => {
    if (!set || arg !== key) { value = fn(arg); key = arg; set = true; }
    return value;
  };
}
