import { resolveVintage, textSimilarity } from '@loupe/ocr';
import type { WineLabelMetadata, WineMatchItem } from './contracts';

/** Specification 8: score_text is produced for the top 10 results only. */
export const TEXT_SCORED_RESULTS = 10;
/**
 * Weight of score_text against the image score in the combined order of the top results. Image scores of
 * verified matches saturate (90 inliers already score 95), so between two printings of one label design they
 * differ by noise; the label's words are what tell them apart. Equal weight lets a clearly better text win a
 * near tie without letting text alone lift a weak image match over a strong one.
 */
export const TEXT_WEIGHT = 1;
/**
 * Bonus for each of vintage_year and variety_type read on both labels and equal. Near-twins (one producer, another
 * vintage or variety) share all words but one or two, which moves score_text by only ~5 points; the fields the
 * twins differ in are worth more than their share of the words.
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

function fieldAgreement(query: WineLabelMetadata, target: WineLabelMetadata): number {
  let bonus = 0;
  const queryYear = resolveVintage(query.vintage_year as number | string | undefined, undefined).year;
  const targetYear = resolveVintage(target.vintage_year as number | string | undefined, undefined).year;
  if (queryYear !== undefined && queryYear === targetYear) bonus += FIELD_AGREEMENT_BONUS;
  if (query.variety_type !== undefined && query.variety_type === target.variety_type) bonus += FIELD_AGREEMENT_BONUS;
  return bonus;
}

/**
 * The order of a wine search: the image matches best first, then the top TEXT_SCORED_RESULTS re-ordered by
 * score + TEXT_WEIGHT · score_text + field agreement (ties: image score, then path). score_text is attached to
 * those top results only; the rest keep their image order below them.
 */
export function rankByLabel(candidates: readonly RankedCandidate[], query: WineLabelMetadata): Array<RankedCandidate & { combined?: number }> {
  const byImage = [...candidates].sort((a, b) => b.item.score - a.item.score || a.item.filepath.localeCompare(b.item.filepath));
  const queryTokens = query.text_tokens ?? [];
  const top = byImage.slice(0, TEXT_SCORED_RESULTS).map((c) => {
    const scoreText = textSimilarity(queryTokens, c.label.text_tokens ?? []);
    return { ...c, item: { ...c.item, score_text: scoreText }, combined: c.item.score + TEXT_WEIGHT * scoreText + fieldAgreement(query, c.label) };
  });
  top.sort((a, b) => b.combined - a.combined || b.item.score - a.item.score || a.item.filepath.localeCompare(b.item.filepath));
  return [...top, ...byImage.slice(TEXT_SCORED_RESULTS)];
}

/**
 * A match's metadata under the vintage rules of specification 2.5: the query's year, when read, is the one to use
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
