import type { Writable } from 'node:stream';

/**
 * stdout is the protocol (docs/architecture.md "Rules"): from here on, what anything else in the process writes to
 * `process.stdout` — a plugin's `console.log`, its worker threads' output (Node pipes it into the main thread's
 * `process.stdout`) — goes to stderr instead. Returns the one writer of the protocol stream: `process.stdout` with its
 * own `write`, for the stdio transport.
 */
export function reserveStdout(): Writable {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout);
  const stderr = process.stderr;
  stdout.write = ((chunk: unknown, encoding?: unknown, cb?: unknown) => stderr.write(chunk as string, encoding as BufferEncoding, cb as () => void)) as typeof stdout.write;
  return new Proxy(stdout, { get: (target, key) => (key === 'write' ? write : Reflect.get(target, key, target)) });
}
