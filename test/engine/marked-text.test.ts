/**
 * The plugin API's marked text: the markers a tool adds (« » …) and where they are, so that an answer tells them from
 * the same characters of the data's own (`<field>_markers` only when the text holds one).
 */
import { codePointLength, markedField, MarkedTextBuilder, ownMarkerCharacters } from '../../src/engine/text/marked-text';

const E = '\u{1F600}';

test('positions are code points: an emoji before a marker counts one', () => {
  const p = new MarkedTextBuilder().mark('…').data(`a${E}b`).mark('«').data('hit').mark('»').append({ text: 'x…', markers: [1] }).build();
  expect(p).toEqual({ text: `…a${E}b«hit»x…`, markers: [0, 4, 8, 10] });
  expect(codePointLength(p.text)).toBe(11);
  expect(codePointLength('\uD800')).toBe(1); // a lone surrogate is one
});

test('ownMarkerCharacters: true only when the text holds more of the characters than it has markers', () => {
  expect(ownMarkerCharacters({ text: '…a«b»', markers: [0, 2, 4] })).toBe(false);
  expect(ownMarkerCharacters({ text: '…a«b»…', markers: [0, 2, 4] })).toBe(true);
  // a text whose only possible marker is … ignores « » of the data
  expect(ownMarkerCharacters({ text: 'a «b» c…', markers: [7] }, '…')).toBe(false);
  expect(ownMarkerCharacters({ text: 'a «b» c…', markers: [7] })).toBe(true);
});

test('markedField: the text alone when unambiguous; name_markers when the data holds … itself', () => {
  expect(markedField('description', { text: 'plain words', markers: [] })).toEqual({ description: 'plain words' });
  expect(markedField('description', { text: 'cut here…', markers: [8] })).toEqual({ description: 'cut here…' });
  expect(markedField('description', { text: 'it ends…', markers: [] })).toEqual({ description: 'it ends…', description_markers: [] });
  expect(markedField('value', { text: '"so… cut…"', markers: [8] })).toEqual({ value: '"so… cut…"', value_markers: [8] });
  expect(Object.keys(markedField('value', { text: '…', markers: [] }))).toEqual(['value', 'value_markers']);
  expect(markedField('preview', { text: '«quoted»', markers: [] })).toEqual({ preview: '«quoted»' });
});
