import type { CommandDefinition } from 'mcpgw/plugin-api';
import type { SessionsService } from './service';

/**
 * `mcpgw sessions index`: builds or updates semantic_search's index from the shell, with a progress bar on a
 * terminal; the index lands in the cache folder where the server finds it. `--source NAME` narrows to one source.
 */
export function indexCommand(service: SessionsService): CommandDefinition {
  return {
    name: 'sessions index',
    description: 'build or update the session-history search index (semantic_search) in the cache folder',
    usage: [['--source <name>', 'only this source (claude, codex, copilot, gemini, qwen, kimi)']],
    async run(args, ctx) {
      const at = args.indexOf('--source');
      const source = at === -1 ? undefined : args[at + 1];
      if (at !== -1 && !source) { process.stderr.write('mcpgw: --source needs a source name\n'); return 2; }
      const unknown = args.filter((a, i) => a !== '--source' && i !== at + 1);
      if (unknown.length) { process.stderr.write(`mcpgw: sessions index: unexpected argument ${JSON.stringify(unknown[0])}\n`); return 2; }
      const started = ctx.clock.now();
      const homes = service.homes(ctx).filter((h) => h.available && (source === undefined || h.source.name === source));
      if (source !== undefined && homes.length === 0) {
        process.stderr.write(`mcpgw: no available session source named ${JSON.stringify(source)}\n`);
        return 2;
      }
      const all = service.homes(ctx).filter((h) => h.available);
      const catalog = await service.catalog(ctx, all);
      const sessions = catalog.projects.flatMap((p) => p.sessions).filter((s) => source === undefined || s.source === source).sort((a, b) => b.mtimeMs - a.mtimeMs);
      const { index, report } = await service.withSemantic(ctx, async (index) => {
        const report = await index.update(ctx, service, all, sessions, Number.POSITIVE_INFINITY, source === undefined);
        if (report.updated > 0) index.engine.prepare();
        return { index, report };
      });
      const secs = ((ctx.clock.now() - started) / 1000).toFixed(1);
      ctx.print(`indexed ${report.indexed} sessions (${report.updated} read now, ${report.failed.length} unreadable) in ${secs} s: ${index.store.file}\n`);
      for (const f of report.failed.slice(0, 10)) process.stderr.write(`mcpgw: could not index ${f.path}: ${f.message}\n`);
      return 0;
    },
  };
}
