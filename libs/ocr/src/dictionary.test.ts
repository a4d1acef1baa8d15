import { describe, expect, it } from 'vitest';
import { defaultDictionary } from './dictionary';
import { lookupTerm } from './phrase-matcher';

const find = (text: string) => {
  const hit = lookupTerm(text);
  return hit ? `${hit.entry.category}:${hit.entry.canonical}` : null;
};

describe('dictionary data', () => {
  it('is versioned and large enough to be useful', () => {
    const d = defaultDictionary();
    for (const v of Object.values(d.versions)) expect(v).toMatch(/^\d+\.\d+\.\d+$/);
    const canonicals = (c: string) => new Set(d.entries.filter((e) => e.category === c).map((e) => e.canonical)).size;
    expect(canonicals('variety')).toBeGreaterThanOrEqual(300);
    expect(canonicals('region')).toBeGreaterThanOrEqual(500);
    expect(canonicals('country')).toBeGreaterThanOrEqual(40);
  });

  it('never spells two different names of the same kind the same way', () => {
    const seen = new Map<string, string>();
    const clashes: string[] = [];
    for (const e of defaultDictionary().entries) {
      const k = `${e.category}:${e.key}`;
      const prev = seen.get(k);
      if (prev && prev !== e.canonical) clashes.push(`${k} → ${prev} / ${e.canonical}`);
      seen.set(k, e.canonical);
    }
    expect(clashes).toEqual([]);
  });
});

describe('term lookup with OCR errors', () => {
  it('reads a variety with one wrong letter', () => {
    expect(find('Cabernet Sauvlgnon')).toBe('variety:Cabernet Sauvignon');
    expect(find('Chardonay')).toBe('variety:Chardonnay');
  });
  it('maps synonyms to one variety', () => {
    expect(find('Shiraz')).toBe('variety:Syrah');
    expect(find('Garnacha')).toBe('variety:Grenache');
    expect(find('Pinot Grigio')).toBe('variety:Pinot Gris');
    expect(find('Tinto Fino')).toBe('variety:Tempranillo');
  });
  it('reads regions without accents, with abbreviations and a misread letter', () => {
    expect(find('Chateauneuf du Pape')).toBe('region:Châteauneuf-du-Pape');
    expect(find('St-Julien')).toBe('region:Saint-Julien');
    expect(find('Pauilac')).toBe('region:Pauillac');
    expect(find('Barossa VaIley')).toBe('region:Barossa Valley');
    expect(find('Marlborougn')).toBe('region:Marlborough');
  });
  it('takes "rn" read for "m" as no error', () => {
    expect(find('Sautemes')).toBe('region:Sauternes');
    expect(find('Gewurztrarniner')).toBe('variety:Gewürztraminer');
  });
  it('reads country names in their own language', () => {
    expect(find('Italia')).toBe('country:Italy');
    expect(find('ESPAÑA')).toBe('country:Spain');
    expect(find('Frankreich')).toBe('country:France');
  });
  it('requires short words to match exactly', () => {
    expect(find('Toro')).toBe('region:Toro');
    expect(find('Tora')).toBeNull();
    expect(find('Ahr')).toBe('region:Ahr');
    expect(find('Abr')).toBeNull();
  });
  it('does not turn common English words into places', () => {
    expect(find('the')).toBeNull();
    expect(find('and')).toBeNull();
    expect(find('red wine')).toBe('color:red');
    expect(lookupTerm('red wine', 'region')).toBeNull();
    expect(find('Model')).toBeNull();
    expect(find('Orange')).toBeNull();
    expect(find('Port')).toBeNull();
  });
  it('counts label abbreviations only in capitals', () => {
    expect(find('DOCG')).toBe('misc:DOCG');
    expect(find('DO')).toBe('misc:DO');
    expect(find('do')).toBeNull();
    expect(find('Doc')).toBeNull();
  });
});
