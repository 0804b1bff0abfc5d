import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as nodeModule from 'node:module';

/** The specifier plugins import the plugin API by. */
const API_SPECIFIER = 'mcpgw/plugin-api';
let installed = false;

/**
 * Makes `mcpgw/plugin-api` resolve, for every module loaded after this call on this thread (`require` and `import`
 * alike), to the running kernel's own plugin-API module, wherever the plugin lives: the built-in plugins in this
 * repository (no `node_modules/mcpgw` above them) and a plugin loaded by path then import its runtime helpers, and
 * every plugin shares the kernel's one module (its `McpgwError`, its `PLUGIN_API_VERSION`). A Node resolve hook
 * (`module.registerHooks`, Node ≥ 22.15) applies to one thread, so worker threads call this too. Without the hook
 * (an older Node) or without a built plugin-API module beside this file (TypeScript sources under a test runner,
 * which maps the name itself), it does nothing. Idempotent.
 */
export function installApiResolution(): void {
  if (installed) return;
  installed = true;
  const target = path.join(__dirname, '..', '..', 'plugin-api', 'index.js');
  const register = (nodeModule as { registerHooks?: (hooks: { resolve: ResolveHook }) => unknown }).registerHooks;
  if (typeof register !== 'function' || !fs.existsSync(target)) return;
  const url = pathToFileURL(target).href;
  register({
    resolve(specifier, context, next) {
      return specifier === API_SPECIFIER ? { url, shortCircuit: true } : next(specifier, context);
    },
  });
}

type ResolveHook = (specifier: string, context: unknown, next: (specifier: string, context: unknown) => unknown) => unknown;
