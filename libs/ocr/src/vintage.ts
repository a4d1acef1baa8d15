import { unionBox } from './box';
import type { OcrLine, PixelBox } from './types';

/** Wine vintages on labels in use start in the 20th century; older numbers are founding dates. */
const FIRST_VINTAGE = 1900;

/** Words that mark a year as the vintage, in label languages. */
const VINTAGE_WORDS = /\b(vintage|millesime|annata|vendemmia|cosecha|vendimia|colheita|jahrgang|harvest|harvested|anada|evjarat)\b/i;
/** Words that make a year a founding date ("since 1850", "est. 1890", "depuis 1902"). */
const FOUNDING_BEFORE = /\b(since|est|estd|established|founded|depuis|fonde|fondee|seit|gegrundet|desde|fundada|fundado|dal|fondata|fondato|anno|sinds)\.?\s*(in\s*)?$/i;

/** Score of a year alone on its line: labels print the vintage on its own or beside a vintage word. */
const ALONE_BONUS = 3;
const VINTAGE_WORD_BONUS = 3;
const NEIGHBOUR_VINTAGE_WORD_BONUS = 1;

/** OCR reads 0 as O/o and 1 as l/I inside numbers; only fixed in a 4-character token that starts like a year. */
function repairDigits(token: string): string {
  if (!/^[12][0-9OoIl]{3}$/.test(token) || (token.match(/[0-9]/g) ?? []).length < 2) return token;
  return token.replace(/[Oo]/g, '0').replace(/[Il]/g, '1');
}

function foldAccents(s: string): string {
  return s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
}

export interface VintageHit {
  year: number;
  lineIndex: number;
  box: PixelBox;
}

/**
 * The vintage: a year 1900..now that is not part of a longer number (750, 2015.5, 12015) nor a founding date;
 * among several, the one alone on its line or next to a vintage word wins, then the one in the largest print.
 */
export function findVintage(lines: OcrLine[], now: Date = new Date()): VintageHit | null {
  const lastYear = now.getFullYear();
  let best: (VintageHit & { score: number; height: number }) | null = null;
  for (let lineIndex = 0; lineIndex < lines.length; lineIndex++) {
    const line = lines[lineIndex];
    const text = foldAccents(line.text.split(/\s+/).map(repairDigits).join(' '));
    for (const m of text.matchAll(/(?<![\d.,/])(\d{4})(?![\d]|[.,/]\d)/g)) {
      const year = Number(m[1]);
      if (year < FIRST_VINTAGE || year > lastYear) continue;
      if (FOUNDING_BEFORE.test(text.slice(0, m.index))) continue;
      let score = 0;
      if (text.replace(/[^\p{L}\p{N}]/gu, '') === m[1]) score += ALONE_BONUS;
      if (VINTAGE_WORDS.test(text)) score += VINTAGE_WORD_BONUS;
      const neighbours = [lines[lineIndex - 1], lines[lineIndex + 1]].filter((l): l is OcrLine => !!l);
      if (neighbours.some((l) => VINTAGE_WORDS.test(foldAccents(l.text)))) score += NEIGHBOUR_VINTAGE_WORD_BONUS;
      const word = line.words.find((w) => repairDigits(w.text.replace(/[^\p{L}\p{N}]/gu, '')) === m[1]);
      const box = word ? word.box : unionBox([line.box]);
      const height = box.y1 - box.y0;
      if (!best || score > best.score || (score === best.score && height > best.height)) {
        best = { year, lineIndex, box, score, height };
      }
    }
  }
  if (!best) return null;
  const { year, lineIndex, box } = best;
  return { year, lineIndex, box };
}

/**
 * Vintage rules of docs/protocol.md §8: the query image's year is the one to use; a matched collection image's year is
 * ignored, except that when the query has none it may serve as a hint of a possible vintage.
 */
export function resolveVintage(
  queryYear: number | string | undefined,
  collectionYear: number | string | undefined,
): { year?: number; source: 'query' | 'collection_hint' | 'none' } {
  const query = asYear(queryYear);
  if (query !== undefined) return { year: query, source: 'query' };
  const collection = asYear(collectionYear);
  if (collection !== undefined) return { year: collection, source: 'collection_hint' };
  return { source: 'none' };
}

/** Matches may carry the year as a string (docs/protocol.md §8); anything not a positive integer is no year. */
function asYear(y: number | string | undefined): number | undefined {
  const n = typeof y === 'string' && /^\s*\d+\s*$/.test(y) ? Number(y) : y;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}
