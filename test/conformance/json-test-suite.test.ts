import * as fs from 'node:fs';
import json from '../../plugins/format-json/src/index';
import type { Format } from '../../src/kernel/contracts';
import { fileService, formatsOf } from '../helpers/formats';
import { sharedPath, skipMissing } from '../helpers/shared';

/**
 * JSONTestSuite (nst/JSONTestSuite test_parsing, from the shared test data: docs/architecture.md
 * "Tests find shared data"): every file
 * opened as a single-value JSON file (format "json"). `y_`: opens and every record reads;
 * `n_`: rejected (open or a record read is SYNTAX_ERROR or RESOURCE_LIMIT_EXCEEDED); `i_`: the
 * decisions documented in docs/formats.md, asserted here so the document stays true.
 */
const dir = process.env.MCPGW_CONFORMANCE_DIR
  ? `${process.env.MCPGW_CONFORMANCE_DIR}/JSONTestSuite/test_parsing`
  : sharedPath('conformance/JSONTestSuite/test_parsing');

/** i_ files that are accepted (read without error); every other i_ file is rejected. See docs/formats.md. */
export const I_ACCEPTED = new Set([
  'i_number_double_huge_neg_exp.json',
  'i_number_huge_exp.json',
  'i_number_neg_int_huge_exp.json',
  'i_number_pos_double_huge_exp.json',
  'i_number_real_neg_overflow.json',
  'i_number_real_pos_overflow.json',
  'i_number_real_underflow.json',
  'i_number_too_big_neg_int.json',
  'i_number_too_big_pos_int.json',
  'i_number_very_big_negative_int.json',
  'i_object_key_lone_2nd_surrogate.json',
  'i_string_1st_surrogate_but_2nd_missing.json',
  'i_string_1st_valid_surrogate_2nd_invalid.json',
  'i_string_incomplete_surrogate_and_escape_valid.json',
  'i_string_incomplete_surrogate_pair.json',
  'i_string_incomplete_surrogates_escape_valid.json',
  'i_string_invalid_lonely_surrogate.json',
  'i_string_invalid_surrogate.json',
  'i_string_inverted_surrogates_U+1D11E.json',
  'i_string_lone_second_surrogate.json',
  'i_structure_500_nested_arrays.json',
  'i_structure_UTF-8_BOM_empty_object.json',
]);

type Outcome = { ok: true; values: unknown[] } | { ok: false; code: string; message: string };

let formats: Format[];
beforeAll(async () => {
  formats = await formatsOf(json);
});

async function run(name: string): Promise<Outcome> {
  let opened;
  try {
    opened = await fileService(dir!, formats).open(name, { format: 'json' });
  } catch (e) {
    return { ok: false, code: (e as { code: string }).code, message: (e as Error).message };
  }
  try {
    const out: unknown[] = [];
    for (let i = 0; i < opened.source.count; i++) out.push(opened.source.value(i));
    return { ok: true, values: out };
  } catch (e) {
    return { ok: false, code: (e as { code: string }).code, message: (e as Error).message };
  } finally {
    opened.close();
  }
}

const files = dir ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort() : [];
const REJECT_CODES = ['SYNTAX_ERROR', 'RESOURCE_LIMIT_EXCEEDED'];

if (!dir) skipMissing('conformance/JSONTestSuite/test_parsing');
(dir ? describe : () => undefined)('JSONTestSuite', () => {
  test('the suite is complete: 95 y_, 188 n_, 35 i_', () => {
    expect(files.filter((f) => f.startsWith('y_'))).toHaveLength(95);
    expect(files.filter((f) => f.startsWith('n_'))).toHaveLength(188);
    expect(files.filter((f) => f.startsWith('i_'))).toHaveLength(35);
  });

  test.each(files.filter((f) => f.startsWith('y_')))('accepts %s', async (name) => {
    const r = await run(name);
    expect(r).toMatchObject({ ok: true });
    // every value handed out is well-formed Unicode and round-trips through JSON text
    const text = JSON.stringify((r as { values: unknown[] }).values);
    expect(text.isWellFormed()).toBe(true);
  });

  test.each(files.filter((f) => f.startsWith('n_')))('rejects %s', async (name) => {
    const r = await run(name);
    expect(r.ok).toBe(false);
    expect(REJECT_CODES).toContain((r as { code: string }).code);
  });

  test.each(files.filter((f) => f.startsWith('i_')))('decides %s as documented', async (name) => {
    const r = await run(name);
    expect(r.ok).toBe(I_ACCEPTED.has(name));
    if (r.ok) expect(JSON.stringify(r.values).isWellFormed()).toBe(true);
    // UTF-16 text is not read as UTF-8: UNSUPPORTED_FORMAT with a hint to convert it (docs/formats.md "Detection").
    else if (/utf-?16/i.test(name)) expect([r.code, r.message]).toEqual(['UNSUPPORTED_FORMAT', expect.stringMatching(/UTF-16(LE|BE) text .*must be UTF-8/)]);
    else expect(REJECT_CODES).toContain(r.code);
  });

  test('every accepted i_number file gives its numeral back as written', async () => {
    for (const name of files.filter((f) => f.startsWith('i_number_'))) {
      const r = await run(name);
      const lexeme = fs.readFileSync(`${dir}/${name}`, 'utf8').trim().slice(1, -1);
      expect(JSON.stringify((r as { values: unknown[] }).values[0])).toBe(lexeme);
    }
  });

  test('numbers beyond a double keep their digits (i_number_too_big_pos_int, i_number_huge_exp)', async () => {
    const big = await run('i_number_too_big_pos_int.json');
    expect(JSON.stringify((big as { values: unknown[] }).values[0])).toBe('100000000000000000000');
    const huge = await run('i_number_huge_exp.json');
    expect(JSON.stringify((huge as { values: unknown[] }).values[0])).toBe(fs.readFileSync(`${dir}/i_number_huge_exp.json`, 'utf8').trim().slice(1, -1));
  });
});
