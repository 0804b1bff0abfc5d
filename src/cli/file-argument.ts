import * as fs from 'node:fs';
import * as path from 'node:path';
import { McpgwError } from '../kernel/errors';

/**
 * Where a command's FILE argument is read (`mcpgw query`, and a plugin command whose CommandDefinition.file is true, such as `mcpgw aggregate`): with `--root DIR`, FILE is a path under
 * DIR as in every tool (relative to it; an absolute path must lie inside it, else ACCESS_DENIED when it is opened);
 * without it, the file's own folder is the sandbox root (the person at the terminal chose the file; a root from
 * MCPGW_ROOT or a config file is for serve).
 * @returns `root`: the sandbox root; `input`: the path to open under it.
 * @throws McpgwError NOT_FOUND when, without --root, FILE does not exist.
 */
export function fileArgument(file: string, rootGiven: boolean, configRoot: string | null): { root: string; input: string } {
  if (rootGiven && configRoot !== null) return { root: configRoot, input: file };
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(file));
  } catch {
    // A root set by MCPGW_ROOT or a config applies to a command's FILE only with --root: say where FILE was looked for.
    throw new McpgwError('NOT_FOUND', `No such file: ${file} (looked for from the current folder, ${process.cwd()}).`, configRoot !== null
      ? { hint: `FILE is a path from the current folder; to read it under the root MCPGW_ROOT or the config sets (${configRoot}), pass --root ${configRoot}.` }
      : {});
  }
  return { root: path.dirname(real), input: path.basename(real) };
}
