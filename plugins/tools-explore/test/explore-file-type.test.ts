import { fileTypeOf } from '../src/schemas';
import type { RecordSource } from '../../../src/kernel/contracts';

/** The explorer names files in its own words (file_type), from the kernel's format and root type. */
test('file_type from format and root type: the names explorer users know; a third-party format by its name', () => {
  const of = (format: string, rootType?: RecordSource['rootType']) => fileTypeOf({ format, ...(rootType ? { rootType } : {}) } as RecordSource);
  expect([
    of('jsonl'), of('json-seq'), of('json', 'array'), of('json', 'object'),
    of('json', 'string'), of('json', 'number'), of('json', 'boolean'), of('json', 'null'), of('csv'),
  ]).toEqual(['ndjson', 'json_seq', 'json_array', 'json_object', 'json_value', 'json_value', 'json_value', 'json_value', 'csv']);
});
