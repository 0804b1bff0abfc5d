import type { Readable, Writable } from 'node:stream';
import { parseJSONRPCMessage, PROTOCOL_VERSION_META_KEY, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';
import { capMessage, MAX_MESSAGE_BYTES } from '../errors';
import { depthExceededAt, MESSAGE_MAX_DEPTH } from './json-depth';

/** JSON-RPC 2.0 §5.1 error codes, and the implementation-defined one for a request before the handshake. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
/** Implementation-defined server error (§5.1 reserves -32000…-32099): a request before `initialize`. */
export const NOT_INITIALIZED = -32002;

/** Bytes of an oversized line kept to find its request id (the rest is dropped as it arrives). */
const ID_PREFIX_BYTES = 64 * 1024;

export interface LineTransportOptions {
  /** One message (one line) at most, bytes; a longer line is dropped and answered with an error. */
  maxMessageBytes: number;
  /** Where dropped lines and invalid messages are reported (stderr: stdout carries only protocol messages). */
  warn?: (message: string, data?: Record<string, unknown>) => void;
}

type Id = string | number | null;

/**
 * MCP over newline-delimited JSON-RPC on stdio (the SDK's `StdioServerTransport`, with what JSON-RPC 2.0 requires
 * of a server and what that transport leaves out):
 * - a line that is not JSON is answered `-32700` (Parse error, id null), one that is not a valid JSON-RPC message
 *   `-32600` (Invalid Request, its id when it has a usable one, else null) — the SDK dropped both silently;
 * - a line over `maxMessageBytes` is dropped as it arrives (never held whole) and answered `-32600` with the
 *   request's id when its first 64 KiB name one; the connection goes on (the SDK's read buffer closed the
 *   transport and the server answered nothing more);
 * - a batch (a JSON array) is answered as JSON-RPC §6 says — an array with one response per request, nothing for
 *   notifications, a single `-32600` for an empty array — each response an error: MCP has not had batches since
 *   2025-06-18;
 * - before the connection's handshake (an `initialize` request, or any request carrying the 2026-07-28
 *   protocol-version claim), requests other than `ping` are answered `-32002` (Server not initialized) instead of
 *   being served;
 * - lines are framed in time linear in their length (the SDK concatenated its buffer on every chunk).
 * Responses go out one per line, as the SDK writes them.
 */
const LINE_SEPARATORS = /[\u2028\u2029]/;
const LINE_SEPARATORS_ALL = /[\u2028\u2029]/g;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private bytes = 0;
  /** The current line passed the limit: its bytes are counted and dropped until its newline. */
  private dropping = false;
  private dropped = 0;
  private prefix: Buffer[] = [];
  private prefixBytes = 0;
  private opened = false;
  /** An `initialize` request has come (a second one is refused). */
  private initialized = false;
  private started = false;
  private closed = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly options: LineTransportOptions,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('LineTransport already started.');
    this.started = true;
    if (this.stdin.readableEnded || this.stdin.destroyed) setImmediate(this.onEnd);
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStdinError);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('close', this.onEnd);
    this.stdout.on('error', this.onStdoutError);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStdinError);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('close', this.onEnd);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.chunks = [];
    this.prefix = [];
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('The stdio transport is closed.'));
    return this.write(serializeMessage(boundedError(message)));
  }

  private write(raw: string): Promise<void> {
    // U+2028 and U+2029 written escaped: JSON allows them raw inside strings, but line readers split there (Node's
    // readline from 24 on, JavaScript line terminators), and a client that reads lines would get half a message. In
    // JSON text they occur only inside strings, where \u2028 means the same.
    const text = LINE_SEPARATORS.test(raw) ? raw.replace(LINE_SEPARATORS_ALL, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029')) : raw;
    return new Promise((resolve, reject) => {
      let settled = false;
      const onError = (error: Error) => {
        if (settled) return;
        settled = true;
        this.stdout.off('drain', onDrain);
        reject(error);
      };
      const onDrain = () => {
        if (settled) return;
        settled = true;
        this.stdout.off('error', onError);
        resolve();
      };
      this.stdout.once('error', onError);
      if (this.stdout.write(text)) {
        settled = true;
        this.stdout.off('error', onError);
        resolve();
      } else this.stdout.once('drain', onDrain);
    });
  }

  private readonly onStdinError = (error: Error) => this.onerror?.(error);

  private readonly onStdoutError = (error: Error) => {
    if (this.closed) return;
    this.onerror?.(error);
    void this.close();
  };

  private readonly onEnd = () => void this.close();

  /** Frames lines: each byte is looked at once; a line is joined only when its newline arrives. */
  private readonly onData = (chunk: Buffer) => {
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(0x0a, from);
      const end = nl === -1 ? chunk.length : nl;
      this.take(chunk.subarray(from, end));
      if (nl === -1) break;
      this.endLine();
      from = nl + 1;
    }
  };

  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.dropping) {
      this.dropped += part.length;
      this.keepPrefix(part);
      return;
    }
    if (this.bytes + part.length > this.options.maxMessageBytes) {
      this.dropping = true;
      this.dropped = this.bytes + part.length;
      for (const c of this.chunks) this.keepPrefix(c);
      this.keepPrefix(part);
      this.chunks = [];
      this.bytes = 0;
      return;
    }
    // A copy: the chunk's buffer may be reused by the stream.
    this.chunks.push(Buffer.from(part));
    this.bytes += part.length;
  }

  private keepPrefix(part: Buffer): void {
    if (this.prefixBytes >= ID_PREFIX_BYTES) return;
    const piece = part.subarray(0, ID_PREFIX_BYTES - this.prefixBytes);
    this.prefix.push(Buffer.from(piece));
    this.prefixBytes += piece.length;
  }

  private endLine(): void {
    if (this.dropping) {
      const id = topLevelId(Buffer.concat(this.prefix).toString('utf8'));
      const size = this.dropped;
      this.dropping = false;
      this.dropped = 0;
      this.prefix = [];
      this.prefixBytes = 0;
      this.options.warn?.('dropped an oversized message', { bytes: size, limit: this.options.maxMessageBytes, id });
      this.reply(id, INVALID_REQUEST, `Message too large: ${size} bytes, over maxMessageBytes (${this.options.maxMessageBytes}); it was dropped and the connection goes on.`);
      return;
    }
    const line = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = [];
    this.bytes = 0;
    const deep = depthExceededAt(line);
    if (deep >= 0) {
      this.options.warn?.('a line nested too deep', { bytes: line.length, maxDepth: MESSAGE_MAX_DEPTH });
      this.reply(null, PARSE_ERROR, `Parse error: the line nests deeper than ${MESSAGE_MAX_DEPTH} levels (at byte ${deep}); it was not parsed.`);
      return;
    }
    const text = line.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    this.handleLine(text);
  }

  private handleLine(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.options.warn?.('a line that is not JSON', { bytes: text.length });
      this.reply(null, PARSE_ERROR, `Parse error: the line is not JSON (${(err as Error).message.slice(0, 200)}).`);
      return;
    }
    if (Array.isArray(value)) {
      this.handleBatch(value);
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      this.options.warn?.('a line that is not a JSON-RPC 2.0 message', { bytes: text.length });
      this.reply(usableId(value), INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 request, notification or response (jsonrpc "2.0", a method name, an id that is a string or a number).');
      return;
    }
    if (this.refusedBeforeHandshake(message)) return;
    this.onmessage?.(message);
  }

  /** JSON-RPC 2.0 §6. */
  private handleBatch(items: unknown[]): void {
    if (items.length === 0) {
      this.reply(null, INVALID_REQUEST, 'Invalid Request: an empty batch.');
      return;
    }
    const responses: unknown[] = [];
    for (const item of items) {
      let message: JSONRPCMessage | null = null;
      try { message = parseJSONRPCMessage(item); } catch { message = null; }
      if (message === null) {
        responses.push(errorResponse(usableId(item), INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message.'));
      } else if ('method' in message && 'id' in message) {
        responses.push(errorResponse(message.id as Id, INVALID_REQUEST, 'Invalid Request: MCP has no JSON-RPC batches (since protocol 2025-06-18); send each message on its own line.'));
      }
      // notifications and responses inside a batch get no response (§6)
    }
    this.options.warn?.('a JSON-RPC batch (not part of MCP)', { items: items.length });
    if (responses.length) void this.write(JSON.stringify(responses) + '\n').catch((e: Error) => this.onerror?.(e));
  }

  /**
   * A request other than ping before the handshake is answered -32002 rather than served; a second `initialize` on the
   * connection is answered -32600 (the session's protocol version and capabilities are settled once).
   */
  private refusedBeforeHandshake(message: JSONRPCMessage): boolean {
    if (!('method' in message)) return false;
    if (message.method === 'initialize' && 'id' in message) {
      if (this.initialized) {
        this.reply(message.id as Id, INVALID_REQUEST, 'Invalid Request: the connection is already initialized; initialize is sent once, at its start.');
        return true;
      }
      this.initialized = true;
    }
    if (this.opened) return false;
    const claim = hasProtocolClaim((message as { params?: unknown }).params);
    if (message.method === 'initialize' || claim) {
      this.opened = true;
      return false;
    }
    if (!('id' in message) || message.method === 'ping') return false;
    this.reply(message.id as Id, NOT_INITIALIZED, `Server not initialized: "${message.method.slice(0, 100)}" came before the handshake; send initialize first (or, in the 2026-07-28 protocol, carry the protocol-version claim in _meta).`);
    return true;
  }

  private reply(id: Id, code: number, message: string): void {
    if (this.closed) return;
    void this.write(JSON.stringify(errorResponse(id, code, message)) + '\n').catch((e: Error) => this.onerror?.(e));
  }
}

/**
 * A JSON-RPC error response whose message (the SDK's own, e.g. naming an unknown tool as sent) is capped like tool
 * error messages; its `data` is left out when big. Other messages pass unchanged.
 */
function boundedError(message: JSONRPCMessage): JSONRPCMessage {
  const error = (message as { error?: { code: number; message: string; data?: unknown } }).error;
  if (!error || typeof error.message !== 'string') return message;
  const big = Buffer.byteLength(error.message) > MAX_MESSAGE_BYTES;
  const bigData = error.data !== undefined && (JSON.stringify(error.data)?.length ?? 0) > 4 * MAX_MESSAGE_BYTES;
  if (!big && !bigData) return message;
  const { data, ...rest } = error;
  return { ...message, error: { ...rest, message: capMessage(error.message), ...(bigData ? {} : { data }) } } as JSONRPCMessage;
}

function errorResponse(id: Id, code: number, message: string) {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** The id of a rejected message when it is one a response may carry (a string or an integer), else null (§5). */
function usableId(value: unknown): Id {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

function hasProtocolClaim(params: unknown): boolean {
  if (params === null || typeof params !== 'object') return false;
  const meta = (params as { _meta?: unknown })._meta;
  return meta !== null && typeof meta === 'object' && PROTOCOL_VERSION_META_KEY in meta;
}

/**
 * The top-level `"id"` of a JSON object's text that may be cut anywhere (the start of an oversized line): a string
 * or an integer, else null. Scans once, tracking nesting and strings; never parses the rest.
 */
export function topLevelId(text: string): Id {
  let depth = 0;
  let i = 0;
  const n = text.length;
  const readString = (): string | null => {
    // at a quote: returns the decoded string, or null when cut
    let j = i + 1;
    for (; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === 0x5c) j++;
      else if (c === 0x22) break;
    }
    if (j >= n) return null;
    let s: string;
    try { s = JSON.parse(text.slice(i, j + 1)) as string; } catch { return null; }
    i = j + 1;
    return s;
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const key = readString();
      if (key === null) return null;
      if (depth !== 1 || key !== 'id') continue;
      let k = i;
      while (k < n && /\s/.test(text[k]!)) k++;
      if (text[k] !== ':') continue;
      k++;
      while (k < n && /\s/.test(text[k]!)) k++;
      if (text[k] === '"') {
        i = k;
        return readString();
      }
      const m = /^-?\d+/.exec(text.slice(k, k + 32));
      return m && /[\s,}]/.test(text[k + m[0].length] ?? '') ? Number(m[0]) : null;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    i++;
  }
  return null;
}
