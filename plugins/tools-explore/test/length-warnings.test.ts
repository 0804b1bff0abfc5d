/**
 * lengthWarnings: get_record's and get_value_at_path's warning when `length` asked for more than a part holds
 * (previewBytes: maxRecordPreviewBytes, lowered so that a part escaped inside the answer fits maxResultBytes).
 */
import type { ToolContext } from '../../../src/kernel/contracts';
import { DEFAULT_LIMITS } from '../../../src/kernel/config/defaults';
import { lengthWarnings, previewBytes } from '../src/records';

const ctxWith = (limits: Partial<typeof DEFAULT_LIMITS>) => ({ limits: { ...DEFAULT_LIMITS, ...limits } }) as unknown as ToolContext;

test('over maxRecordPreviewBytes: the limit named, its value, the length asked, where the part ends', () => {
  const ctx = ctxWith({ maxRecordPreviewBytes: 4096 });
  expect(lengthWarnings(ctx, 5000, { offset: 10, next_offset: 4106 })).toEqual([{
    code: 'RESOURCE_LIMIT_EXCEEDED',
    message: 'length 5000 is over the 4096 bytes a part holds: this part holds bytes 10–4106; call again with offset 4106 for the rest.',
    limit: { name: 'maxRecordPreviewBytes', limit: 4096, value: 5000 },
  }]);
});

test('lowered by maxResultBytes: the part\'s real size, and why', () => {
  const ctx = ctxWith({ maxRecordPreviewBytes: 16384, maxResultBytes: 12288 });
  expect(previewBytes(ctx)).toBe((12288 - 2048) / 2);
  expect(lengthWarnings(ctx, 6000, { offset: 0, next_offset: 5120 })).toEqual([{
    code: 'RESOURCE_LIMIT_EXCEEDED',
    message: 'length 6000 is over the 5120 bytes a part holds (maxRecordPreviewBytes 16384, lowered so that a part fits maxResultBytes 12288): this part holds bytes 0–5120; call again with offset 5120 for the rest.',
    limit: { name: 'maxRecordPreviewBytes', limit: 5120, value: 6000 },
  }]);
});

test('none when length fits, is not given, or the text ended before the part was full', () => {
  const ctx = ctxWith({ maxRecordPreviewBytes: 4096 });
  expect(lengthWarnings(ctx, 4096, { offset: 0, next_offset: 4096 })).toEqual([]);
  expect(lengthWarnings(ctx, undefined, { offset: 0, next_offset: 4096 })).toEqual([]);
  expect(lengthWarnings(ctx, 9000, { offset: 100 })).toEqual([]);
});
