import { describe, expect, it } from 'vitest';
import { textSimilarity } from './similarity';

describe('text similarity of two labels', () => {
  const label = ['Château', 'Example', 'Pauillac', '2015', 'Cabernet', 'Sauvignon'];
  it('is 100 for the same words in any order and case', () => {
    expect(textSimilarity(label, [...label].reverse().map((t) => t.toUpperCase()))).toBe(100);
  });
  it('stays high when OCR misreads letters', () => {
    const misread = ['Chateau', 'Exarnple', 'Pauil1ac', '2015', 'Cabernet', 'Sauvlgnon'];
    expect(textSimilarity(label, misread)).toBeGreaterThan(90);
  });
  it('drops for a different wine of the same region', () => {
    const other = ['Château', 'Autre', 'Pauillac', '2015', 'Merlot'];
    const s = textSimilarity(label, other);
    expect(s).toBeGreaterThan(20);
    expect(s).toBeLessThan(60);
  });
  it('is 0 for unrelated labels and for empty input', () => {
    expect(textSimilarity(label, ['Riesling', 'Mosel', 'Kabinett'])).toBe(0);
    expect(textSimilarity([], [])).toBe(0);
  });
  it('does not forgive a different year', () => {
    expect(textSimilarity(['2015'], ['2016'])).toBe(0);
  });
});
