import { Command, CommanderError } from 'commander';
import { progressBar } from './progress';
import { prepare, type CommonOptions } from './setup';

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
  const { config, kernel } = await prepare(opts, false);
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
    process.stderr.write(`mcpgw: unknown command "${words.join(' ')}".${known.length ? ` Plugin commands: ${known.join(', ')}.` : ''} Run mcpgw --help for the built-in commands.\n`);
    return 2;
  }
  const command = kernel.registry.commands.get(name)!.item;
  const args = [...words.slice(name.split(' ').length), ...rest];
  if (opts.help) {
    process.stdout.write(`Usage: mcpgw ${name} [options]\n\n${command.description}\n\nOptions:\n${(command.usage ?? []).map(([f, d]) => `  ${f.padEnd(24)} ${d}\n`).join('')}  ${'--no-progress'.padEnd(24)} no progress bar on stderr\n`);
    return 0;
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
    }, name);
    return await command.run(args, ctx);
  } finally {
    bar?.done();
    process.removeListener('SIGINT', onSigint);
  }
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
