import * as path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError, HTTP_DEFAULTS } from '../kernel/config';
import { BUILTIN_COMMANDS, PluginLoadError } from '../kernel/plugins/loader';
import { pluginCommand, printPluginCommands } from './plugin-command';
import { McpgwError } from '../kernel/errors';
import { VERSION, type CommonOptions } from './setup';
import { checkCommand, listToolsCommand, pluginsCommand, serveCommand, type ServeOptions } from './commands';
import type { QueryOptions } from './query';
import { FILE_ROOT_HELP } from './root-help';

/** Exit codes (docs/architecture.md "Configuration"): 0 success, 1 runtime failure, 2 usage or configuration error. */
export const EXIT = { OK: 0, RUNTIME: 1, USAGE: 2 } as const;

/** Error codes that mean the arguments were wrong (exit 2). */
const USAGE_CODES: ReadonlySet<string> = new Set(['NOT_FOUND', 'INVALID_ARGUMENT', 'ACCESS_DENIED', 'QUERY_SYNTAX_ERROR']);

function withCommonOptions(cmd: Command, rootHelp = 'root folder whose files are served, relative to the current folder (env MCPGW_ROOT)'): Command {
  return cmd
    .option('-c, --config <file>', 'config file (default: discover .mcpgwrc* or "mcpgw" in package.json from the current folder up)')
    .option('-p, --profile <name>', 'profile to use (env MCPGW_PROFILE)')
    .option('-r, --root <dir>', rootHelp)
    .addOption(new Option('--log-level <level>', 'stderr log level (env MCPGW_LOG)').choices(['error', 'warn', 'info', 'debug']));
}

/** The program's commands; `query` loads its module when it runs (start-up time of `serve`). */
export function buildProgram(): Command {
  const program = new Command('mcpgw')
    .description('An MCP gateway that opens, searches and queries JSON, JSON Lines and JSON-seq files for AI assistants.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run mcpgw --help for usage)')
    .exitOverride();
  const configure = (cmd: Command) => withCommonOptions(cmd).exitOverride().showHelpAfterError();
  configure(program.command('serve').description('serve MCP over stdio, or over HTTP with --http (stdout carries only protocol messages; logs go to stderr)'))
    .option('--http', 'serve MCP over Streamable HTTP (both protocol eras on one endpoint) instead of stdio; prints the URL on stderr')
    .option('--host <address>', `address to listen on with --http (default ${HTTP_DEFAULTS.host}; a non-loopback address needs a token: env MCPGW_HTTP_TOKEN)`)
    .option('--port <n>', `port to listen on with --http (default ${HTTP_DEFAULTS.port}; 0 picks a free one)`, (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number from 0 to 65535');
      return n;
    })
    .action((opts: ServeOptions) => serveCommand(opts));
  configure(program.command('list-tools').description('list the tools the profile offers, with one-line descriptions'))
    .option('--json', 'print JSON')
    .action((opts: CommonOptions & { json?: boolean }) => listToolsCommand(opts));
  configure(program.command('plugins').description('list loaded plugins, their versions and what each registered'))
    .option('--json', 'print JSON')
    .action((opts: CommonOptions & { json?: boolean }) => pluginsCommand(opts));
  configure(program.command('check').description('validate the config, the plugins and the root; exit 0 when all is well, 2 otherwise'))
    .action((opts: CommonOptions) => checkCommand(opts));
  withCommonOptions(program.command('query'), FILE_ROOT_HELP).exitOverride().showHelpAfterError().description('run a query over a whole file and print the node list as JSON Lines {"path", "value"} (numbers exact)')
    .argument('<file>', 'the file, in any format the loaded plugins read: a path from the current folder, or with --root a path under the root (MCPGW_ROOT and a config\'s root apply to serve, not here)')
    .argument('<query>', 'the query, e.g. \'$[?@.status=="failed"].id\' (JSONPath) or /0/id (JSON Pointer)')
    .addOption(new Option('-l, --language <name>', 'query language, any the loaded plugins register (mcpgw plugins lists them; default: pointer for a query starting with /, else jsonpath)'))
    .option('-f, --format <name>', 'file format (default: detected): json, jsonl, json-seq or a plugin\'s')
    .option('-n, --limit <n>', 'print at most n nodes', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number ≥ 0');
      return n;
    })
    .option('--no-progress', 'no progress bar on stderr')
    .action((file: string, query: string, opts: QueryOptions) => (require('./query') as typeof import('./query')).queryCommand(file, query, opts));
  const plugin = program.command('plugin').description('plugin development: `plugin new` writes a plugin package').exitOverride().showHelpAfterError();
  plugin.command('new').description('write a plugin package (package.json, tsconfig, src/index.ts, a passing test through the tool tester) into a new folder')
    .argument('<kind>', 'format, language or tools')
    .argument('<name>', 'the npm package name, e.g. mcpgw-format-logfmt or @acme/mcpgw-tools-stats')
    .option('--dir <folder>', 'the folder to write (default: the name without its @scope/, in the current folder); must be new or empty')
    .option('--mcpgw <spec>', 'the package\'s mcpgw devDependency: a tarball, a folder (file:…) or a version (default: this mcpgw: its folder when it is a checkout)')
    .exitOverride()
    .showHelpAfterError()
    .action((kind: string, name: string, opts: { dir?: string; mcpgw?: string }) => {
      const [dir, ...files] = (require('./plugin-new') as typeof import('./plugin-new')).pluginNewCommand(kind, name, opts);
      process.stdout.write(`${files.map((f) => `wrote ${path.join(dir!, f)}`).join('\n')}\nnext: cd ${JSON.stringify(dir)} && npm install && npm test\n`);
    });
  return program;
}

/** Runs the CLI; resolves to the exit code (serve resolves once the server is listening). */
export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    const first = argv[2];
    if (first !== undefined && !first.startsWith('-') && !BUILTIN_COMMANDS.includes(first)) return await pluginCommand(argv.slice(2));
    // `mcpgw help sessions`: the help of a plugin's command (or group of commands), as `mcpgw sessions --help`.
    const second = argv[3];
    if (first === 'help' && second !== undefined && !second.startsWith('-') && !BUILTIN_COMMANDS.includes(second)) {
      return await pluginCommand([...argv.slice(3), '--help']);
    }
    await program.parseAsync(argv as string[]);
    return EXIT.OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') {
        if (err.code !== 'commander.version' && isTopLevelHelp(argv)) await printPluginCommands();
        return EXIT.OK;
      }
      return EXIT.USAGE;
    }
    if (err instanceof ConfigError || err instanceof PluginLoadError) {
      process.stderr.write(`mcpgw: ${err.message}\n`);
      return EXIT.USAGE;
    }
    if (err instanceof McpgwError) {
      // One rule for every command: the code, the message with the position where there is one, and what to do about
      // it (the hint tools give in their error results).
      process.stderr.write(`mcpgw: ${errorLine(err)}\n${err.hint ? `mcpgw: hint: ${err.hint}\n` : ''}`);
      // Faults of the command line's own arguments (a missing file, one outside the root, a bad query) are usage.
      return USAGE_CODES.has(err.code) ? EXIT.USAGE : EXIT.RUNTIME;
    }
    process.stderr.write(`mcpgw: ${(err as Error)?.stack ?? String(err)}\n`);
    return EXIT.RUNTIME;
  }
}

/** `CODE: message`, with ` (at character N)` when the error has a position its message does not already say. */
export function errorLine(err: McpgwError): string {
  const position = err.location?.position;
  const at = position !== undefined && !err.message.includes(`at character ${position}`) ? ` (at character ${position})` : '';
  return `${err.code}: ${err.message}${at}`;
}

/** `mcpgw --help`, `mcpgw -h` or `mcpgw help` alone: the program's own help was printed. */
function isTopLevelHelp(argv: readonly string[]): boolean {
  const rest = argv.slice(2);
  return rest.length === 1 && ['--help', '-h', 'help'].includes(rest[0]!);
}
