import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as nodeModule from 'node:module';

/** The specifiers plugins import the plugin API (types only) and the plugin kit (runtime helpers) by, and the built module each resolves to. */
const SPECIFIERS: Record<string, string> = { 'mcpgw/plugin-api': 'plugin-api', 'mcpgw/plugin-kit': 'plugin-kit' };
let installed = false;

/**
 * Makes `mcpgw/plugin-kit` (and `mcpgw/plugin-api`, which holds no value) resolve, for every module loaded after this
 * call on this thread (`require` and `import` alike), to the running kernel's own module, wherever the plugin lives:
 * the built-in plugins in this repository (no `node_modules/mcpgw` above them) and a plugin loaded by path then import
 * its runtime helpers, and every plugin shares the kernel's one kit (its `PLUGIN_API_VERSION`, its `FakeClock`). A Node resolve hook
 * (`module.registerHooks`, Node ≥ 22.15) applies to one thread, so worker threads call this too. Without the hook
 * (an older Node) or without a built plugin-API module beside this file (TypeScript sources under a test runner,
 * which maps the name itself), it does nothing. Idempotent.
 */
export function installApiResolution(): void {
  if (installed) return;
  installed = true;
  const register = (nodeModule as { registerHooks?: (hooks: { resolve: ResolveHook }) => unknown }).registerHooks;
  const urls = new Map<string, string>();
  for (const [specifier, folder] of Object.entries(SPECIFIERS)) {
    const target = path.join(__dirname, '..', '..', folder, 'index.js');
    if (fs.existsSync(target)) urls.set(specifier, pathToFileURL(target).href);
  }
  if (typeof register !== 'function' || urls.size === 0) return;
  register({
    resolve(specifier, context, next) {
      const url = urls.get(specifier);
      return url ? { url, shortCircuit: true } : next(specifier, context);
    },
  });
}

type ResolveHook = (specifier: string, context: unknown, next: (specifier: string, context: unknown) => unknown) => unknown;
