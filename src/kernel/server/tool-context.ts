import type { Clock } from '../contracts/clock';
import type { Limits } from '../contracts/limits';
import type { Logger } from '../contracts/plugin';
import type { JsonLayout } from '../contracts/records';
import type { RegexService } from '../contracts/regex';
import type { ScanEngine } from '../contracts/scan';
import type { ProgressReporter } from '../contracts/format';
import type { AnswerSettings, FileAccess, RegistryView, SessionScope, ToolContext } from '../contracts/tool';
import { errorFactory } from '../errors';

/** The services every context of one service scope shares (the server's, a command's, a test's). */
export interface ContextServices {
  registry: RegistryView;
  files: FileAccess;
  limits: Limits;
  log: Logger;
  /** Each call's deadline is `clock.now() + limits.requestTimeoutMs` unless the call says otherwise. */
  clock: Clock;
  root: string;
  scan: ScanEngine;
  regex: RegexService;
  /** A JSON layout for one call (Tokens.JsonLayout): it counts the lone surrogate escapes it replaced. */
  json: () => JsonLayout;
  answers?: AnswerSettings;
}

/** What belongs to one call: its session scope, the plugin it runs for, its log, cancellation, deadline and progress. */
export interface CallOptions {
  session: SessionScope;
  /** The plugin whose tool or command runs: errors it raises through `ctx.error` carry its name. */
  plugin?: string;
  /** Default: the services' log. */
  log?: Logger;
  signal?: AbortSignal;
  /** Default: `clock.now() + limits.requestTimeoutMs`. */
  deadline?: number;
  progress?: ProgressReporter;
}

/**
 * The one ToolContext factory: the server's tool calls, the CLI's plugin commands and tests all build their contexts
 * here, so what a tool gets (an error factory tagging its plugin, a per-call JSON layout that counts replaced lone
 * surrogates, the deadline on the kernel's clock) is the same wherever it runs.
 */
export function toolContext(services: ContextServices, call: CallOptions): ToolContext {
  return {
    registry: services.registry,
    files: services.files,
    session: call.session,
    limits: services.limits,
    signal: call.signal ?? new AbortController().signal,
    deadline: call.deadline ?? services.clock.now() + services.limits.requestTimeoutMs,
    clock: services.clock,
    progress: call.progress ?? (() => undefined),
    log: call.log ?? services.log,
    error: errorFactory(call.plugin),
    root: services.root,
    scan: services.scan,
    regex: services.regex,
    json: services.json(),
    ...(services.answers ? { answers: services.answers } : {}),
  };
}
