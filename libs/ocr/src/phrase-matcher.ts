import { boxArea, unionBox } from './box';
import { defaultDictionary, matchWords, type DictEntry, type Dictionary, type TermCategory } from './dictionary';
import { fuzzyPhraseEdits } from './fuzzy';
import type { OcrLine, PixelBox } from './types';

/** A normalized word of a line, keeping where it was printed and how (capitals matter for DOC, AOC). */
export interface LineToken {
  norm: string;
  raw: string;
  box: PixelBox;
}

/** A dictionary term found in the text. */
export interface TermHit {
  entry: DictEntry;
  edits: number;
  lineIndex: number;
  /** Token span [start, end) within the line. */
  start: number;
  end: number;
  box: PixelBox;
}

export function lineTokens(line: OcrLine): LineToken[] {
  const words = line.words.length > 0 ? line.words : [{ text: line.text, box: line.box }];
  const out: LineToken[] = [];
  for (const w of words) {
    const raws = w.text.split(/[^\p{L}\p{N}]+/u).filter((r) => r.length > 0);
    for (const raw of raws) {
      for (const norm of matchWords(raw)) out.push({ norm, raw, box: w.box });
    }
  }
  return out;
}

function entryAccepts(entry: DictEntry, tokens: LineToken[], commonOnly: boolean): boolean {
  if (commonOnly && (entry.category === 'region' || entry.category === 'country')) return false;
  if (entry.upperOnly && !tokens.every((t) => /^\p{Lu}{2}/u.test(t.raw))) return false;
  return true;
}

/** Dictionary entries the token sequence spells, exactly or within the OCR-error tolerance, best first. */
export function matchTokens(tokens: LineToken[], dict: Dictionary): { entry: DictEntry; edits: number }[] {
  const words = tokens.map((t) => t.norm);
  const commonOnly = words.every((w) => dict.commonWords.has(w));
  const exact = (dict.byKey.get(words.join(' ')) ?? []).filter((e) => entryAccepts(e, tokens, commonOnly));
  if (exact.length > 0) return exact.map((entry) => ({ entry, edits: 0 }));
  // A common word misread by one letter is far likelier than a place name misread ("model" is not "Mosel").
  if (words.some((w) => dict.commonWords.has(w))) return [];
  const fuzzy: { entry: DictEntry; edits: number }[] = [];
  const letters = words.join('').length;
  for (const entry of dict.byWordCount.get(words.length) ?? []) {
    if (Math.abs(entry.letters - letters) > 3) continue;
    if (!entryAccepts(entry, tokens, commonOnly)) continue;
    const edits = fuzzyPhraseEdits(words, entry.words);
    if (edits !== null) fuzzy.push({ entry, edits });
  }
  return fuzzy.sort((a, b) => a.edits - b.edits);
}

/**
 * All terms on the lines. Within a line, longer phrases win over the shorter ones they overlap
 * ("Sauvignon Blanc" is a variety, not the colour "blanc"; "Moscato d'Asti" is not the grape "Moscato"),
 * then fewer OCR errors. One span may carry several categories (a variety that is also an appellation).
 */
export function findTermHits(lines: OcrLine[], dict: Dictionary = defaultDictionary()): TermHit[] {
  const hits: TermHit[] = [];
  lines.forEach((line, lineIndex) => {
    const tokens = lineTokens(line);
    const candidates: TermHit[] = [];
    for (const entry of dict.wholeLine.get(tokens.map((t) => t.norm).join(' ')) ?? []) {
      candidates.push({ entry, edits: 0, lineIndex, start: 0, end: tokens.length, box: unionBox(tokens.map((t) => t.box)) });
    }
    for (let start = 0; start < tokens.length; start++) {
      for (let n = 1; n <= dict.maxWords && start + n <= tokens.length; n++) {
        const span = tokens.slice(start, start + n);
        const matches = matchTokens(span, dict);
        const box = unionBox(span.map((t) => t.box));
        const bestPerCategory = new Map<TermCategory, { entry: DictEntry; edits: number }>();
        for (const m of matches) if (!bestPerCategory.has(m.entry.category)) bestPerCategory.set(m.entry.category, m);
        for (const m of bestPerCategory.values()) {
          candidates.push({ entry: m.entry, edits: m.edits, lineIndex, start, end: start + n, box });
        }
      }
    }
    candidates.sort((a, b) => b.end - b.start - (a.end - a.start) || a.edits - b.edits || a.start - b.start);
    const taken: TermHit[] = [];
    for (const c of candidates) {
      const overlaps = taken.some((t) => c.start < t.end && t.start < c.end && !(t.start === c.start && t.end === c.end));
      if (!overlaps) taken.push(c);
    }
    hits.push(...taken.sort((a, b) => a.start - b.start));
  });
  return hits;
}

/** The one term a short text names, e.g. a query field typed or read as "Cabernet Sauvlgnon". */
export function lookupTerm(text: string, category?: TermCategory, dict: Dictionary = defaultDictionary()): TermHit | null {
  const line: OcrLine = { text, confidence: 100, box: { x0: 0, y0: 0, x1: 1, y1: 1 }, words: [] };
  const tokens = lineTokens(line);
  if (tokens.length === 0) return null;
  const matches = matchTokens(tokens, dict).filter((m) => !category || m.entry.category === category);
  if (matches.length === 0) return null;
  return { ...matches[0], lineIndex: 0, start: 0, end: tokens.length, box: line.box };
}

/** Text height of a hit: larger print is the label's main information. */
export function hitProminence(hit: TermHit): number {
  return boxArea(hit.box) > 0 ? hit.box.y1 - hit.box.y0 : 0;
}
