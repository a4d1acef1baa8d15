/**
 * Edit-distance tolerance for OCR errors, scaled by word length.
 * Words of up to 4 letters must match exactly: one wrong letter turns "red" into "rod" or "and" into "ana",
 * so any tolerance there produces false hits. 5-8 letters allow one wrong letter ("Sauvlgnon" has 9 → 2).
 */
const EXACT_MAX_LENGTH = 4;
const ONE_EDIT_MAX_LENGTH = 8;
/** Long phrases ("cabernet sauvignon", 18 letters) tolerate a third error only from this length on. */
const TWO_EDIT_MAX_LENGTH = 16;

/**
 * Letter pairs OCR reads as one letter and back ("rn" for "m", "vv" for "w"): folded on both sides before
 * counting edits, so the confusion costs nothing instead of two edits.
 */
export function foldOcrConfusions(s: string): string {
  return s.replace(/rn/g, 'm').replace(/vv/g, 'w');
}

export function allowedEdits(length: number): number {
  if (length <= EXACT_MAX_LENGTH) return 0;
  if (length <= ONE_EDIT_MAX_LENGTH) return 1;
  if (length <= TWO_EDIT_MAX_LENGTH) return 2;
  return 3;
}

/**
 * Levenshtein distance, giving up early (returning limit + 1) once every cell of a row exceeds the limit.
 * Two rolling rows over a typed array: dictionary lookups call this tens of thousands of times per label.
 */
export function boundedLevenshtein(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  if (a === b) return 0;
  let prev = new Uint16Array(b.length + 1);
  let curr = new Uint16Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    curr[0] = i;
    let rowMin = curr[0];
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      const v = Math.min(prev[j] + 1, curr[j - 1] + 1, prev[j - 1] + cost);
      curr[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > limit) return limit + 1;
    [prev, curr] = [curr, prev];
  }
  return prev[b.length];
}

/**
 * Edits between an OCR'd phrase and a dictionary phrase when within tolerance, else null.
 * Every word of the dictionary phrase that is short (≤ 4 letters) must appear exactly at the same position,
 * so "Côte de Beaune" cannot absorb a misread "de" → "da" but long words still tolerate errors.
 */
export function fuzzyPhraseEdits(ocrWords: string[], dictWords: string[]): number | null {
  if (ocrWords.length !== dictWords.length) return null;
  for (let i = 0; i < dictWords.length; i++) {
    if (dictWords[i].length <= EXACT_MAX_LENGTH && ocrWords[i] !== dictWords[i]) return null;
  }
  const a = foldOcrConfusions(ocrWords.join(' '));
  const b = foldOcrConfusions(dictWords.join(' '));
  const limit = allowedEdits(b.replace(/ /g, '').length);
  const d = boundedLevenshtein(a, b, limit);
  return d <= limit ? d : null;
}
