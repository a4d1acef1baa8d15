import { allowedEdits, boundedLevenshtein, foldOcrConfusions } from './fuzzy';
import { tokenize } from './normalize';

/** Single letters are mostly OCR debris (stray marks, split words) and carry no identity. */
const MIN_TOKEN_LENGTH = 2;
/** Longer words are more distinctive, but beyond this one long word would outweigh a whole line. */
const MAX_TOKEN_WEIGHT = 8;

function prepare(tokens: string[]): string[] {
  const out = new Set<string>();
  for (const t of tokens) for (const w of tokenize(t)) if (w.length >= MIN_TOKEN_LENGTH) out.add(w);
  return [...out];
}

const weight = (t: string): number => Math.min(t.length, MAX_TOKEN_WEIGHT);

/** 1 for equal words; 1 - edits/length for OCR-like misspellings within tolerance; 0 otherwise. */
function pairSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  if (/^\d+$/.test(a) || /^\d+$/.test(b)) return 0;
  const longest = Math.max(a.length, b.length);
  const limit = allowedEdits(longest);
  if (limit === 0) return 0;
  const d = boundedLevenshtein(foldOcrConfusions(a), foldOcrConfusions(b), limit);
  return d <= limit ? 1 - d / longest : 0;
}

/**
 * Text similarity 0-100 between two token lists, tolerant of OCR errors.
 * Tokens are normalized (lower case, accents folded), words shorter than 2 letters dropped, duplicates merged.
 * Each word weighs w = min(length, 8). Words are paired one-to-one, greedily by pair similarity s
 * (1 exact; 1 - edits/length within the length-scaled tolerance of fuzzy.ts; numbers such as years exact only).
 * score = 100 · Σ s·(w_q + w_t) / (Σ w_q + Σ w_t) — a weighted Dice coefficient: 100 when both sides
 * read the same words, falling with every word one side has and the other lacks.
 */
export function textSimilarity(queryTokens: string[], targetTokens: string[]): number {
  const q = prepare(queryTokens);
  const t = prepare(targetTokens);
  const total = q.reduce((s, w) => s + weight(w), 0) + t.reduce((s, w) => s + weight(w), 0);
  if (total === 0) return 0;
  const pairs: { i: number; j: number; s: number }[] = [];
  for (let i = 0; i < q.length; i++) {
    for (let j = 0; j < t.length; j++) {
      const s = pairSimilarity(q[i], t[j]);
      if (s > 0) pairs.push({ i, j, s });
    }
  }
  pairs.sort((a, b) => b.s - a.s);
  const usedQ = new Set<number>();
  const usedT = new Set<number>();
  let matched = 0;
  for (const p of pairs) {
    if (usedQ.has(p.i) || usedT.has(p.j)) continue;
    usedQ.add(p.i);
    usedT.add(p.j);
    matched += p.s * (weight(q[p.i]) + weight(t[p.j]));
  }
  return Math.round((10000 * matched) / total) / 100;
}
