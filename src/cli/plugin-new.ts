import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from '../kernel/config';
import { OWN_DIR, VERSION } from './setup';

/** The kinds of plugin `mcpgw plugin new` writes. */
export const PLUGIN_KINDS = ['format', 'language', 'tools'] as const;
export type PluginKind = (typeof PLUGIN_KINDS)[number];

export interface PluginNewOptions {
  /** The folder to write (default: the package name without its scope, in the current folder). */
  dir?: string;
  /** The `mcpgw` devDependency (default: this mcpgw — its folder when it is a checkout, else `^version`). */
  mcpgw?: string;
}

/** npm's rule for a package name (lower case, URL-safe, at most 214 characters, an optional @scope/). */
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

/**
 * `mcpgw plugin new <format|language|tools> <name>`: writes a plugin package — package.json (mcpgw and zod as peers,
 * mcpgw, zod, TypeScript and Node's types as dev dependencies), tsconfig.json, src/index.ts, a test that passes
 * (`npm test`: build, then Node's test runner over the plugin kit's tool tester) and a README — into a new folder.
 * Prints what it wrote and the next commands on stdout. @throws ConfigError (exit 2) for an unknown kind, a name npm
 * refuses, or a folder that exists and is not empty
 */
export function pluginNewCommand(kind: string, name: string, opts: PluginNewOptions, cwd = process.cwd()): string[] {
  if (!(PLUGIN_KINDS as readonly string[]).includes(kind)) throw new ConfigError(`plugin new: the kind is one of ${PLUGIN_KINDS.join(', ')}, not ${JSON.stringify(kind)}.`);
  if (!PACKAGE_NAME.test(name) || name.length > 214) {
    throw new ConfigError(`plugin new: ${JSON.stringify(name)} is not an npm package name (lower-case letters, digits, - . _ ~, an optional @scope/; e.g. mcpgw-format-logfmt).`);
  }
  const dir = path.resolve(cwd, opts.dir ?? name.replace(/^@[^/]+\//, ''));
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) throw new ConfigError(`plugin new: ${dir} exists and is not empty; give another name or --dir.`);
  const files = pluginFiles(kind as PluginKind, name, opts.mcpgw ?? ownSpec());
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return [dir, ...Object.keys(files)];
}

/** This mcpgw as a dependency spec: a checkout's folder (`file:`), or the released version's range when installed. */
function ownSpec(): string {
  return OWN_DIR.split(path.sep).includes('node_modules') ? `^${VERSION}` : `file:${OWN_DIR}`;
}

/** The versions the package's dev dependencies get: those mcpgw itself is built and tested with. */
function ownVersions(): { zod: string; typescript: string; typesNode: string } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pkg = require(path.join(OWN_DIR, 'package.json')) as { dependencies: Record<string, string>; devDependencies?: Record<string, string> };
  return { zod: pkg.dependencies.zod!, typescript: pkg.devDependencies?.typescript ?? '5.9.3', typesNode: pkg.devDependencies?.['@types/node'] ?? '22' };
}

/** The identifier-like stem of a package name: `@acme/mcpgw-format-logfmt` → `logfmt` (mcpgw-, format-, language-, tools- dropped). */
function stem(name: string): string {
  const bare = name.replace(/^@[^/]+\//, '').replace(/^mcpgw-/, '').replace(/^(format|language|query|tools)-/, '');
  const s = bare.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return /^[a-z]/.test(s) ? s : `p_${s || 'plugin'}`;
}

/** Every file of the package, by path relative to its folder. */
export function pluginFiles(kind: PluginKind, name: string, mcpgwSpec: string): Record<string, string> {
  const v = ownVersions();
  const id = stem(name);
  const what = { format: `the ${id} format`, language: `the ${id} query language`, tools: `the ${id} tool bundle` }[kind];
  const pkg = {
    name,
    version: '0.1.0',
    description: `An mcpgw plugin: ${what}.`,
    keywords: ['mcpgw-plugin'],
    license: 'MIT',
    type: 'commonjs',
    main: 'dist/index.js',
    types: 'dist/index.d.ts',
    files: ['dist'],
    engines: { node: '>=22' },
    scripts: { build: 'tsc -p .', test: 'tsc -p . && node --test test/plugin.test.mjs' },
    peerDependencies: { mcpgw: `^${VERSION}`, zod: '^4.0.0' },
    devDependencies: { '@types/node': v.typesNode, mcpgw: mcpgwSpec, typescript: v.typescript, zod: v.zod },
  };
  const tsconfig = {
    compilerOptions: {
      target: 'ES2023', module: 'node16', moduleResolution: 'node16', strict: true, declaration: true,
      outDir: 'dist', rootDir: 'src', skipLibCheck: true, types: ['node'],
    },
    include: ['src'],
  };
  const source = { format: formatSource, language: languageSource, tools: toolsSource }[kind](name, id);
  const test = { format: formatTest, language: languageTest, tools: toolsTest }[kind](id);
  return {
    'package.json': JSON.stringify(pkg, null, 2) + '\n',
    'tsconfig.json': JSON.stringify(tsconfig, null, 2) + '\n',
    'src/index.ts': source,
    'test/plugin.test.mjs': test,
    '.gitignore': 'node_modules/\ndist/\n*.tgz\n',
    'README.md': readme(kind, name, id, what),
  };
}

function readme(kind: PluginKind, name: string, id: string, what: string): string {
  const use = {
    format: `open_file / json_open read \`.${id}\` files`,
    language: `json_read, search and aggregate take \`language: "${id}"\``,
    tools: `the \`${id}\` bundle's tools`,
  }[kind];
  return `# ${name}

An [mcpgw](https://github.com/) plugin: ${what} (${use}). Written by \`mcpgw plugin new ${kind} ${name}\`.

\`\`\`sh
npm install     # mcpgw, zod, TypeScript (mcpgw: see "devDependencies"; it is not on the npm registry)
npm test        # build, then test/plugin.test.mjs through mcpgw's tool tester (a real MCP client, in-process)
npm pack        # the tarball a deployment installs next to mcpgw
\`\`\`

Load it from a deployment's \`.mcpgwrc.yaml\`: \`plugins: ["${name}"]\` (installed) or \`plugins: ["./path/to/this/folder"]\`.
How plugins work: mcpgw's docs/writing-plugins.md; the contracts are the types of \`mcpgw/plugin-api\`, the runtime
helpers (and the tool tester) \`mcpgw/plugin-kit\`.
`;
}

const header = (name: string, what: string) => `/**
 * ${name}: ${what}, an mcpgw plugin. Types come from mcpgw/plugin-api (the contracts, types only), runtime helpers
 * from mcpgw/plugin-kit; everything else (files, limits, the engine's helpers) arrives through the contexts.
 */
`;

function toolsSource(name: string, id: string): string {
  return `${header(name, `the ${id} tool bundle`)}import { z } from 'zod';
import type { ToolDefinition } from 'mcpgw/plugin-api';
import { definePlugin } from 'mcpgw/plugin-kit';

const input = z.object({ path: z.string().describe('A file under the server root (any format the server reads)') });
const output = z.object({
  path: z.string(),
  records: z.number().int().describe('Records counted'),
  complete: z.boolean().describe('false when the count stopped at maxRecords or at the request deadline'),
});

function countTool(maxRecords: number): ToolDefinition<typeof input, typeof output> {
  return {
    name: '${id}_count',
    title: 'Count records',
    description: 'Counts the records of a file under the root (JSON Lines lines, array elements, …).',
    inputSchema: input,
    outputSchema: output,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async handler(args, ctx) {
      // The only file access there is: inside the root, the format detected by the registry.
      const opened = await ctx.files.open(args.path, { signal: ctx.signal, onProgress: ctx.progress });
      try {
        let records = 0;
        let complete = true;
        for await (const batch of opened.source.batches({ signal: ctx.signal })) {
          if (records + batch.count > maxRecords || ctx.clock.now() > ctx.deadline) {
            records = Math.min(records + batch.count, maxRecords);
            complete = false;
            break;
          }
          records += batch.count;
        }
        if (ctx.signal.aborted) throw ctx.error('CANCELLED', 'The request was cancelled.');
        return { path: opened.path, records, complete };
      } finally {
        opened.close();
      }
    },
  };
}

export default definePlugin({
  name: ${JSON.stringify(name)},
  version: '0.1.0',
  apiVersion: '^3.0.0',
  options: z.strictObject({ maxRecords: z.number().int().positive().default(10_000_000) }),
  register(context, options) {
    context.registerToolBundle({
      name: '${id}',
      description: '${id}: ${id}_count counts the records of a file.',
      tools: [countTool(options.maxRecords)],
    });
  },
});
`;
}

function toolsTest(id: string): string {
  return `// The plugin's tools through a real MCP client, in-process (mcpgw's tool tester): every result is checked against
// the tool's output schema. Run by \`npm test\` after the build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { testTools } from 'mcpgw/plugin-kit';

const plugin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

test('${id}_count counts the records of a JSON Lines file and of a JSON array', async () => {
  const t = await testTools(plugin, { files: { 'app.jsonl': '{"a":1}\\n{"a":2}\\n\\n{"a":3}\\n', 'list.json': '[1, 2]' } });
  try {
    // by hand: three non-blank lines; two elements
    assert.deepEqual((await t.call('${id}_count', { path: 'app.jsonl' })).structuredContent, { path: 'app.jsonl', records: 3, complete: true });
    assert.deepEqual((await t.call('${id}_count', { path: 'list.json' })).structuredContent, { path: 'list.json', records: 2, complete: true });
    const outside = await t.call('${id}_count', { path: '../elsewhere.jsonl' });
    assert.equal(outside.error?.code, 'ACCESS_DENIED');
  } finally {
    await t.close();
  }
});

test('maxRecords bounds the count and says so', async () => {
  const t = await testTools(plugin, { options: { maxRecords: 2 }, files: { 'app.jsonl': '{"a":1}\\n{"a":2}\\n{"a":3}\\n' } });
  try {
    assert.deepEqual((await t.call('${id}_count', { path: 'app.jsonl' })).structuredContent, { path: 'app.jsonl', records: 2, complete: false });
  } finally {
    await t.close();
  }
});
`;
}

function languageSource(name: string, id: string): string {
  return `${header(name, `the ${id} query language`)}import type { CompiledQuery, QueryNode } from 'mcpgw/plugin-api';
import { definePlugin, escapeToken } from 'mcpgw/plugin-kit';

/**
 * A dotted path: \`1.user.name\` — each step a member name, or an array index (digits). A query is evaluated on a value
 * (a record, or with file addressing the file's sequence of records) and selects at most one node.
 */
function compile(text: string, fail: (message: string, position: number) => Error): CompiledQuery {
  const steps = text.split('.');
  let at = 0;
  for (const step of steps) {
    if (step === '') throw fail(\`An empty step at character \${at}: steps are member names or indexes joined by ".".\`, at);
    at += step.length + 1;
  }
  return {
    text,
    evaluate(value: unknown): QueryNode[] {
      let node = value;
      let path = '';
      for (const step of steps) {
        if (Array.isArray(node) && /^(0|[1-9][0-9]*)$/.test(step) && Number(step) < node.length) node = node[Number(step)];
        else if (node !== null && typeof node === 'object' && !Array.isArray(node) && Object.prototype.hasOwnProperty.call(node, step)) node = (node as Record<string, unknown>)[step];
        else return [];
        path += '/' + escapeToken(step);
      }
      return [{ path, value: node }];
    },
  };
}

export default definePlugin({
  name: ${JSON.stringify(name)},
  version: '0.1.0',
  apiVersion: '^3.0.0',
  register(context) {
    context.registerQueryLanguage({
      name: '${id}',
      description: 'Dotted paths: 1.user.name (member names, or array indexes as digits).',
      compile: (text) => compile(text, (message, position) => context.error('QUERY_SYNTAX_ERROR', message, { location: { position } })),
    });
  },
});
`;
}

function languageTest(id: string): string {
  return `// The language through a real MCP client, in-process (mcpgw's tool tester): the built-in reader's json_read takes
// any registered language. Run by \`npm test\` after the build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { testTools } from 'mcpgw/plugin-kit';

const plugin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const people = '{"name":"Ada","tags":["x"]}\\n{"name":"Bob","tags":[]}\\n';

test('json_read answers a ${id} query: the file is the sequence of its records', async () => {
  const t = await testTools(plugin, { builtins: ['format-jsonl', 'query-pointer', 'tools-reader'], files: { 'people.jsonl': people } });
  try {
    const r = await t.call('json_read', { path: 'people.jsonl', language: '${id}', query: '1.name' });
    assert.equal(r.isError, false);
    assert.deepEqual(r.structuredContent.items, [{ path: '/1/name', value: 'Bob' }]);
    const none = await t.call('json_read', { path: 'people.jsonl', language: '${id}', query: '0.tags.1' });
    assert.deepEqual(none.structuredContent.items, []);
    const bad = await t.call('json_read', { path: 'people.jsonl', language: '${id}', query: '1..name' });
    assert.equal(bad.error?.code, 'QUERY_SYNTAX_ERROR');
    assert.equal(bad.error?.location?.position, 2);
  } finally {
    await t.close();
  }
});
`;
}

function formatSource(name: string, id: string): string {
  return `${header(name, `the ${id} format`)}import type { FormatProbe, OffsetIndex, PluginContext, RecordFramer } from 'mcpgw/plugin-api';
import { definePlugin } from 'mcpgw/plugin-kit';

/**
 * \`.${id}\` files: one record per non-blank line of \`key=value\` pairs separated by spaces (logfmt-like:
 * \`level=info msg=up\`), each presented as the JSON object of its pairs, values as strings. mcpgw's indexing kit
 * (\`context.records.openFramed\`) does the rest: the index, the persistent index, growth, malformed-record reports.
 */
const LF = 0x0a;
const STATE_TAG = 0x4c;

/**
 * The framing pass: pushes the start of every line that is not blank, resumable from a saved state. Blank: JSON
 * whitespace, by the engine's walker (\`context.toolkit.json\`).
 */
class LineFramer implements RecordFramer {
  constructor(private readonly index: OffsetIndex, private lineStart: number, private pushed: boolean, private readonly context: PluginContext) {}

  feed(offset: number, bytes: Uint8Array): void {
    const blank = this.context.toolkit.json.isJsonWhitespace;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (b === LF) { this.lineStart = offset + i + 1; this.pushed = false; }
      else if (!this.pushed && !blank(b)) { this.index.push(this.lineStart, NaN); this.pushed = true; }
    }
  }

  saveState(): Uint8Array {
    const state = new Uint8Array(10);
    state[0] = STATE_TAG;
    state[1] = this.pushed ? 1 : 0;
    new DataView(state.buffer).setFloat64(2, this.lineStart);
    return state;
  }

  static restore(index: OffsetIndex, state: Uint8Array, context: PluginContext): LineFramer | null {
    if (state.length !== 10 || state[0] !== STATE_TAG) return null;
    return new LineFramer(index, new DataView(state.buffer, state.byteOffset).getFloat64(2), state[1] === 1, context);
  }

  /** One line's pairs as a JSON object; a word without \`=\` is a malformed record. */
  decode(text: string, index: number): unknown {
    const out: Record<string, string> = {};
    for (const pair of text.trim().split(/[ \\t]+/)) {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw this.context.error('SYNTAX_ERROR', \`Record \${index}: \${JSON.stringify(pair)} is not key=value.\`, { location: { record_index: index } });
      Object.defineProperty(out, pair.slice(0, eq), { value: pair.slice(eq + 1), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
}

/** Content decides: every complete line of the probe is key=value pairs. The extension breaks ties. */
function detect(probe: FormatProbe): number | null {
  const text = Buffer.from(probe.bytes).toString('utf8');
  const lines = text.split('\\n');
  if (probe.size > probe.bytes.length) lines.pop(); // the last line may be cut by the probe
  const full = lines.map((l) => l.trim()).filter((l) => l !== '');
  if (full.length === 0 || !full.every((l) => /^([^\\s=]+=[^\\s]*)([ \\t]+[^\\s=]+=[^\\s]*)*$/.test(l))) return probe.extension === '.${id}' ? 0.3 : null;
  return probe.extension === '.${id}' ? 0.9 : 0.4;
}

export default definePlugin({
  name: ${JSON.stringify(name)},
  version: '0.1.0',
  apiVersion: '^3.0.0',
  register(context) {
    context.registerFormat({
      name: '${id}',
      extensions: ['.${id}'],
      emptyText: 'no-records',
      description: 'key=value pairs, one record per line (logfmt-like); values are strings.',
      detect,
      open: (file, options) => context.records.openFramed(file, options, {
        format: '${id}',
        framing: { isPadding: context.toolkit.json.isJsonWhitespace, separator: { byte: LF, where: 'before' } },
        start: (index, from) => new LineFramer(index, from, false, context),
        restore: (index, state) => LineFramer.restore(index, state, context),
      }),
    });
  },
});
`;
}

function formatTest(id: string): string {
  return `// The format through a real MCP client, in-process (mcpgw's tool tester): the built-in explorer opens and reads
// \`.${id}\` files like any other. Run by \`npm test\` after the build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { testTools } from 'mcpgw/plugin-kit';

const plugin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const log = 'level=info msg=up\\n\\nlevel=error msg=disk\\nlevel=error msg=net\\n';

test('the explorer opens a .${id} file: three records, each the object of its pairs', async () => {
  const t = await testTools(plugin, { builtins: ['query-jsonpath', 'tools-explore'], files: { 'app.${id}': log } });
  try {
    const opened = await t.call('open_file', { path: 'app.${id}' });
    assert.equal(opened.isError, false);
    assert.equal(opened.structuredContent.record_count, 3); // by hand: three non-blank lines
    const handle = opened.structuredContent.handle;
    const record = await t.call('get_record', { handle, index: 1 });
    assert.deepEqual(JSON.parse(record.structuredContent.record), { level: 'error', msg: 'disk' });
    const found = await t.call('search', { handle, query: '$.level == "error"' });
    assert.equal(found.structuredContent.total_matches, 2);
  } finally {
    await t.close();
  }
});

test('a line that is not key=value pairs is a malformed record, reported', async () => {
  const t = await testTools(plugin, { builtins: ['query-jsonpath', 'tools-explore'], files: { 'bad.${id}': 'level=info\\noops\\n' } });
  try {
    const opened = await t.call('open_file', { path: 'bad.${id}' });
    assert.equal(opened.structuredContent.record_count, 2);
    const record = await t.call('get_record', { handle: opened.structuredContent.handle, index: 1 });
    assert.equal(record.error?.code, 'SYNTAX_ERROR');
  } finally {
    await t.close();
  }
});
`;
}
