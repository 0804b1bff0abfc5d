#!/usr/bin/env node
/**
 * Semantic recall of semantic_search on a history of our own: 24 target sessions, each about one problem (written
 * here by hand), hidden among a filler history (bench/gen-sessions.mjs, ≥ 3,000 sessions) and 300 distractor
 * sessions whose generated titles and first prompts use the targets' topic words ("Fix database connection issue").
 * Each query paraphrases one target's problem in other words (held out: the ranking was not tuned on them). A query
 * counts as a hit at k when one of the first k results belongs to its target session.
 *
 *   node bench/sessions-recall.mjs [--sessions 3000] [--size 300MiB] [--seed 11] [--keep DIR] [--tuning 1|2|3]
 *
 * --tuning N asks the tuning set N of bench/sessions-recall-tuning.json instead of the held-out queries (tune there;
 * set 3 shares no content word with its targets).
 *
 * Builds the index with `mcpgw sessions index` (timed), then asks every query through the MCP client (limit 10), and
 * prints top-3 / top-10 counts and each query's rank as JSON on stdout.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { generate, rng } from './gen-sessions.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..');
const log = (s) => process.stderr.write(`[recall] ${s}\n`);

/** The targets: project, what the user asked, what the assistant answered (paragraphs), and the paraphrase query. */
export const TARGETS = [
  ['chat-server', 'The websocket connection drops after about a minute when no messages are exchanged. Where is the idle timeout configured?',
    ['The server closes idle sockets after 60 seconds: idleTimeout is set in src/server.ts when the WebSocket server is created.', 'I will add a heartbeat ping every 30 seconds from the client so the connection is never idle long enough to be closed.'],
    'socket link keeps getting cut when nothing is sent for a while'],
  ['ops-scripts', 'Our nightly backup job to S3 fails with AccessDenied since we rotated the credentials last week.',
    ['The cron job sources /etc/backup.env, which still holds the old IAM access key; the new key was only added to the CI secrets.', 'Update the env file on the host, or better, give the instance an IAM role so no key has to be rotated by hand.'],
    'scheduled archive upload to object storage broke after we changed keys'],
  ['analytics-ui', 'The React dashboard re-renders every chart whenever any filter changes and the page becomes sluggish.',
    ['Each chart receives a new array on every render because the filtered data is computed inline in the parent.', 'Wrap the chart components in React.memo and derive the filtered series with useMemo keyed on the filters they use.'],
    'front-end graphs all redraw on each selection, interface feels laggy'],
  ['billing-api', 'Postgres runs out of connections under load: "sorry, too many clients already".',
    ['Every worker process opens its own pool of 20 connections; with 12 workers that is 240 against max_connections = 200.', 'Put PgBouncer in transaction mode in front of the database and cut each pool to 5.'],
    'database refuses new clients during traffic spikes because too many are open'],
  ['booking-web', 'Dates show one day off for users in Australia.',
    ['Birthdays are stored as midnight UTC and formatted in the browser\'s local zone, which moves them to the previous day west of Greenwich and to the next day far east.', 'Store calendar dates as plain YYYY-MM-DD strings and format them without any time zone conversion.'],
    'calendar shows the wrong day for people in Sydney'],
  ['imgsvc', 'Memory usage of the image resize service grows until the container is OOM-killed.',
    ['The thumbnails are kept in a module-level Map that is never pruned, so every resized buffer stays reachable.', 'Replace it with an LRU limited to 200 entries and stream the output instead of holding whole buffers.'],
    'thumbnail worker RAM keeps climbing until it crashes'],
  ['portal', 'After the cookie domain change, login redirects loop forever between /login and /home.',
    ['The session cookie is now set for app.example.com, but the home page is served from example.com and never sees it, so it sends the user back to sign in.', 'Set the cookie domain to .example.com and keep SameSite=Lax.'],
    'sign-in keeps bouncing between two pages endlessly'],
  ['cli-tool', 'Unit tests pass on my machine but fail in CI, it looks like the files come back in a different order.',
    ['fs.readdir returns entries in whatever order the file system keeps them; ext4 on the runner hashes names, APFS sorts them.', 'Sort the entries before processing them and the snapshot becomes stable.'],
    'specs green on my laptop but red on the build server'],
  ['settings-app', 'Please translate the settings page into German and French; all strings are hard-coded in the JSX.',
    ['I moved every label into locales/en.json and added de.json and fr.json with i18next.', 'The language picker stores the choice in localStorage and falls back to the browser language.'],
    'make the preferences screen multilingual'],
  ['crm', 'The CSV export breaks rows when a customer name contains a comma.',
    ['The export joins fields with commas without quoting, so "Smith, John" becomes two columns.', 'Fields holding commas, quotes or line breaks must be quoted as RFC 4180 says; I switched to csv-stringify which does it.'],
    'spreadsheet download splits a person\'s name across two cells'],
  ['shop', 'Stripe webhooks are processed twice and some customers are charged double.',
    ['Stripe retries a delivery when our endpoint answers slowly, and the handler creates the charge again each time.', 'Record each event id in a processed_events table and skip ids already seen: the handler becomes idempotent.'],
    'payment provider callbacks handled more than once, duplicate billing'],
  ['deploy', 'Our Docker image is 2 GB and pushing it takes forever.',
    ['The image copies the whole repository including node_modules and the build cache, on a full Debian base.', 'A multi-stage build with a distroless runtime and a .dockerignore brings it to 180 MB.'],
    'container artifact is huge and uploading it is slow'],
  ['orders-api', 'The order search endpoint is slow; EXPLAIN shows a sequential scan on orders.customer_id.',
    ['There is no index on customer_id, so every lookup reads all 40 million rows.', 'CREATE INDEX CONCURRENTLY on orders(customer_id, created_at) makes it an index range scan of a few milliseconds.'],
    'lookup API takes seconds and the query planner reads the whole table'],
  ['docs-site', 'Switch the site to a dark theme that follows the operating system setting.',
    ['The colors are now CSS custom properties, with a second set under @media (prefers-color-scheme: dark).', 'A toggle in the header overrides the system choice and remembers it.'],
    'night mode matching the OS appearance preference'],
  ['events', 'Our Kafka consumer lags behind by hours during peak traffic.',
    ['Processing is synchronous per message and commits offsets after every record.', 'Increase the topic to 24 partitions, run more consumer instances, and process and commit in batches of 500.'],
    'message queue reader falls far behind when load is highest'],
  ['infra', 'The TLS certificate expired on the staging domain and browsers show a security warning.',
    ['The certbot renewal timer was removed when the host was rebuilt, so the Let\'s Encrypt certificate was never renewed.', 'I re-enabled the systemd timer and added an alert 14 days before expiry.'],
    'https warning on the test environment because the cert lapsed'],
  ['monorepo', 'We get merge conflicts in package-lock.json every time we rebase.',
    ['Resolving the lockfile by hand is error-prone; take either side and run npm install to regenerate it.', 'npm can also do this automatically with its merge driver (npx npm-merge-driver install).'],
    'dependency lock file always clashes when rebasing branches'],
  ['accounts', 'Emails with password reset links land in the spam folder.',
    ['The sending domain has no SPF record and the messages are not DKIM-signed, so providers distrust them.', 'Add SPF and DKIM records for the mail provider and a DMARC policy, then test with a mail tester.'],
    'account recovery messages go to the junk folder'],
  ['mobile', 'The Android app crashes when the user rotates the screen on the checkout page.',
    ['The activity is recreated on orientation change and the cart reference in the fragment becomes null.', 'Keep the cart in a ViewModel, which survives configuration changes.'],
    'phone app dies when turning the device sideways while paying'],
  ['public-api', 'Rate limit our public API to 100 requests per minute per API key.',
    ['A token bucket per key in Redis: a Lua script refills and takes a token atomically.', 'Requests over the limit get 429 with a Retry-After header.'],
    'throttle callers of the external endpoints per credential'],
  ['gateway', 'Our logs are unreadable; make them structured JSON with a request id on every line.',
    ['pino writes JSON lines; a middleware creates a child logger per request with the X-Request-Id header or a new UUID.', 'Every log call in the handlers goes through req.log so the id is always there.'],
    'machine-parseable log lines carrying a correlation identifier'],
  ['worker', 'Upgrading from Node 18 to Node 22 broke the build: fetch is now global and clashes with node-fetch types.',
    ['TypeScript sees two declarations of fetch: the DOM lib one and @types/node-fetch.', 'Remove node-fetch and its types and use the built-in fetch; set lib to es2023 without dom.'],
    'runtime version bump made compilation fail because of a built-in HTTP function'],
  ['invoices', 'PDF invoices render with missing characters for Polish names like Łukasz or Świętosław.',
    ['The PDF uses the standard Helvetica font, which has no glyphs for ł, ś or ę.', 'Embed a Unicode font such as Noto Sans and register it with pdfkit.'],
    'generated bills drop accented letters in customer names'],
  ['checkout', 'Feature flag cleanup: remove the old one-page checkout experiment code paths.',
    ['The experiment ended in March; the flag checkout_v2 is still evaluated in nine places.', 'I removed the losing variant, the flag checks and the LaunchDarkly flag itself.'],
    'strip out a finished A/B test toggle from the purchase flow'],
];

/** Generated titles and first prompts for distractor sessions: the targets' topic words, none of their problems. */
const TITLE_WORDS = ['websocket', 'backup', 'dashboard', 'database', 'connection', 'dates', 'memory', 'login', 'tests', 'translation', 'export', 'webhook', 'docker', 'index', 'theme', 'consumer', 'certificate', 'merge', 'email', 'mobile', 'rate limit', 'logging', 'node upgrade', 'pdf', 'feature flag'];
const TITLE_FORMS = ['Fix {w} issue', 'Improve {w}', 'Update {w} config', '{w} cleanup', 'Refactor {w} module', 'Add {w} tests', 'Investigate {w}'];

function claudeSession(cwd, id, startMs, lines) {
  const base = { parentUuid: null, isSidechain: false, userType: 'external', cwd, sessionId: id, version: '2.0.14', gitBranch: 'main' };
  let t = startMs;
  const out = [];
  for (const [kind, text] of lines) {
    t += 5000;
    const ts = new Date(t).toISOString();
    if (kind === 'title') out.push({ type: 'summary', summary: text, leafUuid: `${id}-leaf` });
    else if (kind === 'user') out.push({ ...base, type: 'user', uuid: `${id}-${out.length}`, timestamp: ts, message: { role: 'user', content: text } });
    else out.push({ ...base, type: 'assistant', uuid: `${id}-${out.length}`, timestamp: ts, requestId: `req-${out.length}`, message: { id: `msg-${id}-${out.length}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text }], usage: { input_tokens: 10, output_tokens: 50 } } });
  }
  return { text: out.map((o) => JSON.stringify(o)).join('\n') + '\n', lastMs: t };
}

/** Adds the targets and the distractors to a generated history in `out`; returns [{query, sessionId}]. */
export function addRecallSet(out, seed = 11) {
  const r = rng(seed);
  const projects = path.join(out, 'projects');
  const place = (project, id, lines, startMs) => {
    const cwd = path.join(projects, project);
    fs.mkdirSync(cwd, { recursive: true });
    const dir = path.join(out, 'claude', 'projects', cwd.replace(/[/.]/g, '-'));
    fs.mkdirSync(dir, { recursive: true });
    const { text, lastMs } = claudeSession(cwd, id, startMs, lines);
    const file = path.join(dir, `${id}.jsonl`);
    fs.writeFileSync(file, text);
    fs.utimesSync(file, new Date(lastMs), new Date(lastMs));
  };
  const hex = (n) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join('');
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  const queries = [];
  TARGETS.forEach(([project, ask, answer, query], i) => {
    const id = uuid();
    place(project, id, [['user', ask], ...answer.map((a) => ['assistant', a]), ['user', 'Thanks, that works.']], Date.UTC(2025, 2, 1 + i));
    queries.push({ query, sessionId: id, project });
  });
  for (let i = 0; i < 300; i++) {
    const w = TITLE_WORDS[i % TITLE_WORDS.length];
    const title = TITLE_FORMS[Math.floor(r() * TITLE_FORMS.length)].replace('{w}', w);
    place(`distract-${i % 40}`, uuid(), [['title', title], ['user', `${title}.`], ['assistant', `Looking at the ${w} code now.`], ['assistant', 'Done, the change is in place.']], Date.UTC(2025, 3, 1) + i * 3_600_000);
  }
  return queries;
}

async function main() {
  const args = process.argv.slice(2);
  const opt = (n, d) => { const i = args.indexOf(`--${n}`); return i === -1 ? d : args[i + 1]; };
  const sessions = Number(opt('sessions', '3000'));
  const sizeText = opt('size', '300MiB');
  const m = /^(\d+(?:\.\d+)?)\s*(GiB|MiB)?$/i.exec(sizeText);
  const size = Number(m[1]) * (m[2]?.toLowerCase() === 'gib' ? 2 ** 30 : 2 ** 20);
  const seed = Number(opt('seed', '11'));
  const dir = path.resolve(opt('keep', path.join(os.tmpdir(), `mcpgw-recall-${process.pid}`)));
  const t0 = Date.now();
  const saved = path.join(dir, 'recall.json');
  let meta, queries;
  if (args.includes('--keep') && fs.existsSync(saved)) ({ meta, queries } = JSON.parse(fs.readFileSync(saved, 'utf8')));
  else {
    meta = generate({ out: dir, sessions, size, seed, text: 'zipf' });
    queries = addRecallSet(dir, seed);
    fs.writeFileSync(saved, JSON.stringify({ meta, queries }));
  }
  const tuning = opt('tuning', null);
  if (tuning !== null) {
    const set = JSON.parse(fs.readFileSync(path.join(HERE, 'sessions-recall-tuning.json'), 'utf8'))[tuning];
    if (!set) throw new Error(`no tuning set ${tuning} in sessions-recall-tuning.json`);
    queries = queries.map((q) => ({ ...q, query: set[q.project] })).filter((q) => q.query);
  }
  log(`history: ${meta.files} generated + ${TARGETS.length} targets + 300 distractors, ${(meta.bytes / 2 ** 20).toFixed(0)} MiB, in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  const env = { PATH: process.env.PATH, HOME: dir, XDG_CACHE_HOME: path.join(dir, 'cache') };
  for (const s of ['claude', 'codex', 'copilot', 'gemini', 'qwen', 'kimi']) env[`MCPGW_${s.toUpperCase()}_HOME`] = path.join(dir, s);
  for (const [k, v] of Object.entries(process.env)) if (k.startsWith('MCPGW_BENCH_')) env[k] = v;
  const config = path.join(dir, 'mcpgw.json');
  fs.writeFileSync(config, JSON.stringify({ profiles: { default: { bundles: ['sessions'], limits: { requestTimeoutMs: 600000 } } } }));
  const t1 = Date.now();
  const built = spawnSync(process.execPath, [path.join(REPO, 'bin', 'mcpgw.js'), 'sessions', 'index', '--no-progress'], { env, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`index failed: ${built.stderr}`);
  log(`${built.stdout.trim()} (${((Date.now() - t1) / 1000).toFixed(0)} s)`);
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const client = new Client({ name: 'mcpgw-bench-recall', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(REPO, 'bin', 'mcpgw.js'), 'serve', '--config', config], env, stderr: 'pipe' }));
  const ranks = [];
  for (const q of queries) {
    const res = await client.callTool({ name: 'semantic_search', arguments: { query: q.query, limit: 10 } }, { timeout: 600000 });
    if (res.isError) throw new Error(res.content?.[0]?.text);
    const at = res.structuredContent.results.findIndex((x) => x.session_id === q.sessionId);
    ranks.push({ query: q.query, project: q.project, rank: at === -1 ? null : at + 1, complete: res.structuredContent.complete });
  }
  await client.close();
  const top3 = ranks.filter((x) => x.rank !== null && x.rank <= 3).length;
  const top10 = ranks.filter((x) => x.rank !== null).length;
  process.stdout.write(JSON.stringify({ sessions: meta.files + TARGETS.length + 300, queries: ranks.length, top3, top10, ranks }, null, 1) + '\n');
  if (!args.includes('--keep')) fs.rmSync(dir, { recursive: true, force: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main().catch((e) => { process.stderr.write(`${e.stack}\n`); process.exit(1); });
