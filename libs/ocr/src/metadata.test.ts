import { describe, expect, it } from 'vitest';
import { canonicalVariety, sameVariety } from './dictionary';
import { parseWineMetadata } from './metadata';
import { syntheticLines } from './testing/ocr-lines';

const SIZE = { width: 400, height: 500 };
const NOW = new Date('2025-06-01');

describe('wine metadata from OCR lines', () => {
  it('reads every field of a Bordeaux label', () => {
    const lines = syntheticLines(['CHÂTEAU EXAMPLE', 'Pauillac', '2015', 'Cabernet Sauvignon', 'Grand Vin de Bordeaux', 'Product of France', 'Since 1850']);
    const m = parseWineMetadata(lines, SIZE, undefined, { now: NOW });
    expect(m).toMatchObject({
      variety_type: 'Cabernet Sauvignon',
      vintage_year: 2015,
      region_name: 'Pauillac',
      country_name: 'France',
      country_name_inferred: 'France',
      misc_info: ['Grand Vin'],
    });
    expect(m.color_type).toBeUndefined();
    expect(m.text_lines[0]).toBe('CHÂTEAU EXAMPLE');
    expect(m.text_tokens).toContain('chateau');
    expect(m.region_rect).toEqual({ left: 5, right: 25, top: 8, bottom: 12 });
    expect(m.label_rect).toEqual({ left: 5, right: 57.5, top: 2, bottom: 42 });
  });

  it('survives OCR errors and infers the country from the region', () => {
    const lines = syntheticLines(['FINCA EJEMPLO', 'Rioja Alavesa', 'Ternpranillo', 'Gran Reserva 2OO9', 'Vino Tinto']);
    const m = parseWineMetadata(lines, SIZE, undefined, { now: NOW });
    expect(m).toMatchObject({
      variety_type: 'Tempranillo',
      region_name: 'Rioja Alavesa',
      country_name_inferred: 'Spain',
      color_type: 'red',
      vintage_year: 2009,
      misc_info: ['Gran Reserva'],
    });
    expect(m.country_name).toBeUndefined();
  });

  it('does not read a colour inside a variety name nor a region inside English prose', () => {
    const lines = syntheticLines(['Sauvignon Blanc', 'Marlborough', 'the red and white wine of the south island']);
    const m = parseWineMetadata(lines, SIZE, undefined, { now: NOW });
    expect(m.variety_type).toBe('Sauvignon Blanc');
    expect(m.region_name).toBe('Marlborough');
    expect(m.country_name_inferred).toBe('New Zealand');
  });

  it('reports the variety as printed while its synonyms stay one grape', () => {
    const shiraz = parseWineMetadata(syntheticLines(['Barossa Valley', 'Shiraz', '2018']), SIZE, undefined, { now: NOW });
    expect(shiraz.variety_type).toBe('Shiraz');
    // The English model reads no umlaut: the dictionary's spelling is reported, not the OCR's.
    expect(parseWineMetadata(syntheticLines(['Spatburgunder']), SIZE).variety_type).toBe('Spätburgunder');
    expect(canonicalVariety('Shiraz')).toBe('Syrah');
    expect(sameVariety('Shiraz', 'Syrah')).toBe(true);
    expect(sameVariety('Spätburgunder', 'Pinot Noir')).toBe(true);
    expect(sameVariety('Shiraz', 'Merlot')).toBe(false);
    expect(sameVariety('Unknown Grape', 'unknown grape')).toBe(true);
  });

  it('reads a region spelled with common words when it is a line of its own, not inside prose', () => {
    expect(parseWineMetadata(syntheticLines(['Weingut Northcote', 'DRY CREEK VALLEY', '2015']), SIZE).region_name).toBe('Dry Creek Valley');
    expect(parseWineMetadata(syntheticLines(['grown where the dry creek valley meets the sea']), SIZE).region_name).toBeUndefined();
  });

  it('takes the other region when the variety is named after an appellation and printed larger', () => {
    const lines = syntheticLines(['Clos Oakridge', 'Musigny', '2005', 'Lambrusco di Sorbara'], { heights: [30, 20, 30, 30] });
    expect(parseWineMetadata(lines, SIZE)).toMatchObject({ region_name: 'Musigny', variety_type: 'Lambrusco di Sorbara' });
  });

  it('prefers the variety printed largest when a label names two', () => {
    const lines = syntheticLines(['Merlot', 'blended with Cabernet Franc'], { heights: [40, 12] });
    expect(parseWineMetadata(lines, SIZE).variety_type).toBe('Merlot');
  });

  it('uses the detected label box for label_rect and omits absent fields', () => {
    const m = parseWineMetadata([], SIZE, { x0: 100, y0: 100, x1: 300, y1: 400 });
    expect(m).toEqual({ text_lines: [], text_tokens: [], label_rect: { left: 25, right: 75, top: 20, bottom: 80 } });
  });

  it('infers the country from an appellation term when no region is read', () => {
    const m = parseWineMetadata(syntheticLines(['Fattoria Esempio', 'DOCG']), SIZE);
    expect(m.country_name_inferred).toBe('Italy');
    expect(m.misc_info).toEqual(['DOCG']);
  });
});
