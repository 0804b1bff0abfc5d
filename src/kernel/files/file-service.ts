import * as path from 'node:path';
import type { Format, FormatProbe, RecordSource } from '../contracts/format';
import type { Limits } from '../contracts/limits';
import type { FileAccess, OpenedSource, RawFile } from '../contracts/tool';
import { McpgwError } from '../errors';
import { selectFormat } from '../plugins/registry';
import { nulHoledFormat, sniffContent, unsupportedContent } from './encoding';
import { listFiles } from './list-files';
import { closeQuietly, openInSandbox, readHead, verifyIdentity } from './open-file';
import type { Sandbox } from './sandbox';
import type { FileSystem } from './file-system';
import type { Clock } from '../contracts/clock';
import { systemClock } from '../clock';
import { ScopedFiles } from './scoped-files';
import type { FileChunk } from '../contracts/records';
import type { OpenedFile } from '../contracts/format';
import type { Indexer } from '../contracts/engine';

/**
 * FileAccess for tools: sandboxed open, format selection and the format's streaming index pass.
 * The descriptor stays open while the source lives and is closed by `OpenedSource.close()`.
 */
export class FileService implements FileAccess {
  constructor(
    private readonly sandbox: Sandbox,
    private readonly formats: () => readonly Format[],
    private readonly limits: Limits,
    /** The clock `list` deadlines are on. */
    private readonly clock: Clock = systemClock,
    /** The engine's index pass and chunked reads (Tokens.Indexer); it keeps the persistent index cache. */
    private readonly indexer: Indexer | null = null,
  ) {}

  /** The root folder (real path). */
  get root(): string {
    return this.sandbox.root;
  }

  async open(input: string, options: Parameters<FileAccess['open']>[1] = {}): Promise<OpenedSource> {
    const file = openInSandbox(this.sandbox, input);
    try {
      const { maxFileBytes } = this.limits;
      if (maxFileBytes !== null && file.identity.size > maxFileBytes) {
        throw new McpgwError('RESOURCE_LIMIT_EXCEEDED', `${file.displayPath} is ${file.identity.size} bytes, over maxFileBytes ${maxFileBytes}.`, {
          limit: { name: 'maxFileBytes', limit: maxFileBytes, value: file.identity.size },
        });
      }
      // The engine's index pass (a stored index, or the chosen format's open), over the descriptor opened here.
      const opened = await this.engine().open(file, {
        formats: this.formats(),
        limits: this.limits,
        options,
        choose: (explicitName) => this.chooseFormat(file, options, explicitName),
      });
      let closed = false;
      return {
        source: opened.source,
        path: file.displayPath,
        realPath: file.realPath,
        detection: opened.detection,
        close: () => {
          if (closed) return;
          closed = true;
          try {
            opened.close();
          } finally {
            closeQuietly(file.fd);
          }
        },
      };
    } catch (err) {
      const said = withLikelyFormat(err, this.formats(), file, options.format, this.limits.probeBytes);
      closeQuietly(file.fd);
      throw said;
    }
  }

  /** The engine's index pass; none wired is an internal error (the composition root registers Tokens.Indexer). */
  private engine(): Indexer {
    if (!this.indexer) throw new McpgwError('INTERNAL_ERROR', 'No indexer is wired to the file service (Tokens.Indexer): the kernel was built without an engine.');
    return this.indexer;
  }

  /**
   * The format of a file opened without a stored index: the probe read, what it is (sniffContent), then the format
   * named or detected (selectFormat) and the strict check.
   */
  private chooseFormat(file: OpenedFile, options: Parameters<FileAccess['open']>[1] & object, explicitName: string | undefined): ReturnType<typeof selectFormat> {
    // An explicit format without the strict check needs no content probe: only the first 4 bytes are read, which
    // tell UTF-16/UTF-32 text and compressed data apart from UTF-8.
    const explicit = explicitName !== undefined && !options.strictFormat;
    const probe = {
      fileName: path.basename(file.realPath),
      extension: path.extname(file.realPath).toLowerCase(),
      bytes: readHead(file, explicit ? 4 : this.limits.probeBytes),
      size: file.identity.size,
    };
    // Text that is not UTF-8, compressed or binary data: no format reads it (a NUL byte is let through to a format
    // the caller names explicitly, whose records then report what they are).
    const sniff = sniffContent(probe.bytes, probe.size);
    if (sniff?.kind === 'binary' && explicitName === undefined) {
      // A log with NUL holes (an unclean shutdown) named as a format that reads it: that format, holes malformed.
      const holed = nulHoledFormat(this.formats(), probe);
      if (holed) return { format: holed, detection: { basis: 'extension', confidence: 0.5 } };
    }
    if (sniff && sniff.kind !== 'empty' && !(sniff.kind === 'binary' && explicitName !== undefined)) {
      throw unsupportedContent(file.displayPath, sniff, this.formats().map((f) => f.name));
    }
    const chosen = selectFormat(this.formats(), probe, options.format);
    if (options.strictFormat && chosen.detection.basis === 'explicit') checkExplicitFormat(this.formats(), chosen.format, probe, file.displayPath);
    return chosen;
  }

  list(input: string | undefined, options?: Parameters<NonNullable<FileAccess['list']>>[1]) {
    const clock = this.clock;
    return listFiles(this.sandbox, this.formats(), input, { ...options, now: () => clock.now() });
  }

  verify(source: RecordSource, realPath: string): void {
    verifyIdentity(realPath, this.sandbox.relative(realPath), source.identity, source.grow?.bind(source));
  }

  within(folders: readonly string[]): FileAccess {
    return new ScopedFiles(folders, this.formats, this.limits, { fs: this.sandbox.fs, clock: this.clock, indexer: this.indexer });
  }

  openRaw(input: string): RawFile {
    const file = openInSandbox(this.sandbox, input);
    let open = true;
    return { fd: file.fd, size: file.identity.size, path: file.realPath, close: () => { if (open) { open = false; closeQuietly(file.fd); } } };
  }

  async *read(input: string, options: { from?: number; to?: number; signal?: AbortSignal } = {}): AsyncGenerator<FileChunk> {
    const file = openInSandbox(this.sandbox, input);
    try {
      yield* this.engine().read(file, { from: options.from, to: Math.min(options.to ?? file.identity.size, file.identity.size), signal: options.signal });
    } finally {
      closeQuietly(file.fd);
    }
  }
}

/**
 * The FileAccess of a profile that offers only bundles needing no root and was given none: every path is
 * ACCESS_DENIED; `within` still reaches the folders a bundle is allowed (the session homes).
 */
export class RootlessFiles implements FileAccess {
  constructor(
    private readonly formats: () => readonly Format[],
    private readonly limits: Limits,
    /** The file system, clock and indexer `within` hands on (default node:fs and the system clock). */
    private readonly system: { fs?: FileSystem; clock?: Clock; indexer?: Indexer | null } = {},
  ) {}

  private denied(): McpgwError {
    return new McpgwError('ACCESS_DENIED', 'No root folder is configured, so no file can be opened by path.', {
      hint: 'Start mcpgw with --root DIR (or MCPGW_ROOT) to serve files from a folder.',
    });
  }

  open(): Promise<OpenedSource> {
    return Promise.reject(this.denied());
  }

  verify(): void {
    throw this.denied();
  }

  list(): Promise<never> {
    return Promise.reject(this.denied());
  }

  // eslint-disable-next-line require-yield
  async *read(): AsyncGenerator<FileChunk> {
    throw this.denied();
  }

  openRaw(): RawFile {
    throw this.denied();
  }

  within(folders: readonly string[]): FileAccess {
    return new ScopedFiles(folders, this.formats, this.limits, this.system);
  }

}

/**
 * FileAccess.open's `strictFormat` check: an explicit format whose own detection rules the content out, while
 * another format recognises it, is FORMAT_MISMATCH naming the likely format.
 * @throws McpgwError FORMAT_MISMATCH
 */
/** `; the first byte that is not whitespace is 0x1E, at byte 0` (the evidence a reader can check), or nothing. */
function firstByte(bytes: Uint8Array): string {
  let k = 0;
  while (k < bytes.length && (bytes[k] === 0x20 || bytes[k] === 0x09 || bytes[k] === 0x0a || bytes[k] === 0x0d)) k++;
  return k < bytes.length ? `; the first byte that is not whitespace is 0x${bytes[k]!.toString(16).toUpperCase().padStart(2, '0')}, at byte ${k}` : '';
}

/**
 * A SYNTAX_ERROR from opening a file in a format named explicitly, with the format its content looks like said (and
 * how to open it so) when that is another one: the error names the byte, this names the format.
 */
function withLikelyFormat(err: unknown, formats: readonly Format[], file: OpenedFile, explicitName: string | undefined, probeBytes: number): unknown {
  if (!(err instanceof McpgwError) || err.code !== 'SYNTAX_ERROR' || explicitName === undefined || explicitName === 'auto') return err;
  let likely: ReturnType<typeof selectFormat> | null = null;
  const probe = { fileName: path.basename(file.realPath), extension: path.extname(file.realPath).toLowerCase(), bytes: readHead(file, probeBytes), size: file.identity.size };
  try { likely = selectFormat(formats, probe); } catch { likely = null; }
  if (!likely || likely.format.name === explicitName || likely.detection.basis !== 'content') return err;
  return new McpgwError('SYNTAX_ERROR', `${err.message} Its content looks like ${likely.format.name} (confidence ${likely.detection.confidence}), not ${explicitName}.`, {
    ...(err.location ? { location: err.location } : {}),
    hint: `Open it with format "${likely.format.name}" or "auto".`,
    cause: err,
  });
}

function checkExplicitFormat(formats: readonly Format[], explicit: Format, probe: FormatProbe, displayPath: string): void {
  let confidence: number | null;
  try { confidence = explicit.detect(probe); } catch { confidence = null; }
  if (confidence !== null) return;
  let likely: ReturnType<typeof selectFormat> | null = null;
  try { likely = selectFormat(formats, probe); } catch { likely = null; }
  if (!likely || likely.format.name === explicit.name || (likely.detection.basis === 'extension' && likely.detection.confidence <= 0.5)) return;
  throw new McpgwError('FORMAT_MISMATCH', `${displayPath} is not ${explicit.name}: its content looks like ${likely.format.name} (confidence ${likely.detection.confidence}${firstByte(probe.bytes)}).`, {
    hint: `Open it with format "${likely.format.name}" or "auto".`,
  });
}
