import { z } from 'zod';
import { inputJsonSchema, outputJsonSchema } from '../../src/kernel/server/schemas';

describe('advertised input schemas', () => {
  test('bounds that add nothing are left out; types, enums, defaults, descriptions and other bounds stay', () => {
    const input = z.object({
      path: z.string().min(1).max(4096).describe('Relative to the root'),
      index: z.number().int().min(0),
      count: z.number().int().min(1).max(64).default(5),
      fields: z.array(z.string().max(100)).min(1).max(100).optional(),
      mode: z.enum(['a', 'b']).optional(),
    });
    expect(inputJsonSchema(input)).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Relative to the root' },
        index: { type: 'integer' },
        count: { default: 5, type: 'integer', minimum: 1, maximum: 64 },
        fields: { type: 'array', items: { type: 'string' } },
        mode: { type: 'string', enum: ['a', 'b'] },
      },
      required: ['path', 'index'],
    });
  });

  test('a member named like a keyword is a member, not a keyword', () => {
    const s = inputJsonSchema(z.object({ minimum: z.number().int().min(0), maxLength: z.string() })) as any;
    expect(Object.keys(s.properties)).toEqual(['minimum', 'maxLength']);
    expect(s.properties.minimum).toEqual({ type: 'integer' });
  });
});

describe('advertised output schemas', () => {
  test('the required members with their JSON types, the error result once under $defs', () => {
    const output = z.object({
      n: z.number().int(),
      s: z.string().describe('said in the docs'),
      maybe: z.string().nullable(),
      either: z.union([z.string(), z.number()]),
      kind: z.enum(['x', 'y']),
      list: z.array(z.object({ a: z.string() })),
      anything: z.unknown(),
      optional: z.string().optional(),
    });
    expect(outputJsonSchema(output)).toEqual({
      type: 'object',
      properties: {
        n: { type: 'integer' },
        s: { type: 'string' },
        maybe: { type: ['string', 'null'] },
        either: { type: ['string', 'number'] },
        kind: { type: 'string' },
        list: { type: 'array' },
        anything: {},
      },
      anyOf: [{ required: ['n', 's', 'maybe', 'either', 'kind', 'list', 'anything'] }, { $ref: '#/$defs/error' }],
      $defs: { error: { required: ['error'], properties: { error: { required: ['code', 'message'] } } } },
    });
  });
});
