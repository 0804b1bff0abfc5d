import * as path from 'node:path';
import type { Format, FormatProbe, RecordSource } from '../contracts/format';
import type { Limits } from '../contracts/limits';
import type { FileAccess, OpenedSource } from '../contracts/tool';
import { McpgwError } from '../errors';
import { selectFormat } from '../plugins/registry';
import { sniffContent, unsupportedContent } from './encoding';
import { listFiles } from './list-files';
import { releaseAfterClose } from '../memory';
import { closeQuietly, openInSandbox, readHead, verifyIdentity } from './open-file';
import type { Sandbox } from './sandbox';
import type { Clock } from '../contracts/clock';
import { systemClock } from '../clock';
import { ScopedFiles } from './scoped-files';
import { readChunksPooled } from '../records/chunks';
import type { FileChunk } from '../contracts/records';

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
      // An explicit format without the strict check needs no content probe: only the first 4 bytes are read, which
      // tell UTF-16/UTF-32 text and compressed data apart from UTF-8.
      const explicit = options.format !== undefined && options.format !== 'auto' && !options.strictFormat;
      const probe = {
        fileName: path.basename(file.realPath),
        extension: path.extname(file.realPath).toLowerCase(),
        bytes: readHead(file, explicit ? 4 : this.limits.probeBytes),
        size: file.identity.size,
      };
      // Text that is not UTF-8, compressed or binary data: no format reads it (a NUL byte is let through to a format
      // the caller names explicitly, whose records then report what they are).
      const sniff = sniffContent(probe.bytes, probe.size);
      if (sniff && sniff.kind !== 'empty' && !(sniff.kind === 'binary' && options.format !== undefined && options.format !== 'auto')) {
        throw unsupportedContent(file.displayPath, sniff);
      }
      const { format, detection } = selectFormat(this.formats(), probe, options.format);
      if (options.strictFormat && detection.basis === 'explicit') checkExplicitFormat(this.formats(), format, probe, file.displayPath);
      const from = options.from !== undefined && Number.isInteger(options.from) && options.from > 0 && options.from <= file.identity.size ? options.from : undefined;
      const source = await format.open(file, { limits: this.limits, signal: options.signal, onProgress: options.onProgress, ...(from !== undefined ? { from } : {}) });
      let closed = false;
      return {
        source,
        path: file.displayPath,
        realPath: file.realPath,
        detection,
        close: () => {
          if (closed) return;
          closed = true;
          try { source.close(); } finally {
            closeQuietly(file.fd);
            // A big file's index and buffers are garbage now: have them collected, not kept until pressure.
            releaseAfterClose(file.identity.size);
          }
        },
      };
    } catch (err) {
      closeQuietly(file.fd);
      throw err;
    }
  }

  list(input: string | undefined, options?: Parameters<NonNullable<FileAccess['list']>>[1]) {
    const clock = this.clock;
    return listFiles(this.sandbox, this.formats(), input, { ...options, now: () => clock.now() });
  }

  verify(source: RecordSource, realPath: string): void {
    verifyIdentity(realPath, this.sandbox.relative(realPath), source.identity, source.grow?.bind(source));
  }

  within(folders: readonly string[]): FileAccess {
    return new ScopedFiles(folders, this.formats, this.limits);
  }

  async *read(input: string, options: { from?: number; to?: number; signal?: AbortSignal } = {}): AsyncGenerator<FileChunk> {
    const file = openInSandbox(this.sandbox, input);
    try {
      yield* readChunksPooled(file, { from: options.from, to: Math.min(options.to ?? file.identity.size, file.identity.size), signal: options.signal });
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

  within(folders: readonly string[]): FileAccess {
    return new ScopedFiles(folders, this.formats, this.limits);
  }

}

/**
 * FileAccess.open's `strictFormat` check: an explicit format whose own detection rules the content out, while
 * another format recognises it, is FORMAT_MISMATCH naming the likely format.
 * @throws McpgwError FORMAT_MISMATCH
 */
function checkExplicitFormat(formats: readonly Format[], explicit: Format, probe: FormatProbe, displayPath: string): void {
  let confidence: number | null;
  try { confidence = explicit.detect(probe); } catch { confidence = null; }
  if (confidence !== null) return;
  let likely: ReturnType<typeof selectFormat> | null = null;
  try { likely = selectFormat(formats, probe); } catch { likely = null; }
  if (!likely || likely.format.name === explicit.name || (likely.detection.basis === 'extension' && likely.detection.confidence <= 0.5)) return;
  throw new McpgwError('FORMAT_MISMATCH', `${displayPath} is not ${explicit.name}: its content looks like ${likely.format.name} (confidence ${likely.detection.confidence}).`, {
    hint: `Open it with format "${likely.format.name}" or "auto".`,
  });
}
