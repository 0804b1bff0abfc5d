/** One node of a node list (RFC 9535 §2.1 "node list"): where it is and what it holds. */
export interface QueryNode {
  /** RFC 6901 JSON Pointer of the node, relative to the value the query was evaluated on. */
  path: string;
  value: unknown;
}

/** A query compiled once and evaluated against many values. */
export interface CompiledQuery {
  readonly text: string;
  /** The node list this query selects from `value` (`value` is `$`, RFC 9535 §2.2). */
  evaluate(value: unknown): QueryNode[];
  /**
   * Optional prefilter hint: byte strings of which at least one must occur in the raw text of any
   * record that can match. Scans skip records containing none of them before parsing.
   */
  readonly requiredLiterals?: readonly string[];
}

/** A query language plugin's contribution (`jsonpath`, `pointer`, or a third party's). */
export interface QueryLanguage {
  readonly name: string;
  readonly description?: string;
  /** @throws McpgwError QUERY_SYNTAX_ERROR with `location.position` and what was expected. */
  compile(text: string): CompiledQuery;
}
