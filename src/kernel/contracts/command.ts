import type { ToolContext } from './tool';

/** What a plugin command runs with: a tool context without a deadline, plus the terminal. */
export interface CommandContext extends ToolContext {
  /** Writes `text` to stdout (a command's result; progress and logs go to stderr). */
  print(text: string): void;
  /** True when stderr is a terminal: `progress` then draws a bar there (otherwise it is silent). */
  readonly interactive: boolean;
}

/**
 * A command a plugin adds to the `mcpgw` CLI (`mcpgw sessions index`). The kernel loads the config and plugins, builds
 * the context (files, registries, limits, a signal fired by Ctrl-C, `deadline` = never) and runs it.
 */
export interface CommandDefinition {
  /** The words after `mcpgw`, e.g. `sessions index`; unique, and none may be a built-in command (serve, query, …). */
  readonly name: string;
  /** One line for `mcpgw plugins` and the command's --help. */
  readonly description: string;
  /** Arguments and options it accepts, for --help: `[["--force", "rebuild from scratch"]]`. */
  readonly usage?: readonly (readonly [string, string])[];
  /** Runs with the arguments after the name (common options such as --config removed); resolves to the exit code. */
  run(args: readonly string[], ctx: CommandContext): Promise<number>;
}
