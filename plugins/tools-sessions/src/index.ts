import type { Embedder, Plugin, SessionSource, ToolBundle, ToolDefinition } from 'mcpgw/plugin-api';
import { bindToolkit } from './toolkit';
import { absoluteOptions, optionsSchema, SOURCE_POINT, type SessionsOptions } from './homes';
import { EMBEDDER_POINT } from './semantic/service';
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
export function sessionsBundle(service: SessionsService, enabled = false): ToolBundle {
  return {
    name: 'sessions',
    description:
      'Session-history tools: list_sources, list_projects, list_sessions, get_session_metadata, get_session_entries, list_active_sessions, search_sessions, semantic_search and get_usage_stats read the conversations AI coding assistants (Claude Code, Codex, Copilot CLI, Gemini CLI, Qwen Code, Kimi) keep on disk; paths are the full session paths list_sessions returns.',
    offeredByDefault: enabled,
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
  apiVersion: '^3.0.0',
  options: optionsSchema,
  // The config's `sessions: {…}` is this plugin's options.
  configSection: 'sessions',
  register(registry, given) {
    bindToolkit(registry.toolkit);
    const options = absoluteOptions(given, registry.configDir);
    // Session sources and embedders are extension points of this plugin: any plugin provides to them.
    registry.defineExtensionPoint<SessionSource>({
      name: SOURCE_POINT,
      noun: 'session source',
      check: (source) => {
        if (!/^[a-z][a-z0-9-]{0,31}$/.test(source.name)) return 'needs a lower-case name (letters, digits, "-"; it names config keys and MCPGW_<NAME>_HOME).';
        if (typeof source.discover !== 'function' || typeof source.normalize !== 'function' || typeof source.defaultHome !== 'function' || typeof source.sessionsRoot !== 'function' || !source.layout) {
          return 'needs defaultHome(), sessionsRoot(), layout, discover() and normalize().';
        }
        return undefined;
      },
      // A misspelt source name in the config would leave the real source enabled: refused, naming the known ones.
      complete: (sources) => {
        const known = sources.map((s) => s.name);
        const unknown = Object.keys(options.sources).find((name) => !known.includes(name));
        return unknown === undefined || known.length === 0 ? undefined
          : `sessions.sources.${unknown}: no loaded plugin registers a session source named "${unknown}". Sources: ${[...known].sort().join(', ')}.`;
      },
    });
    registry.defineExtensionPoint<Embedder>({
      name: EMBEDDER_POINT,
      noun: 'embedder',
      check: (e) => (typeof e.embed === 'function' && Number.isInteger(e.dimensions) && e.dimensions > 0 ? undefined : 'needs { name, dimensions, embed() }.'),
    });
    for (const source of BUILTIN_SOURCES) registry.provide(SOURCE_POINT, source);
    registry.provide(EMBEDDER_POINT, gloveSifEmbedder);
    const service = new SessionsService(options);
    // Not offered by default (it reads a person's private history) unless `sessions.enabled` says so.
    registry.registerToolBundle(sessionsBundle(service, options.enabled));
    registry.registerCommand?.(indexCommand(service));
  },
};

export default plugin;
