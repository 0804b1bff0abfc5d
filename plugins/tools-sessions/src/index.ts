import type { Plugin, SessionSource, ToolBundle, ToolDefinition } from 'mcpgw/plugin-api';
import { optionsSchema, type SessionsOptions } from './homes';
import { SessionsService } from './service';
import { claudeSource } from './sources/claude';
import { codexSource } from './sources/codex';
import { copilotSource } from './sources/copilot';
import { geminiSource } from './sources/gemini';
import { kimiSource } from './sources/kimi';
import { qwenSource } from './sources/qwen';
import { listActiveSessions } from './tools/active';
import { listProjects, listSessions, listSources } from './tools/listing';
import { searchSessions } from './tools/search';
import { getUsageStats } from './tools/usage';
import { semanticSearch } from './tools/semantic';
import { gloveSifEmbedder } from './semantic/glove';
import { indexCommand } from './command';
import { getSessionEntries, getSessionMetadata } from './tools/session';
import { withRedaction } from './redact';

/** The six built-in session sources, in the order they are listed. */
export const BUILTIN_SOURCES: readonly SessionSource[] = [claudeSource, codexSource, copilotSource, geminiSource, qwenSource, kimiSource];

/**
 * Bundle `sessions`: the session-history tools (the thinkt tool set) over every registered session source. Not in
 * the default set of bundles (it reads a person's private history): a profile names it, or config
 * `sessions.enabled: true` adds it. Reads only under the sources' home folders and needs no root.
 */
export function sessionsBundle(service: SessionsService): ToolBundle {
  return {
    name: 'sessions',
    description:
      'Session-history tools: list_sources, list_projects, list_sessions, get_session_metadata, get_session_entries, list_active_sessions, search_sessions, semantic_search and get_usage_stats read the conversations AI coding assistants (Claude Code, Codex, Copilot CLI, Gemini CLI, Qwen Code, Kimi) keep on disk; paths are the full session paths list_sessions returns.',
    offeredByDefault: false,
    needsRoot: false,
    // Every answer is scanned for secrets (on by default; the profile's redactSecrets: false turns it off).
    tools: [
      listSources(service),
      listProjects(service),
      listSessions(service),
      getSessionMetadata(service),
      getSessionEntries(service),
      listActiveSessions(service),
      searchSessions(service),
      semanticSearch(service),
      getUsageStats(service),
    ].map((t) => withRedaction(t as ToolDefinition<any, any>)),
  };
}

const plugin: Plugin<SessionsOptions> = {
  name: '@mcpgw/tools-sessions',
  version: '0.1.0',
  apiVersion: '^2.8.0',
  options: optionsSchema,
  register(registry, options) {
    if (registry.registerSessionSource) for (const source of BUILTIN_SOURCES) registry.registerSessionSource(source);
    registry.registerEmbedder?.(gloveSifEmbedder);
    const service = new SessionsService(options);
    registry.registerToolBundle(sessionsBundle(service));
    registry.registerCommand?.(indexCommand(service));
  },
};

export default plugin;
