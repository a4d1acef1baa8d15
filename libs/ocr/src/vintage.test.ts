import { describe, expect, it } from 'vitest';
import { syntheticLines } from './testing/ocr-lines';
import { findVintage, resolveVintage } from './vintage';

const NOW = new Date('2025-06-01');
const year = (texts: string[]) => findVintage(syntheticLines(texts), NOW)?.year;

describe('vintage on a label', () => {
  it('reads a year alone on its line', () => {
    expect(year(['Château Example', '2015', 'Pauillac'])).toBe(2015);
  });
  it('ignores founding dates', () => {
    expect(year(['Since 1850', 'Maison Example'])).toBeUndefined();
    expect(year(['Est. 1890', 'Vintage 2012'])).toBe(2012);
    expect(year(['Domaine fondé depuis 1902', '2019'])).toBe(2019);
  });
  it('rejects years before 1900, in the future, or inside longer numbers', () => {
    expect(year(['1875'])).toBeUndefined();
    expect(year(['2031'])).toBeUndefined();
    expect(year(['Lot 120154', 'Tel 2015.88'])).toBeUndefined();
  });
  it('prefers the year next to a vintage word over another year', () => {
    expect(year(['Bottled in 2018 by the estate', 'Millésime 2016'])).toBe(2016);
    expect(year(['Jahrgang', '2011 Riesling', 'Abfüllung 2013 Weingut'])).toBe(2011);
  });
  it('repairs O and l misread inside a year', () => {
    expect(year(['2O1l'])).toBe(2011);
  });
  it('boxes the year word', () => {
    const v = findVintage(syntheticLines(['Cuvée 2009 Rouge']), NOW);
    expect(v?.box).toEqual({ x0: 80, y0: 10, x1: 120, y1: 30 });
  });
});

describe('vintage rules of a search', () => {
  it('uses the query year when there is one, whatever the collection says', () => {
    expect(resolveVintage(2015, 2012)).toEqual({ year: 2015, source: 'query' });
  });
  it('falls back to the collection year only as a hint', () => {
    expect(resolveVintage(undefined, 2012)).toEqual({ year: 2012, source: 'collection_hint' });
    expect(resolveVintage(undefined, '2012')).toEqual({ year: 2012, source: 'collection_hint' });
  });
  it('reports none when neither has a year', () => {
    expect(resolveVintage(undefined, undefined)).toEqual({ source: 'none' });
    expect(resolveVintage(Number.NaN, 'n/a')).toEqual({ source: 'none' });
  });
});
