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
    throw new McpgwError('NOT_FOUND', `No such file: ${file}`);
  }
  return { root: path.dirname(real), input: path.basename(real) };
}
