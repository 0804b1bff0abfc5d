import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import json from '../../plugins/format-json/src/index';
import jsonl from '../../plugins/format-jsonl/src/index';
import jsonseq from '../../plugins/format-jsonseq/src/index';
import type { Format } from '../../src/kernel/contracts';
import { fileTypeOf } from '../../plugins/tools-explore/src/schemas';
import { fileService, formatsOf } from '../helpers/formats';
import { sharedPath, skipMissing } from '../helpers/shared';

/**
 * The same records written as a pretty JSON array, JSON Lines and a JSON text sequence by
 * the shared test data's bench/gen-data.mjs (docs/architecture.md "Tests find shared data"; same seed: same records) open to equal counts and equal records:
 * equal exact values (raw 19-digit trace ids, escapes, non-ASCII) and equal record text once
 * whitespace outside strings is ignored.
 */
const gen = sharedPath('bench/gen-data.mjs');
const N = 6000;
let dir: string;
let formats: Format[];

beforeAll(async () => {
  formats = [...(await formatsOf(json)), ...(await formatsOf(jsonl)), ...(await formatsOf(jsonseq))];
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-cross-'));
  if (!gen) return;
  for (const [format, ext] of [['json', 'json'], ['jsonl', 'jsonl'], ['jsonseq', 'json-seq']]) {
    execFileSync(process.execPath, [gen, '--format', format!, '--records', String(N), '--seed', '7', '--out', path.join(dir, `data.${ext}`)], { stdio: 'ignore' });
  }
}, 60_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

if (!gen) skipMissing('bench/gen-data.mjs');
(gen ? test : () => undefined)('pretty .json, .jsonl and .json-seq: equal counts, equal records, every value exact', async () => {
  const files = fileService(dir, formats);
  const opened = await Promise.all(['data.json', 'data.jsonl', 'data.json-seq'].map((f) => files.open(f)));
  expect(opened.map((o) => [o.source.format, fileTypeOf(o.source), o.source.count])).toEqual([
    ['json', 'json_array', N], ['jsonl', 'ndjson', N], ['json-seq', 'json_seq', N],
  ]);
  const texts = await Promise.all(opened.map(async (o) => {
    const out: string[] = [];
    for await (const b of o.source.batches()) for (let k = 0; k < b.count; k++) out.push(JSON.stringify(b.value(k)));
    return out;
  }));
  expect(texts[0]).toEqual(texts[1]);
  expect(texts[2]).toEqual(texts[1]);
  // exactness: the raw trace ids survive (gen-data writes ~1 in 1000 as 19-digit integers)
  const raw = fs.readFileSync(path.join(dir, 'data.jsonl'), 'utf8');
  const ids = [...raw.matchAll(/"trace_id":(\d+)/g)].map((m) => m[1]!);
  expect(ids.length).toBeGreaterThan(0);
  const joined = texts[0]!.join('\n');
  for (const id of ids) expect(joined).toContain(`"trace_id":${id}`);
  // record text equals the JSON Lines line once whitespace outside strings is gone
  const lines = raw.split('\n');
  for (const i of [0, 1, 999, N - 1]) expect(JSON.stringify(JSON.parse(opened[0]!.source.text(i)))).toBe(JSON.stringify(JSON.parse(lines[i]!)));
  for (const i of [0, 1, 999, N - 1]) expect(opened[2]!.source.text(i)).toBe(lines[i]);
  for (const o of opened) o.close();
}, 60_000);
