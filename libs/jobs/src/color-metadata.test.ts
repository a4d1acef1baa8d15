import { describe, expect, it } from 'vitest';
import {
  compareByMetadata, MetadataError, normalizeStoredMetadata, parseMetadataQuery, parseMetadataText, parseReturnMetadata, returnedMetadata,
} from './color-metadata';

describe('color keyword metadata', () => {
  it('reads the same metadata from JSON and from XML (attributes as members, text as "", repeated elements as lists)', () => {
    const json = parseMetadataText('{"keywords": ["Whale", "sea"], "price": {"action": "return", "type": "float", "": "49.5"}}', 'metadata');
    const xml = parseMetadataText('<metadata><keywords>Whale</keywords><keywords>sea</keywords><price action="return" type="float">49.5</price></metadata>', 'metadata');
    expect(normalizeStoredMetadata(xml, 'metadata')).toEqual(normalizeStoredMetadata(json, 'metadata'));
    expect(normalizeStoredMetadata(json, 'metadata')).toEqual({ keywords: ['whale', 'sea'], price: { type: 'float', '': 49.5, action: 'return' } });
  });

  it('refuses metadata holding a NUL character, in a value or a key, from JSON (Postgres cannot store it; the XML parser drops &#0;)', () => {
    for (const text of ['{"k": "a\\u0000b"}', '{"a\\u0000": "v"}', '{"k": {"": ["x", "\\u0000"]}}']) {
      expect(() => parseMetadataText(text, 'metadata'), text).toThrow(/metadata: the metadata contains a NUL character/);
    }
    expect(parseMetadataText('{"k": "a\\u0001b"}', 'metadata')).toEqual({ k: 'a\u0001b' });
  });

  it('stores plain values with an inferred type and refuses bad types, values and shapes by name', () => {
    expect(normalizeStoredMetadata({ brand: 'acme', year: 2020, rating: -1.5 }, 'm')).toEqual({
      brand: { type: 'string', '': 'acme' }, year: { type: 'uint', '': 2020 }, rating: { type: 'float', '': -1.5 },
    });
    expect(() => normalizeStoredMetadata({ d: { type: 'date', '': '2020-02-30' } }, 'metadata[2]')).toThrow('metadata[2]: "2020-02-30" is not a valid date for "d".');
    expect(() => normalizeStoredMetadata({ x: { type: 'colour', '': '1' } }, 'm')).toThrow(/type of "x" must be one of/);
    expect(() => normalizeStoredMetadata({ x: { a: { b: 1 } } }, 'm')).toThrow(/nested group/);
    expect(() => parseMetadataText('[1, 2]', 'm')).toThrow(MetadataError);
    expect(() => parseMetadataText('<a><b></a>', 'm')).toThrow(/not valid XML/);
  });

  it('turns queries into a tree: keys AND, operators nest, ranges typed, untyped numbers match text or number', () => {
    const query = parseMetadataQuery(
      { keywords: ['Sea', 'whale'], _or_operator_: [{ brand: 'acme' }, { price: { type: 'float', min: '10', max: 20 } }], year: '2020' },
      'metadata',
    );
    expect(query).toEqual({
      kind: 'and',
      items: [
        { kind: 'keyword', value: 'sea' },
        { kind: 'keyword', value: 'whale' },
        { kind: 'or', items: [{ kind: 'equals', key: 'brand', values: ['acme'] }, { kind: 'range', key: 'price', min: 10, max: 20 }] },
        { kind: 'equals', key: 'year', values: ['2020', 2020] },
      ],
    });
    expect(() => parseMetadataQuery({}, 'metadata')).toThrow('metadata: the metadata query is empty.');
    expect(() => parseMetadataQuery({ _and_operator_: 'x' }, 'metadata')).toThrow(/needs a list of queries/);
  });

  it('returns action-return entries plus asked keys, and sorts by the asked direction with missing values last', () => {
    const asked = parseReturnMetadata({ year: { sort: 'desc', '': null }, brand: '' }, 'return_metadata');
    const a = { price: { type: 'float', '': 5, action: 'return' }, year: { type: 'uint', '': 2019 } };
    const b = { year: { type: 'uint', '': 2021 }, brand: { type: 'string', '': 'acme' } };
    expect(returnedMetadata(a, asked)).toEqual({ price: 5, year: 2019 });
    expect(returnedMetadata(b, asked)).toEqual({ year: 2021, brand: 'acme' });
    expect(compareByMetadata(a, b, asked)).toBeGreaterThan(0);
    expect(compareByMetadata({}, b, asked)).toBeGreaterThan(0);
    expect(() => parseReturnMetadata({ year: { sort: 'up' } }, 'return_metadata')).toThrow(/asc or desc/);
  });
});
