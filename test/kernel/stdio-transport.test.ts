/**
 * The stdio transport answers what JSON-RPC 2.0 requires of a server (§5 parse errors and invalid requests, §6
 * batches), refuses requests before the MCP handshake, and survives a line over maxMessageBytes: the line is dropped
 * as it arrives, answered, and the next message is served.
 */
import { PassThrough } from 'node:stream';
import { INVALID_REQUEST, LineTransport, NOT_INITIALIZED, PARSE_ERROR, topLevelId } from '../../src/kernel/server/stdio-transport';

interface Harness {
  stdin: PassThrough;
  received: unknown[];
  /** Lines written to stdout so far, parsed. */
  out: () => unknown[];
  warnings: string[];
  transport: LineTransport;
}

async function harness(maxMessageBytes = 1024): Promise<Harness> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let written = '';
  stdout.on('data', (d: Buffer) => (written += d.toString()));
  const warnings: string[] = [];
  const transport = new LineTransport(stdin, stdout, { maxMessageBytes, warn: (m) => warnings.push(m) });
  const received: unknown[] = [];
  transport.onmessage = (m) => received.push(m);
  await transport.start();
  return { stdin, received, warnings, transport, out: () => written.split('\n').filter(Boolean).map((l) => JSON.parse(l)) };
}

const tick = () => new Promise((r) => setImmediate(r));
const INIT = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const line = (v: unknown) => JSON.stringify(v) + '\n';

describe('JSON-RPC 2.0 §5 and §6', () => {
  test('a line that is not JSON: -32700 with id null; the next line is served', async () => {
    const h = await harness();
    h.stdin.write('{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]\n' + line(INIT));
    await tick();
    expect(h.out()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: expect.stringMatching(/^Parse error/) } }]);
    expect(h.received).toEqual([INIT]);
  });

  test.each([
    [{ jsonrpc: '2.0', method: 1, params: 'bar' }, null],
    [{ jsonrpc: '1.0', id: 7, method: 'ping' }, 7],
    [{ id: 'a', method: 'ping' }, 'a'],
    ['just a string', null],
    [{ jsonrpc: '2.0', id: { x: 1 }, method: 'ping' }, null],
  ])('%j: -32600 Invalid Request with id %j', async (msg, id) => {
    const h = await harness();
    h.stdin.write(line(msg));
    await tick();
    expect(h.out()).toEqual([{ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message: expect.stringMatching(/^Invalid Request/) } }]);
    expect(h.received).toEqual([]);
  });

  test('batches: one error per request in an array, nothing for notifications, a single error for []', async () => {
    const h = await harness();
    h.stdin.write(line([]));
    h.stdin.write(line([{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', method: 'notifications/initialized' }, 1, { jsonrpc: '2.0', id: 'x', method: 'tools/list' }]));
    h.stdin.write(line([{ jsonrpc: '2.0', method: 'notifications/initialized' }]));
    await tick();
    const [empty, batch, ...rest] = h.out() as any[];
    expect(empty).toEqual({ jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message: 'Invalid Request: an empty batch.' } });
    expect(batch.map((r: any) => [r.id, r.error.code])).toEqual([[1, INVALID_REQUEST], [null, INVALID_REQUEST], ['x', INVALID_REQUEST]]);
    expect(batch[0].error.message).toMatch(/MCP has no JSON-RPC batches/);
    expect(rest).toEqual([]); // an all-notification batch gets no response (§6)
    expect(h.received).toEqual([]);
  });
});

describe('before the handshake', () => {
  test('tools/call is refused with -32002; ping and notifications pass; after initialize everything passes', async () => {
    const h = await harness();
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_files', arguments: {} } };
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    const note = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } };
    h.stdin.write(line(call) + line(ping) + line(note) + line(INIT) + line({ ...call, id: 3 }));
    await tick();
    expect(h.out()).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: NOT_INITIALIZED, message: expect.stringMatching(/^Server not initialized: "tools\/call"/) } }]);
    expect(h.received).toEqual([ping, note, INIT, { ...call, id: 3 }]);
  });

  test('a request carrying the 2026-07-28 protocol-version claim opens the connection', async () => {
    const h = await harness();
    const discover = { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } };
    h.stdin.write(line(discover) + line({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } }));
    await tick();
    expect(h.out()).toEqual([]);
    expect(h.received).toHaveLength(2);
  });
});

describe('framing', () => {
  test('a line over maxMessageBytes, arriving in pieces, is dropped and answered with its id; the connection goes on', async () => {
    const h = await harness(4096);
    h.stdin.write(line(INIT));
    const big = JSON.stringify({ jsonrpc: '2.0', id: 42, method: 'tools/call', params: { name: 'x', arguments: { q: 'a'.repeat(100_000) } } });
    for (let i = 0; i < big.length; i += 1000) h.stdin.write(big.slice(i, i + 1000));
    h.stdin.write('\n' + line({ jsonrpc: '2.0', id: 43, method: 'ping' }));
    await tick();
    expect(h.out()).toEqual([{ jsonrpc: '2.0', id: 42, error: { code: INVALID_REQUEST, message: `Message too large: ${big.length} bytes, over maxMessageBytes (4096); it was dropped and the connection goes on.` } }]);
    expect(h.received).toEqual([INIT, { jsonrpc: '2.0', id: 43, method: 'ping' }]);
    expect(h.warnings).toEqual(['dropped an oversized message']);
  });

  test('several lines in one chunk, a line split over chunks, CRLF and blank lines', async () => {
    const h = await harness();
    const a = { jsonrpc: '2.0', method: 'notifications/a' };
    const b = { jsonrpc: '2.0', method: 'notifications/b' };
    const text = JSON.stringify(a) + '\r\n\n' + JSON.stringify(b) + '\n';
    h.stdin.write(text.slice(0, 7));
    h.stdin.write(text.slice(7, 40));
    h.stdin.write(text.slice(40));
    await tick();
    expect(h.received).toEqual([a, b]);
    expect(h.out()).toEqual([]);
  });

  test('stdin ending closes the transport', async () => {
    const h = await harness();
    let closed = false;
    h.transport.onclose = () => (closed = true);
    h.stdin.end();
    await tick();
    expect(closed).toBe(true);
  });
});

test.each([
  ['{"jsonrpc":"2.0","id":7,"method":"x","params":{"q":"aaa', 7],
  ['{"jsonrpc":"2.0","params":{"id":1,"q":[{"id":2}]},"id":"r-9","method":"x"', 'r-9'],
  ['{"method":"x","params":{"s":"\\"id\\":5"},"id" : -3 ,', -3],
  ['{"jsonrpc":"2.0","params":{"q":"aaaa', null],
  ['{"id":1.5,', null],
])('topLevelId(%j) is %j', (text, id) => {
  expect(topLevelId(text)).toBe(id);
});

describe('one handshake, bounded nesting', () => {
  test('a second initialize on the connection is answered -32600 and not passed on; other requests still pass', async () => {
    const h = await harness();
    const again = { ...INIT, id: 9 };
    const ping = { jsonrpc: '2.0', id: 10, method: 'ping' };
    h.stdin.write(line(INIT) + line(again) + line(ping));
    await tick();
    expect(h.received).toEqual([INIT, ping]);
    expect(h.out()).toEqual([{ jsonrpc: '2.0', id: 9, error: { code: INVALID_REQUEST, message: expect.stringContaining('already initialized') } }]);
  });

  test('a line nested past 512 levels is answered -32700 without being parsed; one of 512 is parsed', async () => {
    const h = await harness(1 << 20);
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const atBound = { jsonrpc: '2.0', method: 'notifications/x', params: { a: JSON.parse('['.repeat(510) + ']'.repeat(510)) } }; // 1 + 1 + 510 levels
    h.stdin.write(line(INIT) + deep + '\n' + line(atBound));
    await tick();
    expect(h.out()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: expect.stringContaining('deeper than 512 levels') } }]);
    expect(h.received).toEqual([INIT, atBound]);
    expect(h.warnings).toContain('a line nested too deep');
  });
});
