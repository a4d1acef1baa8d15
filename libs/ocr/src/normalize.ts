/**
 * Ligatures that NFKD does not decompose (œ, æ, ß, ø, ł are letters of their own in Unicode), plus the
 * typographic ones that it does, listed so the mapping reads in one place.
 */
const LIGATURES: Record<string, string> = {
  'œ': 'oe',
  'æ': 'ae',
  'ß': 'ss',
  'ø': 'o',
  'ł': 'l',
  'đ': 'd',
  'ı': 'i',
  'ﬁ': 'fi',
  'ﬂ': 'fl',
  'ﬀ': 'ff',
  'ﬃ': 'ffi',
  'ﬄ': 'ffl',
  'ﬅ': 'st',
  'ﬆ': 'st',
};

const COMBINING_MARKS = /[\u0300-\u036f]/g;
const LIGATURE_CHARS = new RegExp(`[${Object.keys(LIGATURES).join('')}]`, 'g');

/** Lower-case, ligatures expanded (œ→oe, æ→ae, ﬁ→fi), accents folded (é→e, ü→u). Keeps punctuation and spaces. */
export function normalizeToken(s: string): string {
  return s
    .toLowerCase()
    .replace(LIGATURE_CHARS, (c) => LIGATURES[c] ?? c)
    .normalize('NFKD')
    .replace(COMBINING_MARKS, '');
}

/** Normalized words of a text: letters and digits only; apostrophes and hyphens split words ("d'Asti" → d, asti). */
export function tokenize(text: string): string[] {
  return normalizeToken(text)
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 0);
}
