import type { QueryLanguage, RegistryView, ToolContext } from 'mcpgw/plugin-api';

/** The registered query languages' names, for texts a model reads ("jsonpath, pointer, predicate, jmespath"). */
export function languageNames(registry: RegistryView): string {
  return registry.queryLanguages.list().map((l) => l.name).join(', ') || '(none)';
}

/**
 * The registered query language `name`.
 * @throws INVALID_ARGUMENT naming the registered languages (with a hint built from them)
 */
export function queryLanguage(ctx: ToolContext, name: string): QueryLanguage {
  const language = ctx.registry.queryLanguages.get(name);
  if (language) return language;
  const all = ctx.registry.queryLanguages.list();
  throw ctx.error('INVALID_ARGUMENT', `Unknown query language ${JSON.stringify(name)}. Registered: ${all.map((l) => l.name).join(', ') || '(none)'}.`, {
    hint: all.length ? `language is one of: ${all.map((l) => (l.description ? `"${l.name}" (${l.description})` : `"${l.name}"`)).join('; ')}.` : 'No loaded plugin registers a query language.',
  });
}
