#!/usr/bin/env node
// bench/gen.mjs — the benchmark's deterministic event-log generator.
//
//   node bench/gen.mjs --format jsonl|json|json-seq (--size 1GiB | --size 50MB | --records N)
//                      [--seed 42] --out FILE [--meta]
//
// The same seed gives the same records, in the same order, in every format, and the same
// bytes on every run and machine (a seeded sfc32 PRNG; no clock, no Math.random, no locale).
//   jsonl     one compact JSON object per line
//   json      one top-level array, pretty-printed with 2-space indentation
//             (the layout of JSON.stringify(records, null, 2) + "\n", except that the deliberate
//             escapes below stay as written and 19-digit integers stay exact)
//   json-seq  RFC 7464: 0x1E + compact JSON + 0x0A per record
//   geojson   one compact GeoJSON FeatureCollection document (a single big document, not records):
//             {"type":"FeatureCollection","name":…,"features":[Feature, …]} (featureStream below)
// --size is the size of the file written (B, KB/MB/GB = 10^n, KiB/MiB/GiB = 2^n); records are
// added while the whole file stays within it. --records N writes exactly N records.
// --meta writes FILE.meta.json with what the benchmark checks answers against (record count,
// failed/needle/slow counts). A summary goes to stderr; nothing else is printed.
//
// The records look like an application's event log (~400 B as JSON Lines):
//   id, ts (ISO-8601, increasing), level, status (active/ok/pending/retrying/done; ~1 in 300
//   "failed"), user {id, name, email, address {city, zip, country}}, tags [0..4 strings],
//   latency_ms (float, exponential, mean 120: ~43% are > 100), bytes (int), score (float),
//   msg (words; ~8% non-ASCII, ~6% with escapes: \" \\ \n \t \/ \u00e9 \u2028),
//   ~1 in 500 "items": [{sku, qty, price}], ~1 in 1000 "trace_id": a 19-digit integer in
//   (2^53, 2^63) written as raw digits, and exactly one record in every block of 100,000
//   (position drawn from the seed) whose msg carries the needle NEEDLE-7f3a. No other text
//   contains "needle" in any letter case.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const NEEDLE = 'NEEDLE-7f3a';
export const GEN_VERSION = 1; // bump when the byte output changes (invalidates cached data)

export function parseSize(text) {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(i?)b?$/i.exec(String(text).trim());
  if (!m) throw new Error(`bad size "${text}" (use e.g. 50MB, 1GiB, 200MiB, 123456)`);
  const exp = { '': 0, k: 1, m: 2, g: 3, t: 4 }[m[2].toLowerCase()];
  return Math.round(Number(m[1]) * (m[3] ? 1024 : 1000) ** exp);
}

// ---------- PRNG: sfc32 seeded through splitmix32 ----------
function splitmix32(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}
export function sfc32(seed) {
  const sm = splitmix32(seed);
  let a = sm(), b = sm(), c = sm(), d = 1;
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

// ---------- vocabulary (all pre-escaped JSON string literals) ----------
const J = (s) => JSON.stringify(s);
const GIVEN = ['Amélie', 'Bruno', 'Chidi', 'Dana', 'Erik', 'Fatima', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Kai',
  'Lucía', 'Marek', 'Nadia', 'Omar', 'Priya', 'Quinn', 'Rafael', 'Saoirse', 'Tariq', 'Ursula', 'Valentina',
  'Wojciech', 'Xu', 'Yasmin', 'Zoltán', 'Björn', 'Çağla', 'Džemal', 'Eun-ji', 'Felipe', 'Gökhan'];
const FAMILY = ['Adams', 'Bauer', 'Castro', 'Dupont', 'Eriksson', 'Ferreira', 'Gómez', 'Haddad', 'Ivanova',
  'Jansen', 'Kobayashi', 'Larsen', 'Müller-Lüdenscheidt', 'Nakamura', 'O\'Neill', 'Park', 'Quispe', 'Rahman',
  'Sánchez', 'Tremblay', 'Ulrich', 'Varga', 'Walsh', 'Xavier', 'Yamamoto', 'Zieliński'];
const ascii = (s) => s.normalize('NFKD').replace(/[^A-Za-z]/g, '').toLowerCase();
const CITIES = [['Lisbon', 'PT', '1100-'], ['Hamburg', 'DE', '20'], ['Leeds', 'GB', 'LS'], ['Kyoto', 'JP', '600-'],
  ['Boston', 'US', '021'], ['Curitiba', 'BR', '80'], ['Genève', 'CH', '12'], ['Sevilla', 'ES', '410'],
  ['Milano', 'IT', '201'], ['Utrecht', 'NL', '35'], ['Québec', 'CA', 'G1'], ['Gdańsk', 'PL', '80-'],
  ['Nagoya', 'JP', '450-'], ['Bordeaux', 'FR', '330'], ['Perth', 'AU', '60'], ['Vancouver', 'CA', 'V6'],
  ['Denver', 'US', '802'], ['Porto', 'PT', '4000-'], ['Busan', 'KR', '48'], ['Pune', 'IN', '411'],
  ['Tallinn', 'EE', '10'], ['Cork', 'IE', 'T12'], ['Graz', 'AT', '80'], ['Bergen', 'NO', '50'],
  ['İzmir', 'TR', '35'], ['Reykjavík', 'IS', '10']];
const DOMAINS = ['example.com', 'example.net', 'mail.example.org', 'users.example', 'corp.example.co.uk'];
const TAGS = ['billing', 'signup', 'mobile', 'desktop', 'api', 'webhook', 'retry', 'timeout', 'cache', 'cold',
  'warm', 'priority', 'bulk', 'nightly', 'canary', 'eu-west', 'us-east', 'ap-south', 'android', 'ios',
  'feature-x', 'ab-test', 'internal', 'partner'];
const LEVELS = ['info', 'info', 'info', 'info', 'info', 'info', 'debug', 'debug', 'warn', 'error'];
const STATUSES = ['active', 'ok', 'ok', 'pending', 'retrying', 'done'];
const VERBS = ['fetched', 'stored', 'rejected', 'queued', 'processed', 'scheduled', 'validated', 'expired',
  'refreshed', 'merged', 'indexed', 'exported', 'imported', 'archived', 'throttled', 'resolved'];
const NOUNS = ['order', 'invoice', 'session', 'token', 'profile', 'report', 'snapshot', 'upload', 'payment',
  'shipment', 'ticket', 'message', 'cart', 'subscription', 'webhook', 'batch', 'thumbnail', 'document',
  'refund', 'coupon', 'address', 'catalog', 'account', 'device'];
const FILLER = ['after', 'before', 'while', 'for', 'from', 'into', 'with', 'without', 'via', 'on', 'the',
  'a', 'its', 'upstream', 'downstream', 'primary', 'replica', 'worker', 'shard', 'region', 'tenant', 'client',
  'request', 'response', 'cache', 'queue', 'backend', 'pool', 'limit', 'window', 'retry', 'deadline'];
// non-ASCII as UTF-8 (raw in the JSON text)
const UNICODE = ['naïve façade', 'crème brûlée', '東京都の注文', 'Grüße aus Köln', 'Москва', 'Αθήνα', 'ĉu vi',
  '😀 great', '✔ done', '🚚📦', '⚠ degraded', 'Ünïcödé', '€ 19,90', '½ done', 'こんにちは', '한국어 로그'];
// escapes as they appear in the JSON text (these are already-escaped JSON fragments)
const ESCAPES = ['said \\"hello\\" twice', 'path C:\\\\tmp\\\\out.log', 'line one\\nline two', 'col1\\tcol2\\tcol3',
  'url https:\\/\\/example.com\\/x', 'caf\\u00e9 au lait', 'sep\\u2028here', 'quote \\"\\\\\\" nested'];
const GIVEN_Q = GIVEN.map((g) => FAMILY.map((f) => J(`${g} ${f}`)));
const GIVEN_A = GIVEN.map(ascii);
const FAMILY_A = FAMILY.map(ascii);
const CITY_Q = CITIES.map((c) => J(c[0]));
const TAG_Q = TAGS.map(J);
const LEVEL_Q = LEVELS.map(J);
const STATUS_Q = STATUSES.map(J);
const PAD4 = ['', '000', '00', '0'];

// ---------- the record stream ----------
// Returns next() → a record as an object of JSON value texts (cheap to lay out compact or pretty).
export function recordStream(seed) {
  const rnd = sfc32(seed);
  const rint = (n) => Math.floor(rnd() * n);
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  let id = 0;
  let t = Date.UTC(2025, 2, 1, 6, 0, 0);
  let secKey = -1, secText = '';
  let block = -1, needleAt = -1;

  function iso(ms) {
    const s = Math.floor(ms / 1000);
    if (s !== secKey) { secKey = s; secText = new Date(s * 1000).toISOString().slice(0, 20); }
    const f = ms - s * 1000;
    return secText + (f < 10 ? '00' : f < 100 ? '0' : '') + f + 'Z';
  }
  function words(n) {
    let s = pick(FILLER);
    for (let i = 1; i < n; i++) s += ' ' + FILLER[rint(FILLER.length)];
    return s;
  }
  function message(needle) {
    let m = `${pick(NOUNS)} ${pick(VERBS)} ${words(5 + rint(16))}`;
    const x = rnd();
    if (x < 0.08) m += ' — ' + pick(UNICODE);
    else if (x < 0.14) m += ' ' + pick(ESCAPES);
    else if (x < 0.34) m += ` (${pick(NOUNS)}#${rint(100000)} in ${rint(5000)}ms)`;
    if (needle) m += ` [marker ${NEEDLE} seen in payload]`;
    return '"' + m + '"';
  }

  return function next() {
    const b = Math.floor(id / 100000);
    if (b !== block) { // the needle's place in this block comes from its own stream: stable per seed
      block = b;
      const h = sfc32((seed ^ Math.imul(b + 1, 0x27d4eb2d)) >>> 0);
      needleAt = Math.floor(h() * 100000);
    }
    t += 1 + rint(240);
    const gi = rint(GIVEN.length), fi = rint(FAMILY.length), ci = rint(CITIES.length);
    const failed = rnd() < 1 / 300;
    const rec = {
      id,
      ts: iso(t),
      level: LEVEL_Q[rint(LEVELS.length)],
      status: failed ? '"failed"' : STATUS_Q[rint(STATUSES.length)],
      failed,
      uid: 1000 + rint(900000),
      name: GIVEN_Q[gi][fi],
      email: `"${GIVEN_A[gi]}.${FAMILY_A[fi]}${rint(1000)}@${DOMAINS[rint(DOMAINS.length)]}"`,
      city: CITY_Q[ci],
      zip: '',
      country: CITIES[ci][1],
      tags: '',
      latency: 0,
      bytes: rint(5000000),
      score: 0,
      msg: '',
      items: null,
      trace: null,
      needle: id % 100000 === needleAt,
    };
    const z = rint(10000);
    rec.zip = `"${CITIES[ci][2]}${PAD4[String(z).length] ?? ''}${z}"`;
    const nt = rint(5);
    if (nt) {
      const tg = new Array(nt);
      for (let i = 0; i < nt; i++) tg[i] = TAG_Q[rint(TAGS.length)];
      rec.tags = tg;
    } else rec.tags = [];
    rec.latency = Math.round(-Math.log(1 - rnd()) * 120000) / 1000;
    rec.score = Math.round(rnd() * 1e6) / 1e4;
    rec.msg = message(rec.needle);
    if (rnd() < 1 / 500) {
      const n = 1 + rint(4);
      rec.items = [];
      for (let i = 0; i < n; i++) {
        rec.items.push({ sku: `"SKU-${100000 + rint(900000)}"`, qty: 1 + rint(12), price: Math.round(rnd() * 99999) / 100 });
      }
    }
    if (rnd() < 1 / 1000) { // 19 digits, 1e18..8.99e18: above 2^53, below 2^63 (DuckDB's BIGINT holds it)
      let d = String(1 + rint(8));
      for (let i = 0; i < 18; i++) d += rint(10);
      rec.trace = d;
    }
    id++;
    return rec;
  };
}

export function compact(r) {
  let s = `{"id":${r.id},"ts":"${r.ts}","level":${r.level},"status":${r.status},"user":{"id":${r.uid},"name":${r.name},"email":${r.email},"address":{"city":${r.city},"zip":${r.zip},"country":"${r.country}"}},"tags":[${r.tags.join(',')}],"latency_ms":${r.latency},"bytes":${r.bytes},"score":${r.score},"msg":${r.msg}`;
  if (r.items) {
    s += ',"items":[';
    for (let i = 0; i < r.items.length; i++) {
      const it = r.items[i];
      s += `${i ? ',' : ''}{"sku":${it.sku},"qty":${it.qty},"price":${it.price}}`;
    }
    s += ']';
  }
  if (r.trace) s += `,"trace_id":${r.trace}`;
  return s + '}';
}

// one element of a top-level array, as JSON.stringify(array, null, 2) lays it out (indent 2)
export function pretty(r) {
  let s = `  {\n    "id": ${r.id},\n    "ts": "${r.ts}",\n    "level": ${r.level},\n    "status": ${r.status},\n    "user": {\n      "id": ${r.uid},\n      "name": ${r.name},\n      "email": ${r.email},\n      "address": {\n        "city": ${r.city},\n        "zip": ${r.zip},\n        "country": "${r.country}"\n      }\n    },\n    "tags": `;
  s += r.tags.length ? `[\n      ${r.tags.join(',\n      ')}\n    ]` : '[]';
  s += `,\n    "latency_ms": ${r.latency},\n    "bytes": ${r.bytes},\n    "score": ${r.score},\n    "msg": ${r.msg}`;
  if (r.items) {
    s += ',\n    "items": [';
    for (let i = 0; i < r.items.length; i++) {
      const it = r.items[i];
      s += `${i ? ',' : ''}\n      {\n        "sku": ${it.sku},\n        "qty": ${it.qty},\n        "price": ${it.price}\n      }`;
    }
    s += '\n    ]';
  }
  if (r.trace) s += `,\n    "trace_id": ${r.trace}`;
  return s + '\n  }';
}

// ---------- geojson: one FeatureCollection document ----------
const KINDS = ['city', 'town', 'village', 'hamlet', 'suburb', 'island'];
// A GeoJSON Feature (~1 KB compact): id, properties {name, kind, pop, admin}, a Polygon ring of 8–40 points.
// pop is log-uniform over 10 .. 10^7 (so ~1 in 6 is > 10^6).
export function featureStream(seed) {
  const rnd = sfc32(seed ^ 0x5eed6e0);
  let i = 0;
  return function next() {
    const id = i++;
    const pop = Math.floor(10 ** (1 + rnd() * 6));
    const [city, cc] = CITIES[Math.floor(rnd() * CITIES.length)];
    const lon = rnd() * 360 - 180, lat = rnd() * 170 - 85;
    const n = 8 + Math.floor(rnd() * 33);
    const ring = [];
    for (let k = 0; k < n; k++) {
      const a = (k / n) * 2 * Math.PI, r = 0.01 + rnd() * 0.05;
      ring.push(`[${Math.round((lon + r * Math.cos(a)) * 1e6) / 1e6},${Math.round((lat + r * Math.sin(a)) * 1e6) / 1e6}]`);
    }
    ring.push(ring[0]);
    const text = `{"type":"Feature","id":${id},"properties":{"name":${J(`${city} ${id}`)},"kind":${J(KINDS[Math.floor(rnd() * KINDS.length)])},` +
      `"pop":${pop},"admin":${J(cc)}},"geometry":{"type":"Polygon","coordinates":[[${ring.join(',')}]]}}`;
    return { text, pop };
  };
}

/** The FeatureCollection document of `size` bytes (or `records` features); meta counts features and pop > 10^6. */
function generateGeojson({ seed, size, records, out }) {
  const limitBytes = size ?? Infinity;
  const limitRecords = records ?? Infinity;
  const CHUNK = 4 << 20;
  const buf = Buffer.allocUnsafe(CHUNK + (1 << 20) + 64).subarray(64);
  const fd = fs.openSync(out, 'w');
  let used = 0, total = 0;
  const flush = () => { let o = 0; while (o < used) o += fs.writeSync(fd, buf, o, used - o); used = 0; };
  const head = '{"type":"FeatureCollection","name":"bench-places","features":[';
  const tail = ']}\n';
  used += buf.write(head, used, 'latin1'); total += head.length;
  const next = featureStream(seed);
  const meta = { generator: 'mcpgw bench/gen.mjs', gen_version: GEN_VERSION, format: 'geojson', seed, records: 0, bytes: 0, big_pop: 0 };
  while (meta.records < limitRecords) {
    const f = next();
    const text = (meta.records ? ',' : '') + f.text;
    const w = buf.write(text, used, 'utf8');
    if (total + w + tail.length > limitBytes) break;
    used += w; total += w;
    meta.records++;
    if (f.pop > 1e6) meta.big_pop++;
    if (used >= CHUNK) flush();
  }
  used += buf.write(tail, used, 'latin1'); total += tail.length;
  flush();
  fs.closeSync(fd);
  meta.bytes = total;
  return meta;
}

// Writes one file; returns its meta (counts the benchmark checks answers against).
export function generate({ format, seed = 42, size = null, records = null, out }) {
  if (format === 'geojson') {
    if ((size == null) === (records == null)) throw new Error('give exactly one of size / records');
    return generateGeojson({ seed, size, records, out });
  }
  if (!['jsonl', 'json', 'json-seq'].includes(format)) throw new Error(`bad format ${format}`);
  if ((size == null) === (records == null)) throw new Error('give exactly one of size / records');
  const limitBytes = size ?? Infinity;
  const limitRecords = records ?? Infinity;
  const CHUNK = 4 << 20;
  const SLACK = 1 << 20; // far above any one record
  // offset by 64 bytes: page-aligned buffers copy slowly on this kind of VM (docs/decisions.md "Unaligned read buffers")
  const buf = Buffer.allocUnsafe(CHUNK + SLACK + 64).subarray(64);
  const fd = fs.openSync(out, 'w');
  let used = 0, total = 0;
  const flush = () => {
    let o = 0;
    while (o < used) o += fs.writeSync(fd, buf, o, used - o);
    used = 0;
  };
  const isArray = format === 'json';
  const tail = isArray ? 3 : 0; // "\n]\n" (or "]\n" for an empty array)
  const next = recordStream(seed);
  const meta = { generator: 'mcpgw bench/gen.mjs', gen_version: GEN_VERSION, format, seed, records: 0, bytes: 0,
    failed: 0, needles: 0, big_ints: 0, slow: 0, with_items: 0 };
  if (isArray) { used += buf.write('[', used, 'latin1'); total++; }
  while (meta.records < limitRecords) {
    const r = next();
    const text = isArray ? (meta.records ? ',\n' : '\n') + pretty(r)
      : format === 'json-seq' ? '\x1e' + compact(r) + '\n' : compact(r) + '\n';
    const w = buf.write(text, used, 'utf8');
    if (total + w + tail > limitBytes) break; // not committed: `used` stays
    used += w; total += w;
    meta.records++;
    if (r.failed) meta.failed++;
    if (r.needle) meta.needles++;
    if (r.trace) meta.big_ints++;
    if (r.latency > 100) meta.slow++;
    if (r.items) meta.with_items++;
    if (used >= CHUNK) flush();
  }
  if (isArray) { const w = buf.write(meta.records ? '\n]\n' : ']\n', used, 'latin1'); used += w; total += w; }
  flush();
  fs.closeSync(fd);
  meta.bytes = total;
  return meta;
}

// ---------- CLI ----------
function usage(code) {
  console.error('usage: node bench/gen.mjs --format jsonl|json|json-seq|geojson (--size 1GiB | --records N) [--seed 42] --out FILE [--meta]');
  process.exit(code);
}
function main(argv) {
  const a = { format: 'jsonl', seed: 42, size: null, records: null, out: null, meta: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i], v = argv[i + 1];
    switch (k) {
      case '--format': a.format = v === 'jsonseq' ? 'json-seq' : v; i++; break;
      case '--size': a.size = parseSize(v); i++; break;
      case '--records': a.records = Number(v); i++; break;
      case '--seed': a.seed = Number(v); i++; break;
      case '--out': a.out = v; i++; break;
      case '--meta': a.meta = true; break;
      case '-h': case '--help': usage(0); break;
      default: console.error(`gen: unknown argument ${k}`); usage(2);
    }
  }
  if (!a.out || !['jsonl', 'json', 'json-seq', 'geojson'].includes(a.format)) usage(2);
  if ((a.size == null) === (a.records == null)) { console.error('gen: give exactly one of --size / --records'); usage(2); }
  if (a.records != null && !(Number.isInteger(a.records) && a.records >= 0)) { console.error('gen: bad --records'); usage(2); }
  if (!Number.isInteger(a.seed) || a.seed < 0 || a.seed > 0xffffffff) { console.error('gen: --seed is an integer 0..2^32-1'); usage(2); }
  const t0 = performance.now();
  const meta = generate(a);
  const s = (performance.now() - t0) / 1000;
  if (a.meta) fs.writeFileSync(a.out + '.meta.json', JSON.stringify(meta, null, 2) + '\n');
  console.error(`gen: ${meta.format} seed=${meta.seed} records=${meta.records} bytes=${meta.bytes} ` +
    `(${(meta.bytes / Math.max(meta.records, 1)).toFixed(0)} B/record) ` +
    (meta.format === 'geojson' ? `big_pop=${meta.big_pop}` : `failed=${meta.failed} needles=${meta.needles} big_ints=${meta.big_ints} slow=${meta.slow}`) +
    ` in ${s.toFixed(2)} s (${(meta.bytes / s / 1e6).toFixed(0)} MB/s) -> ${path.resolve(a.out)}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main(process.argv.slice(2));
