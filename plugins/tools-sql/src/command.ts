import type { CommandDefinition, ErrorCode, ErrorDetails } from 'mcpgw/plugin-api';
import { ERROR_CODES } from 'mcpgw/plugin-kit';
import type { SqlEngine } from './engine';

/**
 * `mcpgw sql FILE "SQL"`: the statement over FILE as the view `t`, every row printed as one JSON object (JSON Lines),
 * numbers exact. FILE is located by the CLI (`file: true`, src/cli/file-argument.ts): under --root when given, else
 * the file's own folder is the sandbox. No deadline (Ctrl-C stops it). Errors are thrown to the CLI, which prints
 * them as for every command.
 */
export function sqlCommand(engine: SqlEngine): CommandDefinition {
  return {
    name: 'sql',
    description: 'run one SQL SELECT over FILE (the view t) with DuckDB, locked down as sql_query; one JSON object per row',
    usage: [['"SQL"', 'one SELECT naming the file (JSON Lines, JSON, CSV, Parquet) t']],
    file: true,
    async run(args, ctx) {
      if (args.length !== 2) {
        process.stderr.write('mcpgw: sql needs FILE and one SQL statement: mcpgw sql events.jsonl "SELECT status, count(*) FROM t GROUP BY 1"\n');
        return 2;
      }
      // FILE was located by the CLI (`file: true`), as for `mcpgw query` and `mcpgw aggregate`: a path under ctx.root,
      // which is --root when given, else FILE's own folder.
      const [input, sql] = args as [string, string];
      try {
        const stream = await engine.run(ctx, { sql, path: input });
        const names = stream.columns.map((c) => c.name);
        for (;;) {
          const rows = await stream.next(ctx);
          if (!rows) break;
          let out = '';
          for (const row of rows) {
            const obj: Record<string, unknown> = {};
            names.forEach((n, i) => { obj[n] = row[i]; });
            out += `${JSON.stringify(obj)}\n`;
          }
          ctx.print(out);
        }
        for (const w of stream.warnings) process.stderr.write(`mcpgw: warning: ${w}\n`);
        return 0;
      } catch (err) {
        // A catalogue error goes to the CLI, which prints every command's the same way (code, message, position) and
        // exits 2 for a fault of the command line's own arguments (a statement that does not parse, a file outside the
        // root), else 1.
        const e = err as Error & { code?: string; location?: ErrorDetails['location'] };
        if (err instanceof Error && e.code && (ERROR_CODES as readonly string[]).includes(e.code)) {
          throw e.constructor.name === 'McpgwError' ? err : ctx.error(e.code as ErrorCode, e.message, e.location ? { location: e.location } : {});
        }
        throw err;
      }
    },
  };
}
