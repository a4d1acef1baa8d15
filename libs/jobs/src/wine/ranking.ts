import { resolveVintage, sameVariety, textSimilarity } from '@loupe/ocr';
import type { WineLabelMetadata, WineMatchItem } from './contracts';

/** docs/protocol.md §4: score_text is produced for the top 10 results only. */
export const TEXT_SCORED_RESULTS = 10;
/**
 * Weight of score_text against the image score in the combined order. Image scores of verified matches saturate
 * (90 inliers already score 95), so between two printings of one label design they differ by noise; the label's
 * words are what tell them apart. Equal weight lets a clearly better text win a near tie without letting text alone
 * lift a weak image match over a strong one when the text identifies no label (see imageWeight).
 */
export const TEXT_WEIGHT = 1;
/**
 * Bonus for each of vintage_year and variety_type read on both labels and equal, and the same amount taken off when
 * both were read and differ. Near-twins (one producer, another vintage or variety) share all words but one or two,
 * which moves score_text by only ~5-10 points; the fields the twins differ in are worth more than their share of the
 * words, so a twin that agrees on both fields leads one that differs in one by 20 points plus the text difference.
 */
export const FIELD_AGREEMENT_BONUS = 10;

/**
 * Least score_text for a collection label that the image matching did not verify to count as a match by its text
 * alone. A bottle photo wraps the label round a cylinder, which no homography describes, so strong curvature can
 * defeat the geometric check while the words still read; two reads of the same label agree at 85-100, labels that
 * merely share a region, variety and "Product of France" at 30-55.
 */
export const TEXT_ONLY_MIN_SCORE = 75;
/** How many labels matched by text alone may join the results. */
export const TEXT_ONLY_MAX = TEXT_SCORED_RESULTS;

const FULL_RECT = { left: 0, right: 100, top: 0, bottom: 100 };

/**
 * Collection labels whose text agrees with the query's though their image did not match, best first, as match
 * items of score 0: the query's label region (query_match_rect) stands for the whole collection label.
 */
export function textOnlyMatches(
  labels: ReadonlyArray<{ filepath: string; text_tokens: string[] }>,
  query: WineLabelMetadata,
  exclude: ReadonlySet<string>,
): Array<Omit<WineMatchItem, 'metadata'>> {
  const queryTokens = query.text_tokens ?? [];
  if (queryTokens.length === 0) return [];
  const queryRect = (query.label_rect as WineMatchItem['query_match_rect'] | undefined) ?? FULL_RECT;
  return labels
    .filter((l) => !exclude.has(l.filepath))
    .map((l) => ({ filepath: l.filepath, scoreText: textSimilarity(queryTokens, l.text_tokens) }))
    .filter((l) => l.scoreText >= TEXT_ONLY_MIN_SCORE)
    .sort((a, b) => b.scoreText - a.scoreText || a.filepath.localeCompare(b.filepath))
    .slice(0, TEXT_ONLY_MAX)
    .map((l) => ({
      filepath: l.filepath,
      score: 0,
      match_percent: 0,
      query_overlap_percent: 0,
      target_overlap_percent: 0,
      query_match_rect: queryRect,
      target_match_rect: FULL_RECT,
    }));
}

export interface RankedCandidate {
  item: Omit<WineMatchItem, 'metadata'>;
  /** The collection image's stored label metadata. */
  label: WineLabelMetadata;
}

/**
 * Highest score_text of a collection label that the query's words clearly contradict: labels that merely share a
 * region, a variety, a colour word and "Product of ..." score 30-55 against a bottle photo (bench misses: another
 * producer's label of the same layout read 35.8, 38.9 and 42.2 against photos that read their own label at
 * 98.6-100). Between this and TEXT_ONLY_MIN_SCORE the image evidence counts in part (see imageWeight).
 */
export const TEXT_CONTRADICTS_MAX = 55;

function fieldAgreement(query: WineLabelMetadata, target: WineLabelMetadata): number {
  let bonus = 0;
  const queryYear = resolveVintage(query.vintage_year as number | string | undefined, undefined).year;
  const targetYear = resolveVintage(target.vintage_year as number | string | undefined, undefined).year;
  if (queryYear !== undefined && targetYear !== undefined) bonus += queryYear === targetYear ? FIELD_AGREEMENT_BONUS : -FIELD_AGREEMENT_BONUS;
  const queryVariety = query.variety_type;
  const targetVariety = target.variety_type;
  // Labels report the variety as printed: a Shiraz and a Syrah are one grape.
  if (queryVariety !== undefined && targetVariety !== undefined) bonus += sameVariety(String(queryVariety), String(targetVariety)) ? FIELD_AGREEMENT_BONUS : -FIELD_AGREEMENT_BONUS;
  return bonus;
}

/**
 * How much of a candidate's image score counts when the query's words identify some label (a candidate reads at
 * least TEXT_ONLY_MIN_SCORE): all of it at TEXT_ONLY_MIN_SCORE and above, none at TEXT_CONTRADICTS_MAX and below,
 * linear between. Labels of one layout and palette share their frames, ornaments and colour fields, so the engine
 * verifies another producer's label with 50-115 inliers (score 83-98 in the quick bench) while the photo's own label, wrapped round
 * the bottle, may not verify at all; once the text has found the label, an image match the text contradicts is the
 * look-alike design, not the wine. When no candidate's text identifies a label (a blurred or glared photo read
 * poorly), the words prove nothing and every image score counts in full.
 */
function imageWeight(scoreText: number, textIdentifies: boolean): number {
  if (!textIdentifies) return 1;
  return Math.min(1, Math.max(0, (scoreText - TEXT_CONTRADICTS_MAX) / (TEXT_ONLY_MIN_SCORE - TEXT_CONTRADICTS_MAX)));
}

/**
 * The order of a wine search. Every candidate (verified image match or label matched by text alone) gets
 * combined = image evidence + TEXT_WEIGHT · score_text + field agreement, where
 * - candidates whose text identifies them as the query's label (score_text ≥ TEXT_ONLY_MIN_SCORE) are printings of
 *   one design, near-twins among them: they all take the best image score among them, so the image, which cannot
 *   tell a 2015 from a 2016 of one label, does not decide between them; text and the read vintage and variety do;
 * - other candidates count their image score by imageWeight (in full when no candidate's text identifies a label).
 * The TEXT_SCORED_RESULTS best by combined (ties: image score, then path) come first and carry score_text; the rest
 * follow in image order (ties: path) without it.
 */
export function rankByLabel(candidates: readonly RankedCandidate[], query: WineLabelMetadata): Array<RankedCandidate & { combined?: number }> {
  const queryTokens = query.text_tokens ?? [];
  const scored = candidates.map((c) => ({ c, scoreText: textSimilarity(queryTokens, c.label.text_tokens ?? []) }));
  const identified = scored.filter((s) => s.scoreText >= TEXT_ONLY_MIN_SCORE);
  const familyImage = identified.reduce((best, s) => Math.max(best, s.c.item.score), 0);
  const combinedOf = (s: (typeof scored)[number]): number => {
    const image = s.scoreText >= TEXT_ONLY_MIN_SCORE ? familyImage : s.c.item.score * imageWeight(s.scoreText, identified.length > 0);
    return image + TEXT_WEIGHT * s.scoreText + fieldAgreement(query, s.c.label);
  };
  const all = scored.map((s) => ({ ...s.c, scoreText: s.scoreText, combined: combinedOf(s) }));
  all.sort((a, b) => b.combined - a.combined || b.item.score - a.item.score || a.item.filepath.localeCompare(b.item.filepath));
  const top = all.slice(0, TEXT_SCORED_RESULTS).map(({ scoreText, ...c }) => ({ ...c, item: { ...c.item, score_text: scoreText } }));
  const rest = all
    .slice(TEXT_SCORED_RESULTS)
    .sort((a, b) => b.item.score - a.item.score || a.item.filepath.localeCompare(b.item.filepath))
    .map(({ item, label }) => ({ item, label }));
  return [...top, ...rest];
}

/**
 * A match's metadata under the vintage rules of docs/protocol.md §8: the query's year, when read, is the one to use
 * and the matched image's year is ignored (left out, with its rectangle); only when the query shows no year does
 * the collection image's year appear, as a hint of a possible vintage (a string, as collection results carry it).
 * The text lines stay with the collection image; its tokens are kept to explain score_text.
 */
export function matchMetadata(label: WineLabelMetadata, query: WineLabelMetadata, imageId: string | null): WineLabelMetadata {
  const { text_lines: _lines, vintage_year, vintage_rect, ...rest } = label;
  const vintage = resolveVintage(query.vintage_year as number | string | undefined, vintage_year as number | string | undefined);
  const metadata: WineLabelMetadata = { ...rest };
  if (vintage.source === 'collection_hint') {
    metadata.vintage_year = String(vintage.year);
    if (vintage_rect !== undefined) metadata.vintage_rect = vintage_rect;
  }
  metadata.image_id = imageId ?? '';
  return metadata;
}
