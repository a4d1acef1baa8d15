import { describe, expect, it } from 'vitest';
import { normalizeToken, tokenize } from './normalize';

describe('normalizeToken', () => {
  it('folds accents and lower-cases', () => {
    expect(normalizeToken('CHÂTEAU Côte-Rôtie Müller')).toBe('chateau cote-rotie muller');
  });
  it('expands ligatures that Unicode decomposition leaves alone', () => {
    expect(normalizeToken('Œil de Perdrix')).toBe('oeil de perdrix');
    expect(normalizeToken('Cuvée Æther')).toBe('cuvee aether');
    expect(normalizeToken('ﬁne ﬂeur')).toBe('fine fleur');
    expect(normalizeToken('Weiß')).toBe('weiss');
  });
});

describe('tokenize', () => {
  it('splits on apostrophes, hyphens and punctuation', () => {
    expect(tokenize("Barbera d'Asti, Saint-Émilion.")).toEqual(['barbera', 'd', 'asti', 'saint', 'emilion']);
  });
});
