/**
 * DI tokens of the kernel's container (tsyringe). Strings, so plugins can use them without
 * importing kernel code: `registry.container.resolve<FormatRegistryView>(Tokens.Formats)`.
 */
export const Tokens = {
  /** `Registries['formats']` */
  Formats: 'mcpgw:formats',
  /** `Registries['queryLanguages']` */
  QueryLanguages: 'mcpgw:query-languages',
  /** `Limits` of the active profile */
  Limits: 'mcpgw:limits',
  /** `Logger` */
  Logger: 'mcpgw:logger',
} as const;
