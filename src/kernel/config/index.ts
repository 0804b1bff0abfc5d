export { loadConfig, SEARCH_PLACES, type LoadedConfig } from './load';
export { resolveConfig, NO_ROOT_MESSAGE, type EffectiveConfig, type Flags, type CacheConfig } from './resolve';
export { ConfigError, describeIssues } from './config-error';
export { DEFAULT_LIMITS } from './defaults';
export { configSchema, type ConfigFile, type PluginEntry, type LogLevel } from './schema';
export { resolveHttpConfig, isLoopbackHost, HTTP_DEFAULTS, LOOPBACK_HOSTNAMES, MIN_TOKEN_CHARS, type HttpSettings, type HttpFlags } from './http';
