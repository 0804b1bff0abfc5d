/** One node of a node list (RFC 9535 §2.1 "node list"): where it is and what it holds. */
export interface QueryNode {
  /** RFC 6901 JSON Pointer of the node, relative to the value the query was evaluated on. */
  path: string;
  value: unknown;
}

/**
 * How a query over a whole file whose root is the sequence of its records (JSON Lines, JSON-seq, a top-level
 * array; docs/architecture.md "Two addressing modes") distributes over the records: first "which records" (`select`), then
 * "what inside each selected record" (`inner`, evaluated with the record as its root). The node list of the
 * whole query is the concatenation, in file order, of `inner`'s node lists of the selected records, each node's
 * path prefixed with `/<record index>`. Absent on a CompiledQuery when the query does not distribute that way
 * (RFC 9535: a union of several selectors at the first segment, a negative slice step, a filter reading `$`).
 */
export interface SequenceSplit {
  /**
   * The records selected from a sequence of `count` records: indexes `start, start + step, …` below `end`
   * (`step` ≥ 1, RFC 9535 §2.3.4.2.2 normalized bounds), each further narrowed by `test` when present.
   */
  range(count: number): { start: number; end: number; step: number };
  /**
   * A per-record predicate (an RFC 9535 filter selector with `@` = the record). Absent: every record in range.
   * `options` bound the queries inside the filter as for `evaluate`.
   */
  test?(record: unknown, options?: EvaluateOptions): boolean;
  /**
   * When `test` reads only these top-level members of the record (singular paths `@.a`, `@['b']`): the engine may
   * call `test` on an object holding just those members, read from the record's bytes (on-demand), and parse the
   * whole record only when it passes. Absent: `test` needs the whole record.
   */
  readonly testReads?: readonly string[];
  /** What is selected inside each selected record (record as root); `null` selects the record itself (path ""). */
  inner: CompiledQuery | null;
}

/**
 * One selector of a {@link QuerySegment} as data (RFC 9535 §2.3), so the kernel can apply it to a document it does
 * not parse whole (lazy nodes, `RecordSource.node`).
 * - `name`: the member of that name of an object (the last of repeated names); nothing on other values.
 * - `index`: the element at that index of an array, negative counting from the end (§2.3.3); nothing on others.
 * - `slice`: array elements `start:end:step` (§2.3.4; bounds normalized as there, `step` 0 selects nothing, a negative
 *   step walks backwards); nothing on others.
 * - `wildcard`: every member value (document order, each name once) or element (§2.3.2).
 * - `filter`: the children (as `wildcard`) for which `test(child value)` holds (§2.3.5); `testReads`, when present,
 *   names the only top-level members of the child `test` reads, so `test` may be called on an object holding just
 *   those (read on demand) as for {@link SequenceSplit.testReads}.
 * - `token`: an RFC 6901 reference token: the member of that name of an object, or the element at that index
 *   (`0` or no leading zero) of an array.
 */
export type SegmentSelector =
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'slice'; readonly start?: number; readonly end?: number; readonly step?: number }
  | { readonly kind: 'wildcard' }
  | { readonly kind: 'filter'; test(value: unknown, options?: EvaluateOptions): boolean; readonly testReads?: readonly string[] }
  | { readonly kind: 'token'; readonly token: string };

/**
 * One segment of a query (RFC 9535 §2.5): a child segment applies its selectors, in order, to the children of each
 * input node; a descendant segment (`descendant: true`) to the children of the input node and of every node below it,
 * in document order (a node before its descendants, §2.5.2.2).
 */
export interface QuerySegment {
  readonly descendant: boolean;
  readonly selectors: readonly SegmentSelector[];
}

/** Options of `QueryLanguage.compile`. */
export interface CompileOptions {
  /** Deepest nesting evaluation may walk (Limits.maxDepth); deeper is RESOURCE_LIMIT_EXCEEDED. */
  maxDepth?: number;
  /**
   * For a language whose string comparisons may ignore case (the explorer's `predicate`): true compares exactly, false
   * (its default there) ignores case. A tool passes its `match_case` argument; other languages ignore it. The compiled
   * query must be one a worker thread rebuilds from its `language` and `text` alone (`predicate` compiles to JSONPath).
   */
  matchCase?: boolean;
}

/** Bounds of one evaluation (the kernel passes Limits.maxNodes and the request deadline). */
export interface EvaluateOptions {
  /**
   * Nodes one evaluation may produce or walk beyond what is linear in the value (the built-in JSONPath counts
   * every node a segment yields or a descendant segment walks once nodes can nest or repeat, and the nodes of
   * non-singular queries inside filters; docs/queries.md); past it RESOURCE_LIMIT_EXCEEDED with `limit.name`
   * "maxNodes". Absent: the language's default (the built-in languages use Limits' default, 200,000).
   */
  maxNodes?: number;
  /** ms since the epoch: an evaluation still running past it stops with RESOURCE_LIMIT_EXCEEDED ("requestTimeoutMs"). */
  deadline?: number;
  /**
   * The length of the request time `deadline` ends (Limits.requestTimeoutMs, ms), for the error's `limit.limit`
   * (plugin API 2.7): a language knows the deadline, not how long the request had. Absent: the error says 0.
   */
  requestTimeoutMs?: number;
  /**
   * The clock `deadline` is on (the kernel's `Clock.now`, a fake one in tests); absent: `Date.now`. A language reads
   * the time through it, never through `Date.now()` directly.
   */
  now?: () => number;
}

/**
 * A note about a valid query that is probably not what was meant, for tools to pass on in their results' warnings
 * (and `mcpgw query` on stderr). Code `NOT_I_REGEXP`: a match()/search() pattern literal that is not I-Regexp
 * (RFC 9485), which RFC 9535 makes match nothing; the message names each construct and its I-Regexp spelling. Code
 * `I_REGEXP_TOO_LARGE`: a valid I-Regexp pattern literal that the RE2 engine refuses (a repeat count over 1000), which
 * matches nothing.
 */
export interface QueryWarning {
  code: string;
  message: string;
  /** 0-based character index in the query text of the part concerned. */
  position?: number;
}

/**
 * A comparison of a singular path with a number (`@.lat > 66.5`) and the query selecting what it passed by for strings
 * that read as numbers meeting it (RFC 9535 §2.3.5.2.2 compares no string with a number): `path`, `comparison` and
 * `asNumbers` (`number(@.lat) > 66.5`) as the language writes them; `query` compiled with the query's options.
 */
export interface NumberLikeCheck { path: string; comparison: string; asNumbers: string; query: CompiledQuery }

/**
 * An existence test (a singular path as a test, `@.landlocked`: true when it selects a node whatever its value, RFC 9535
 * §2.3.5.2.2) and `query`, selecting where its value is `false` or `null`; `path`, `rewrite` (`@.landlocked == true`) as
 * written. `recordTest`: the whole query is the test, as where each record is tested with it (record addressing);
 * `query` then runs in file addressing.
 */
export interface ExistenceCheck { path: string; rewrite: string; query: CompiledQuery; recordTest?: boolean }

/** A query compiled once and evaluated against many values. */
export interface CompiledQuery {
  readonly text: string;
  /**
   * The node list this query selects from `value` (`value` is `$`, RFC 9535 §2.2). Numbers in `value` may be
   * `JSON.rawJSON` objects (exact lexemes); they compare by value and come back unchanged in node values.
   * @throws McpgwError RESOURCE_LIMIT_EXCEEDED (maxDepth; maxNodes or the deadline of `options`).
   */
  evaluate(value: unknown, options?: EvaluateOptions): QueryNode[];
  /**
   * Optional prefilter hint: byte strings of which at least one must occur in the raw text of any
   * record that can match. Scans skip records containing none of them before parsing. Literals are the
   * canonical JSON encoding (`JSON.stringify`); a record may spell the same value with `\u` escapes or `\/`,
   * so a scan also keeps records containing a backslash escape of those kinds (see docs/queries.md).
   */
  readonly requiredLiterals?: readonly string[];
  /**
   * Optional prefilter hint, for a query that has no {@link requiredLiterals}: byte strings of which at least one must
   * occur in the raw text of any record that can match, ASCII letters compared without case (`"failed"` finds
   * `"FAILED"` and `"Failed"`; other bytes exactly). Written with lower-case ASCII letters, in the canonical JSON
   * encoding; records holding a `\u` escape (or `\/` when a literal has `/`) are kept as for requiredLiterals. A case-
   * insensitive match() of a fixed pattern (`match(@.status, "[fF][aA][iI][lL][eE][dD]")`) gives one.
   */
  readonly requiredCaselessLiterals?: readonly string[];
  /**
   * Member names the query selects by name anywhere (its segments and filters: `$.user.lable`, `$[?@.lable == 1]`),
   * for explaining an empty answer (ScanEngine.missingMembers). Optional.
   */
  readonly memberNames?: readonly string[];
  /** Whole-file addressing over a sequence of records (see {@link SequenceSplit}). */
  readonly split?: SequenceSplit;
  /**
   * True when evaluation can run a regular expression that may backtrack (RFC 9535 match()/search()); the engine then
   * evaluates it in a worker thread it can terminate at the deadline, because such an expression can run for minutes.
   * Leave it unset for expressions whose cost is bounded by their length (the built-in JSONPath: a match() of a literal
   * pattern without quantifier, alternation or group, as the explorer's case-insensitive predicates make): the engine
   * then judges threads by the bytes to scan, as for any query.
   */
  readonly usesRegex?: boolean;
  /** Optional (API 3.2): at most 3 {@link NumberLikeCheck}s, computed on first call; `ScanEngine.numberLikeStrings` runs them. */
  numberLikeChecks?(): readonly NumberLikeCheck[];
  /** Optional (API 3.3): at most 3 {@link ExistenceCheck}s, computed on first call; `ScanEngine.queryNotes` runs them. */
  existenceChecks?(): readonly ExistenceCheck[];
  /** Notes about the query itself, found at compile time (see {@link QueryWarning}); absent when there are none. */
  readonly warnings?: readonly QueryWarning[];
  /** The language's registered name (set by the kernel registry when absent), so a worker thread can recompile it. */
  readonly language?: string;
  /**
   * The query as segments (RFC 9535 §2.5; a pointer: one `token` segment per reference token), so the kernel can
   * evaluate it over a document too large to parse whole: it descends only into the members the segments name,
   * streams wildcards and descendant segments over lazy nodes, and parses only the values a filter tests or that are
   * small enough (docs/queries.md "Documents of any size"). Absent (e.g. a filter reading `$`): such documents are
   * evaluated whole when they fit maxRecordBytes, else the query is RESOURCE_LIMIT_EXCEEDED.
   */
  readonly segments?: readonly QuerySegment[];
  /**
   * With `segments`: the query made of segments `k…` alone (`rest(0)` is this query), compiled as a query of its own
   * (its `text` recompiles to it, its `split` and `requiredLiterals` as for any query): the kernel evaluates it on a
   * parsed value, or over the elements of a large array as a sequence of records.
   */
  rest?(k: number): CompiledQuery;
}

/** A query language plugin's contribution (`jsonpath`, `pointer`, or a third party's). */
export interface QueryLanguage {
  readonly name: string;
  /** One line a model reads in tools/list where tools name the registered languages (keep it under 100 characters). */
  readonly description?: string;
  /**
   * How tools that take a query for each record (the explorer's `search` and `aggregate` `where`) apply this language's
   * queries. `root` (default): each record is the query's root (`$`), and a record matches when the node list is not
   * empty. `sequence`: the query selects records from the sequence of them, as in file addressing (the explorer's
   * `predicate`, which compiles to the JSONPath `$[?filter]`); a record matches when it is selected.
   */
  readonly perRecord?: 'root' | 'sequence';
  /** @throws McpgwError QUERY_SYNTAX_ERROR with `location.position` and what was expected. */
  compile(text: string, options?: CompileOptions): CompiledQuery;
}
