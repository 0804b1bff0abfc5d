import { McpServer } from '@modelcontextprotocol/server';
import type { Logger } from '../contracts/plugin';
import { tagLogger } from '../log';
import type { AnswerSettings, SessionScope, ToolContext, ToolDefinition } from '../contracts/tool';
import { Session } from '../session/session';
import { advertiseOnly, inputJsonSchema, outputJsonSchema } from './schemas';
import { lenientOutput } from './lenient-schemas';
import { runTool } from './tool-adapter';
import type { BlameFn } from './fault-guard';
import { clientOf } from './client-families';
import { toolContext, type ContextServices } from './tool-context';
import { advertisedSchemas, type SchemaCacheOptions } from './schema-cache';

/** A tool a profile offers, with the bundle and plugin it belongs to (its session scope and its log tags). */
export interface OfferedTool {
  tool: ToolDefinition;
  bundle: string;
  plugin: string;
  /** The bundle's `lenientArguments` (contracts/tool.ts): null is the default, unknown keys are ignored with a warning. */
  lenient?: boolean;
}

/** What a server is built from: its name and tools, and the services every tool context gets (tool-context.ts). */
export interface ServerSpec extends ContextServices {
  name: string;
  version: string;
  instructions: string;
  tools: readonly OfferedTool[];
  /** How the profile wants answers written (`ctx.answers`; the tool adapter writes the text block by it). */
  answers: AnswerSettings;
  /**
   * Where the advertised JSON Schemas are stored between starts (schema-cache.ts; the index cache's folder), so a start
   * after the first does not convert every tool's zod schemas; absent or null: computed at every start.
   */
  schemaCache?: Omit<SchemaCacheOptions, 'log'> | null;
  /** Which plugin's code raised a fault (the registry's `blame`): an INTERNAL_ERROR names it. */
  blame?: BlameFn;
}

/** Answer settings where no profile says otherwise. */
export const DEFAULT_ANSWERS: AnswerSettings = { recordFormat: 'compact', resultText: 'auto', redactSecrets: true };

/** Minimum interval between progress notifications of one request, ms. */
const PROGRESS_EVERY_MS = 100;

/**
 * The server factory: one McpServer per connection (stdio runs it once per connection in both
 * protocol eras), with its own Session holding handles and cursors, ended when the connection closes.
 */
export function createServerFactory(spec: ServerSpec): () => McpServer {
  const build = createServerBuilder(spec);
  return () => build(new Session(spec.clock), true);
}

/**
 * Builds McpServer instances over a given Session. `ownsSession`: the session ends when this server
 * closes (a stdio connection, a 2025-era HTTP session); false when the session outlives the instance
 * (an HTTP request of the 2026-07-28 era, served by a fresh instance over its principal's store).
 */
export function createServerBuilder(spec: ServerSpec): (session: Session, ownsSession: boolean) => McpServer {
  // JSON Schemas are computed once, not per connection (and read back from the cache folder when stored there).
  const schemas = advertisedSchemas(
    spec.tools.map(({ tool, bundle, plugin, lenient }) => ({
      id: `${plugin}/${bundle}/${tool.name}${lenient ? ' lenient' : ''}`,
      compute: () => ({ input: inputJsonSchema(tool.inputSchema), output: outputJsonSchema(lenient ? lenientOutput(tool.outputSchema) : tool.outputSchema) }),
    })),
    spec.schemaCache ? { ...spec.schemaCache, log: spec.log } : null,
  );
  const prepared = spec.tools.map(({ tool, bundle, plugin, lenient }, i) => ({
    tool,
    bundle,
    plugin,
    lenient: lenient === true,
    log: tagLogger(spec.log, { plugin, bundle }),
    input: advertiseOnly(schemas[i].input),
    output: advertiseOnly(schemas[i].output),
  }));
  return (session, ownsSession) => {
    const server = new McpServer({ name: spec.name, version: spec.version }, { capabilities: { tools: {} }, instructions: spec.instructions });
    for (const { tool, bundle, plugin, lenient, log, input, output } of prepared) {
      server.registerTool(
        tool.name,
        { title: tool.title, description: tool.description, inputSchema: input, outputSchema: output, annotations: tool.annotations },
        async (args: unknown, sdkCtx: any) => {
          const ctx = makeContext(spec, session.scope(bundle), plugin, log, sdkCtx);
          return runTool(tool, args, ctx, plugin, { lenient, client: clientOf(sdkCtx, server.server), ...(spec.blame ? { blame: spec.blame } : {}) }) as any;
        },
      );
    }
    if (ownsSession) {
      const previous = server.server.onclose;
      server.server.onclose = () => {
        session.end();
        previous?.();
      };
    }
    return server;
  };
}

function makeContext(spec: ServerSpec, session: SessionScope, plugin: string, log: Logger, sdkCtx: any): ToolContext {
  const signal: AbortSignal = sdkCtx?.mcpReq?.signal ?? new AbortController().signal;
  const token = sdkCtx?.mcpReq?._meta?.progressToken;
  let last = 0;
  const progress = (done: number, total: number, message?: string) => {
    if (token === undefined || signal.aborted) return;
    const now = spec.clock.now();
    if (now - last < PROGRESS_EVERY_MS && done < total) return;
    last = now;
    const params: Record<string, unknown> = { progressToken: token, progress: done, total };
    if (message) params.message = message;
    void sdkCtx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => undefined);
  };
  return toolContext(spec, { session, plugin, log, signal, progress });
}
