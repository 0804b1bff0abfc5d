import { z } from 'zod';
import { inputJsonSchema, outputJsonSchema } from '../../src/kernel/server/schemas';

describe('advertised input schemas', () => {
  test('bounds that add nothing and a flag\'s default false are left out; types, enums, other defaults, descriptions and other bounds stay', () => {
    const input = z.object({
      path: z.string().min(1).max(4096).describe('Relative to the root'),
      index: z.number().int().min(0),
      count: z.number().int().min(1).max(64).default(5),
      fields: z.array(z.string().max(100)).min(1).max(100).optional(),
      mode: z.enum(['a', 'b']).optional(),
      flag: z.boolean().default(false),
      on: z.boolean().default(true),
    });
    expect(inputJsonSchema(input)).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Relative to the root' },
        index: { type: 'integer' },
        count: { default: 5, type: 'integer', minimum: 1, maximum: 64 },
        fields: { type: 'array', items: { type: 'string' } },
        mode: { type: 'string', enum: ['a', 'b'] },
        flag: { type: 'boolean' },
        on: { default: true, type: 'boolean' },
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
  test('the required members by name, or the error result with its code and message', () => {
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
      anyOf: [
        { required: ['n', 's', 'maybe', 'either', 'kind', 'list', 'anything'] },
        { required: ['error'], properties: { error: { required: ['code', 'message'] } } },
      ],
    });
    // no members at all: any object passes the first branch
    expect(outputJsonSchema(z.object({ optional: z.string().optional() }))).toEqual({
      type: 'object',
      anyOf: [{ required: [] }, { required: ['error'], properties: { error: { required: ['code', 'message'] } } }],
    });
  });
});
