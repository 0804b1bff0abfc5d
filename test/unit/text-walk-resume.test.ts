import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import json from '../../plugins/format-json/src/index';
import { recordHits } from '../../plugins/tools-explore/src/search/nodes';
import { TextMatcher } from '../../plugins/tools-explore/src/search/text-matcher';
import { fileService, formatsOf } from '../helpers/formats';

test('resume', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x-'));
  const doc: any = {};
  for (let i = 0; i < 40; i++) doc['k' + i] = { deprecated: i % 3 === 0, sub: Object.fromEntries(Array.from({ length: 30 }, (_, j) => ['deprecated' + j, { d: j % 2 ? 'deprecated' : 'x', a: [1, 'deprecated'] }])) };
  fs.writeFileSync(path.join(dir, 'd.json'), JSON.stringify(doc));
  const f = await fileService(dir, await formatsOf(json)).open('d.json');
  const m = new TextMatcher('deprecated', false);
  const all = [...recordHits(f.source, 0, m as any, null, () => false, 512)].filter((e) => e.kind === 'hit').map((e: any) => e.match_path);
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
