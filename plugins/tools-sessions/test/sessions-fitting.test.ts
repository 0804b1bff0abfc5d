/**
 * The sessions tools' page fitting (plugins/tools-sessions/src/tools/shared.ts): the longest prefix of items whose
 * JSON fits the budget, but never none — a first item that alone passes it is kept, so that following next_offset
 * always advances.
 */
import { fitting } from '../src/tools/shared';

const item = (n: number) => ({ t: 'x'.repeat(n) });
/** Bytes an item adds to the page: its JSON and a comma. */
const cost = (n: number) => JSON.stringify(item(n)).length + 1;

test('keeps the items that fit, in order', () => {
  const items = [item(10), item(10), item(10)];
  expect(fitting(items, 2 + 2 * cost(10))).toBe(2);
  expect(fitting(items, 2 + 3 * cost(10))).toBe(3);
  expect(fitting([], 0)).toBe(0);
});

test('a first item that alone passes the budget is kept (one item), never an empty page', () => {
  expect(fitting([item(5000), item(1)], 1024)).toBe(1);
  expect(fitting([item(5000)], 1024)).toBe(1);
});
