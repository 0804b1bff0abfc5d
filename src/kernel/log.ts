import type { Logger } from './contracts/plugin';
import type { LogLevel } from './config/schema';

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/**
 * A logger that writes one line per message to stderr (never stdout, which carries only MCP
 * messages): `mcpgw <level> <message> <fields as JSON>`.
 */
export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const max = RANK[level];
  const emit = (lvl: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (RANK[lvl] > max) return;
    let tail = '';
    if (fields && Object.keys(fields).length > 0) {
      try { tail = ' ' + JSON.stringify(fields); } catch { tail = ' [unserializable fields]'; }
    }
    write(`mcpgw ${lvl} ${message}${tail}\n`);
  };
  return { error: emit('error'), warn: emit('warn'), info: emit('info'), debug: emit('debug') };
}

/** `log` with `tags` added to every line's fields (a plugin's log carries `plugin`; a tool's also `bundle`). */
export function tagLogger(log: Logger, tags: Record<string, unknown>): Logger {
  const emit = (lvl: keyof Logger) => (message: string, fields?: Record<string, unknown>) => log[lvl](message, { ...tags, ...fields });
  return { error: emit('error'), warn: emit('warn'), info: emit('info'), debug: emit('debug') };
}
