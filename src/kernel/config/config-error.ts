import type { z } from 'zod';

/** A configuration or usage error: the CLI prints it and exits with code 2. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** "key.path: what was expected" lines for each zod issue, e.g. `profiles.analysts.limits.maxItems: expected number, received string`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], prefix = ''): string {
  return issues
    .map((issue) => {
      const keyPath = [prefix, ...issue.path.map(String)].filter((p) => p !== '').join('.');
      let what = issue.message;
      if (issue.code === 'unrecognized_keys') {
        what = `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
      }
      return `  ${keyPath || '(top level)'}: ${what}`;
    })
    .join('\n');
}
