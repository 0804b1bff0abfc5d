// Regenerates examples/events.jsonl: 3,000 synthetic service events (seeded, byte-identical on every run).
// Usage: node examples/generate-events.mjs [count] > examples/events.jsonl
let seed = 20261130;
function rand() {
  // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (a) => a[Math.floor(rand() * a.length)];
const services = ['checkout', 'search', 'auth', 'billing', 'inventory'];
const cities = ['Lisbon', 'Zürich', 'São Paulo', 'Kraków', 'Osaka', 'Austin', 'Nairobi'];
const names = ['Alice', 'Bob', 'Chloé', 'Dmitri', 'Eun-ji', 'Farah', 'Gustavo', 'Hiroshi'];
const tagsPool = ['mobile', 'web', 'beta', 'eu', 'us', 'retry', 'cache-miss'];
const count = Number(process.argv[2] ?? 3000);
const start = Date.UTC(2026, 10, 1, 0, 0, 0);
const out = [];
for (let i = 0; i < count; i++) {
  const failed = rand() < 1 / 30;
  const status = failed ? 'failed' : pick(['ok', 'ok', 'ok', 'ok', 'pending', 'retried']);
  const rec = {
    id: i + 1,
    ts: new Date(start + i * 1731).toISOString(),
    service: pick(services),
    status,
    latency_ms: Math.round(rand() * 40000) / 100,
    user: { id: `u-${1000 + Math.floor(rand() * 500)}`, name: pick(names), address: { city: pick(cities), zip: String(10000 + Math.floor(rand() * 89999)) } },
    tags: Array.from({ length: Math.floor(rand() * 4) }, () => pick(tagsPool)),
  };
  if (failed) rec.error = { code: pick(['TIMEOUT', 'UPSTREAM_502', 'VALIDATION']), message: pick(['upstream timed out after 30s', 'bad gateway', 'field "qty" must be > 0']) };
  let line = JSON.stringify(rec);
  if (i % 500 === 250) line = line.replace(/"id":\d+/, `"id":${i + 1},"trace_id":${9007199254740993n + BigInt(i)}`);
  out.push(line);
}
process.stdout.write(out.join('\n') + '\n');
