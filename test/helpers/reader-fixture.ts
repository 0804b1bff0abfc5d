import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The reference product's example: orders with ids 101…105. */
export const ORDERS = [
  '{"id":101,"item":"pen","qty":2}',
  '{"id":102,"item":"pad","qty":1}',
  '{"id":103,"item":"clip","qty":50}',
  '{"id":104,"item":"tape","qty":3}',
  '{"id":105,"item":"ink","qty":4}',
].join('\n') + '\n';


export interface ReaderDir {
  /** The served root. */
  root: string;
  /** The config file to pass with --config. */
  config: string;
  remove(): void;
}

/** A temporary folder with `data/` holding `files` and a JSON config offering the reader bundle (unless `config` says otherwise). */
export function makeReaderDir(files: Record<string, string | Buffer>, config: Record<string, unknown> = {}): ReaderDir {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-reader-'));
  const root = path.join(base, 'data');
  fs.mkdirSync(root);
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(root, name), content);
  const file = path.join(base, '.mcpgwrc.json');
  const profiles = config.profiles ?? { default: { bundles: ['reader'] } };
  fs.writeFileSync(file, JSON.stringify({ root: './data', profile: 'default', ...config, profiles }));
  return { root, config: file, remove: () => fs.rmSync(base, { recursive: true, force: true }) };
}
