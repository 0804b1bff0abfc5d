import { Command, CommanderError } from 'commander';
import { progressBar } from './progress';
import { prepare, type CommonOptions } from './setup';
import { fileArgument } from './file-argument';
import type { CommandDefinition } from '../kernel/contracts/command';
import { FILE_ROOT_HELP } from './root-help';

/**
 * Where the first operand of `args` is: the first argument that is not an option nor the value of an option that
 * takes one (a usage entry `-g, --group-by <path>` takes one, `--json` none); -1 when there is none.
 */
export function fileOperand(args: readonly string[], usage: NonNullable<CommandDefinition['usage']>): number {
  const takesValue = new Set(usage.filter(([flags]) => /[<[]/.test(flags)).flatMap(([flags]) => flags.split(/[ ,]+/).filter((f) => f.startsWith('-'))));
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return i + 1 < args.length ? i + 1 : -1;
    if (!a.startsWith('-') || a === '-') return i;
    if (!a.includes('=') && takesValue.has(a)) i++;
  }
  return -1;
}

/**
 * `mcpgw <plugin command> …`: a command a plugin registered (`registerCommand`, e.g. `sessions index`). The config
 * and plugins are loaded first (the command's name is not known before); common options (--config, --profile,
 * --root, --log-level) work as for every command, `--no-progress` turns the bar off. Resolves to the exit code;
 * 2 for a command no loaded plugin registers.
 */
export async function pluginCommand(argv: readonly string[]): Promise<number> {
  const words: string[] = [];
  for (const a of argv) {
    if (a.startsWith('-')) break;
    words.push(a);
  }
  const common = new Command('mcpgw')
    .exitOverride()
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .helpOption(false)
    .option('-c, --config <file>')
    .option('-p, --profile <name>')
    .option('-r, --root <dir>')
    .option('--log-level <level>')
    .option('--no-progress')
    .option('-h, --help');
  let opts: CommonOptions & { progress?: boolean; help?: boolean };
  try {
    common.parse(argv.filter((a, i) => i >= words.length || !words.includes(a)) as string[], { from: 'user' });
    opts = common.opts();
  } catch (err) {
    if (err instanceof CommanderError) return 2;
    throw err;
  }
  const rest = common.args;
  const { config, kernel, rootSet } = await prepare(opts, false);
  const known = [...kernel.registry.commands.keys()];
  const name = [...known].sort((a, b) => b.split(' ').length - a.split(' ').length).find((n) => {
    const w = n.split(' ');
    return w.every((x, i) => words[i] === x);
  });
  if (!name) {
    // The first words of plugin commands (`mcpgw sessions`): the commands they begin, with --help a usage (exit 0).
    const group = known.filter((n) => words.every((x, i) => n.split(' ')[i] === x) && n.split(' ').length > words.length);
    if (group.length) {
      const lines = group.map((n) => `  ${n.padEnd(24)} ${kernel.registry.commands.get(n)!.item.description}\n`).join('');
      if (opts.help) {
        process.stdout.write(`Usage: mcpgw ${words.join(' ')} <command> [options]\n\nCommands:\n${lines}\nRun mcpgw ${group[0]} --help for a command's options.\n`);
        return 0;
      }
      process.stderr.write(`mcpgw: "${words.join(' ')}" needs a command:\n${lines}`);
      return 2;
    }
    // the commands that begin with the same word when there are any (`sessions rebuild`: sessions index), else all
    const near = known.filter((n) => n.split(' ')[0] === words[0]);
    const listed = near.length ? near : known;
    process.stderr.write(`mcpgw: unknown command "${words.join(' ')}".${listed.length ? ` Plugin commands: ${listed.join(', ')}.` : ''} Run mcpgw --help for the built-in commands.\n`);
    return 2;
  }
  const command = kernel.registry.commands.get(name)!.item;
  let args = [...words.slice(name.split(' ').length), ...rest];
  if (opts.help) {
    process.stdout.write(commandHelp(name, command));
    return 0;
  }
  // A command that takes a FILE reads it as `mcpgw query` does: under --root when given, else in its own folder.
  let root: string | undefined;
  if (command.file) {
    const at = fileOperand(args, command.usage ?? []);
    if (at === -1) {
      process.stderr.write(`mcpgw: ${name} needs a FILE argument (run mcpgw ${name} --help).\n`);
      return 2;
    }
    const located = fileArgument(args[at]!, opts.root !== undefined, rootSet);
    root = located.root;
    args = args.map((a, i) => (i === at ? located.input : a));
  }
  const interactive = opts.progress !== false && process.stderr.isTTY === true;
  const bar = interactive ? progressBar() : null;
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.once('SIGINT', onSigint);
  try {
    const ctx = kernel.commandContext(config, {
      signal: abort.signal,
      progress: (done, total, message) => bar?.update(done, total, message ?? ''),
      print: (text) => void process.stdout.write(text),
      interactive,
      ...(root !== undefined ? { root } : {}),
    }, name);
    return await command.run(args, ctx);
  } finally {
    bar?.done();
    process.removeListener('SIGINT', onSigint);
  }
}

/**
 * A plugin command's --help, in commander's layout: its usage entries whose flags do not start with `-` are its
 * arguments (`FILE "SQL"`), the others its options, then the options every command takes (parsed in pluginCommand).
 * A command that reads a FILE (`file`, or an argument named FILE) takes --root as `mcpgw query` does.
 */
export function commandHelp(name: string, command: Pick<CommandDefinition, 'description' | 'usage' | 'file'>): string {
  const usage = command.usage ?? [];
  const operands = usage.filter(([f]) => !f.startsWith('-'));
  const options = usage.filter(([f]) => f.startsWith('-'));
  const args: (readonly [string, string])[] = command.file ? [['<file>', 'the file: a path under --root when given, else any file (its folder is then the sandbox root)'], ...operands] : operands;
  const readsFile = command.file === true || operands.some(([f]) => /^FILE\b/.test(f));
  const common: [string, string][] = [
    ['-c, --config <file>', 'config file (default: discover .mcpgwrc* or "mcpgw" in package.json from the current folder up)'],
    ['-p, --profile <name>', 'profile to use (env MCPGW_PROFILE)'],
    ['-r, --root <dir>', readsFile ? FILE_ROOT_HELP : 'root folder whose files are served, relative to the current folder (env MCPGW_ROOT)'],
    ['--log-level <level>', 'stderr log level (env MCPGW_LOG): error, warn, info or debug'],
    ['--no-progress', 'no progress bar on stderr'],
    ['-h, --help', 'display help for command'],
  ];
  const line = ([f, d]: readonly [string, string]) => `  ${f.padEnd(24)} ${d}\n`;
  const shown = args.map(([f]) => f).join(' ');
  return `Usage: mcpgw ${name}${shown ? ` ${shown}` : ''} [options]\n\n${command.description}\n\n${args.length ? `Arguments:\n${args.map(line).join('')}\n` : ''}Options:\n${[...options, ...common].map(line).join('')}`;
}

/**
 * After `mcpgw --help`: the commands the plugins of the discovered config register (`sessions index`, …), which the
 * built-in help cannot know. Printed on stdout after the help; a config that does not load is said in one line
 * (its own commands report the fault in full).
 */
export async function printPluginCommands(): Promise<void> {
  let lines: string;
  try {
    const { kernel } = await prepare({}, false);
    const commands = [...kernel.registry.commands.entries()].map(([n, r]) => `  ${n.padEnd(32)}${r.item.description}\n`);
    lines = commands.length ? `\nPlugin commands (from the plugins the config loads):\n${commands.join('')}Run mcpgw <command> --help for a plugin command's options.\n`
      : '\nPlugin commands: none (no loaded plugin registers one).\n';
  } catch (err) {
    lines = `\nPlugin commands: not listed, the config did not load (${(err as Error).message.split('\n')[0]}). Run mcpgw check.\n`;
  }
  process.stdout.write(lines);
}
