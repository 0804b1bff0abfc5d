export { logLevelSchema } from './schema';
export type { LimitsConfig, LogLevel, ProfileConfig, ConfigFile } from './schema';
import type { ConfigFile } from './schema';

/** What resolveConfig needs of a loaded config. */
export interface LoadedConfigLike {
  config: ConfigFile;
  dir: string;
}
