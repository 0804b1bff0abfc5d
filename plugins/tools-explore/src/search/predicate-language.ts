import type { CompiledQuery, CompileOptions, PluginContext, QueryLanguage, RegistryView } from 'mcpgw/plugin-api';
import { Tokens } from 'mcpgw/plugin-kit';
import { PredicateError, translatePredicate } from './predicate';

/** The language's name, as tools take it (`language: "predicate"`) and its compiled queries' owner. */
export const PREDICATE = 'predicate';

const FORMS = 'Forms: $.status = "active", $.age > 40, $.a != \'x\' && $.b >= 2, !($.tags), length($.tags) > 2; or a JSONPath query such as $.user.name.';

/**
 * The explorer's record predicates (predicate.ts) as a query language like any other, registered through
 * `registerQueryLanguage`: a predicate selects the records it holds for (`perRecord: "sequence"`), compiled to the
 * RFC 9535 query `$[?filter]` by the registered `jsonpath` language. The compiled query is that JSONPath query (its
 * `language` "jsonpath", its `text` `$[?filter]`), so a worker thread rebuilds it from the JSONPath plugin alone, and
 * it brings JSONPath's hints: prefilter literals, the record split, the members the filter reads.
 * `matchCase` (CompileOptions): string equality ignores case unless true.
 */
export function predicateLanguage(context: Pick<PluginContext, 'container' | 'error'>): QueryLanguage {
  let registry: RegistryView | undefined;
  return {
    name: PREDICATE,
    description: 'record tests: $.status = "failed", $.age > 40, $.x == true (bare $.x: present); strings ignore case',
    perRecord: 'sequence',
    compile(text: string, options: CompileOptions = {}): CompiledQuery {
      let filter: string;
      try {
        filter = translatePredicate(text, options.matchCase === true).filter;
      } catch (err) {
        if (err instanceof PredicateError) {
          throw context.error('QUERY_SYNTAX_ERROR', `Bad record predicate at character ${err.position}: ${err.message}`, { location: { position: err.position }, hint: FORMS });
        }
        throw err;
      }
      registry ??= context.container.resolve<RegistryView>(Tokens.Registry);
      const jsonpath = registry.queryLanguages.get('jsonpath');
      if (!jsonpath) {
        throw context.error('UNSUPPORTED_QUERY_FEATURE', 'Record predicates compile to JSONPath, and no loaded plugin registers the "jsonpath" query language.', { hint: 'Enable the query-jsonpath plugin.' });
      }
      const q = `$[?${filter}]`;
      try {
        return jsonpath.compile(q, options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {});
      } catch (err) {
        const e = err as { code?: string; message: string };
        throw context.error(e.code === 'UNSUPPORTED_QUERY_FEATURE' ? 'UNSUPPORTED_QUERY_FEATURE' : 'QUERY_SYNTAX_ERROR', `The record predicate translates to the RFC 9535 query ${q}, which is not valid: ${e.message}`, {
          hint: 'Comparisons take singular paths ($.a.b, $.items[0]) and literals; a path alone tests that the member exists.',
        });
      }
    },
  };
}

/** The RFC 9535 filter a compiled predicate runs (its JSONPath text is `$[?filter]`). */
export function filterOf(query: CompiledQuery): string {
  return query.text.slice(3, -1);
}
