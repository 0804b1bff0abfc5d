/** `--root` of a command that reads one FILE (`query`, and plugin commands with a FILE): MCPGW_ROOT does not apply. */
export const FILE_ROOT_HELP = 'FILE is a path under this folder (default: FILE from the current folder, its own folder the sandbox; MCPGW_ROOT and a config\'s root apply to serve, not here)';
