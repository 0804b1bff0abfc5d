/**
 * The explorer's text search walks a big document through lazy nodes and stops between members when asked
 * (`expired`): at the deadline, after which the next page walks on from where it stopped (a pause for the event loop
 * keeps the walk instead: text-walk-linear.test.ts). Stopped at every chance (or every 2nd, 3rd, 7th), the resumed walks find the hits of one walk, each once,
 * and each resumed walk gets past one member at least (stopped at every chance, it still ends).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import json from '../../format-json/src/index';
import { recordHits } from '../src/search/nodes';
import { TextMatcher } from '../src/search/text-matcher';
import { fileService, formatsOf } from '../../../test/helpers/formats';

test('a walk stopped and resumed any number of times finds the hits of one walk, once each', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x-'));
  const doc: any = {};
  for (let i = 0; i < 40; i++) doc['k' + i] = { deprecated: i % 3 === 0, sub: Object.fromEntries(Array.from({ length: 30 }, (_, j) => ['deprecated' + j, { d: j % 2 ? 'deprecated' : 'x', a: [1, 'deprecated'] }])) };
  fs.writeFileSync(path.join(dir, 'd.json'), JSON.stringify(doc));
  const f = await fileService(dir, await formatsOf(json)).open('d.json');
  const m = new TextMatcher('deprecated', false);
  const all = [...recordHits(f.source, 0, m as any, null, () => false, 512)].filter((e) => e.kind === 'hit').map((e: any) => e.match_path);
  expect(all.length).toBeGreaterThan(1000);
  for (const every of [1, 2, 3, 7]) {
    const got: string[] = [];
    let at: number[] | null = null;
    let n = 0;
    for (let walks = 0; walks < 100000; walks++) {
      let stop: number[] | null = null;
      for (const e of recordHits(f.source, 0, m as any, at, () => ++n % every === 0, 512)) {
        if (e.kind === 'stop') { stop = e.at; break; }
        if (e.kind === 'hit') got.push(e.match_path);
      }
      if (!stop) break;
      at = stop;
    }
    expect(got).toEqual(all);
  }
  f.close();
});
