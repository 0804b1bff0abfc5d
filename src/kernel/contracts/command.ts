import type { ToolContext, ToolDefinition } from './tool';

/** What a plugin command runs with: a tool context without a deadline, plus the terminal. */
export interface CommandContext extends ToolContext {
  /** Writes `text` to stdout (a command's result; progress and logs go to stderr). */
  print(text: string): void;
  /** True when stderr is a terminal: `progress` then draws a bar there (otherwise it is silent). */
  readonly interactive: boolean;
  /**
   * Runs `tool` (one of the plugin's own tool definitions) with `args` as a tool call runs: arguments validated by its
   * schema, the handler run with a context like this one, the answer's guards applied (well-formed text and the lone
   * surrogate warning, maxResultBytes). Resolves to the answer (structuredContent); an error result is thrown as an
   * McpgwError whose message ends with its hint.
   */
  runTool(tool: ToolDefinition, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/**
 * A command a plugin adds to the `mcpgw` CLI (`mcpgw aggregate`, `mcpgw history index`). The kernel loads the config and plugins, builds
 * the context (files, registries, limits, a signal fired by Ctrl-C, `deadline` = never) and runs it.
 */
export interface CommandDefinition {
  /** The words after `mcpgw`, e.g. `history index`; unique, and none may be a built-in command (serve, query, …). */
  readonly name: string;
  /** One line for `mcpgw plugins` and the command's --help. */
  readonly description: string;
  /** Arguments and options it accepts, for --help: `[["--force", "rebuild from scratch"]]`. */
  readonly usage?: readonly (readonly [string, string])[];
  /**
   * True: the first argument is a FILE, read as `mcpgw query` reads one — a path under `--root` when given, else the
   * file's own folder is the command's sandbox root — and the command gets it as a path under `ctx.root`.
   */
  readonly file?: boolean;
  /** Runs with the arguments after the name (common options such as --config removed); resolves to the exit code. */
  run(args: readonly string[], ctx: CommandContext): Promise<number>;
}
