import { z } from 'zod';

const positiveInt = z.number().int().positive();

/** Limits as written in a config or profile: every key optional, unknown keys refused. */
export const limitsSchema = z.strictObject({
  maxFileBytes: positiveInt.nullable(),
  maxRecordBytes: positiveInt,
  maxDepth: positiveInt.max(100_000),
  maxNodes: positiveInt,
  // At least 4 KiB: an answer's envelope (its warnings, cut, hint, cursor) takes up to 2 KiB before any item.
  maxResultBytes: positiveInt.min(4096),
  maxMessageBytes: positiveInt.min(1024),
  maxItems: positiveInt,
  maxRecordPreviewBytes: positiveInt.min(256),
  maxOpenFiles: positiveInt,
  maxCursors: positiveInt,
  handleIdleMs: positiveInt,
  cursorIdleMs: positiveInt,
  maxConcurrentScans: positiveInt,
  requestTimeoutMs: positiveInt,
  detailTimeMs: positiveInt,
  probeBytes: positiveInt,
  probeRecords: positiveInt,
}).partial();

const name = z.string().min(1);

/** How answers are written (docs/architecture.md "Context budget"): record text layout and the text block of results. */
export const recordFormatSchema = z.enum(['pretty', 'compact']);
export const resultTextSchema = z.enum(['auto', 'full', 'summary']);

/** One profile (docs/architecture.md "Configuration"): which bundles and tools it offers, its limits and how it answers. */
export const profileSchema = z.strictObject({
  extends: name.optional(),
  bundles: z.array(name).optional(),
  allow: z.array(name).optional(),
  deny: z.array(name).optional(),
  root: name.optional(),
  limits: limitsSchema.optional(),
  recordFormat: recordFormatSchema.optional(),
  resultText: resultTextSchema.optional(),
  /** false: answers that may quote private text (a person's conversation history) show secrets as written. Default true. */
  redactSecrets: z.boolean().optional(),
});

/** A plugin entry: an npm name or a path, optionally with options. */
export const pluginEntrySchema = z.union([name, z.tuple([name, z.record(z.string(), z.unknown())])]);

export const logLevelSchema = z.enum(['error', 'warn', 'info', 'debug']);

/**
 * `mcpgw serve --http` (docs/http.md): where to listen and who may call. Every key optional; defaults in
 * config/http.ts. `path` is the MCP endpoint's URL path; `allowedHosts` are `Host` header names without
 * port (IPv6 in brackets); `allowedOrigins` are browser origins (`https://app.example.com`, with a port
 * when not the scheme's default); `maxBodyBytes` bounds one POST body; `token` or `tokenFile` (relative to
 * the config file) is the Bearer token every request must carry; `maxSessions` bounds open 2025-era sessions.
 */
export const httpSchema = z.strictObject({
  host: name.optional(),
  port: z.number().int().min(0).max(65535).optional(),
  path: z.string().regex(/^\/[A-Za-z0-9._~!$&'()*+,;=:@%\/-]*$/, 'expected a URL path starting with "/"').optional(),
  allowedOrigins: z.array(name).optional(),
  allowedHosts: z.array(name).optional(),
  maxBodyBytes: positiveInt.min(1024).optional(),
  token: z.string().optional(),
  tokenFile: name.optional(),
  maxSessions: positiveInt.optional(),
  maxSessionsPerPrincipal: positiveInt.optional(),
  maxConnections: positiveInt.optional(),
  headersTimeoutMs: positiveInt.min(100).optional(),
  bodyTimeoutMs: positiveInt.min(100).optional(),
});

/**
 * The whole `.mcpgwrc`, but plugins' sections (objects under other keys, load.ts `pluginSections`). Unknown keys are
 * refused, so a typo never passes silently: here, or once plugins load for an object no plugin claims.
 */
export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  root: name.optional(),
  builtins: z.union([z.boolean(), z.array(name)]).optional(),
  plugins: z.array(pluginEntrySchema).optional(),
  profiles: z.record(name, profileSchema).optional(),
  profile: name.optional(),
  limits: limitsSchema.optional(),
  recordFormat: recordFormatSchema.optional(),
  resultText: resultTextSchema.optional(),
  redactSecrets: z.boolean().optional(),
  logLevel: logLevelSchema.optional(),
  http: httpSchema.optional(),
  /** The persistent index cache (docs/architecture.md "Persistent index"): false turns it off. Default true. */
  cache: z.boolean().optional(),
  /** Its folder (default `$XDG_CACHE_HOME/mcpgw/index`, else `~/.cache/mcpgw/index`); relative to the config file. */
  cacheDir: name.optional(),
  /** Its bound, bytes: the least recently used entries are removed past it. Default 1 GiB. */
  cacheMaxBytes: positiveInt.optional(),
});

export type ConfigFile = z.infer<typeof configSchema>;
export type ProfileConfig = z.infer<typeof profileSchema>;
export type LimitsConfig = z.infer<typeof limitsSchema>;
export type LogLevel = z.infer<typeof logLevelSchema>;
export type HttpConfigFile = z.infer<typeof httpSchema>;
export type PluginEntry = z.infer<typeof pluginEntrySchema>;
