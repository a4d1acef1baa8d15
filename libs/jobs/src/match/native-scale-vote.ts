import { defineTask, extractFeatures, isEnlargedForDetection, NATIVE_SCALE_WORKING_SIDE, runInThisThread, type GrayImage, type TaskRunner } from '@loupe/fingerprint';
import { matchVocabulary } from './vocabulary';

/**
 * The second vote of a small query, shared by collection search and the public index's search. Detection enlarges a
 * query whose smaller side is under MIN_WORKING_SIDE (meant for thumbnails), and a crop kept at its image's scale is
 * then out of scale with its image: its finest points have no counterpart there, and a large collection outvotes it.
 * Such a query also votes with its words at its own scale, apart, and the two shortlists are merged by relative votes.
 */

/**
 * A query's words at its own scale (`NATIVE_SCALE_WORKING_SIDE`); null for a query detected at its own scale already.
 * It costs such a query a second detection (20-38 ms on 2 cores) and a second vote.
 */
export async function nativeScaleWords(gray: GrayImage): Promise<Uint32Array | null> {
  if (!isEnlargedForDetection(gray.width, gray.height)) return null;
  const features = await extractFeatures(gray, { minWorkingSide: NATIVE_SCALE_WORKING_SIDE });
  return features.count > 0 ? matchVocabulary().vocabulary.quantize(features) : null;
}

/** `nativeScaleWords` on a compute thread. */
export const nativeScaleWordsTask = defineTask(__filename, 'nativeScaleWordsTask', ({ gray }: { gray: GrayImage }) => nativeScaleWords(gray));

/**
 * `nativeScaleWords` of a query, as a thunk for the step that widens the vote when the first round of verification found
 * nothing. On compute threads (`run` not the calling thread) they are detected at once, on a thread that is idle while
 * the calling thread votes and reads the first round's features: a query that the first round does not match (every
 * query whose image is not in the collection) does not wait for the detection after it. A query matched in the first
 * round wastes that detection, which is why only the detection (bounded) starts ahead, not the second vote, whose cost
 * grows with the collection. On the calling thread nothing runs beside the vote, so they are detected only when asked.
 */
export function nativeScaleWordsAhead(gray: GrayImage, run: TaskRunner): () => Promise<Uint32Array | null> {
  if (!isEnlargedForDetection(gray.width, gray.height)) return async () => null;
  if (run === runInThisThread) return () => nativeScaleWords(gray);
  const detecting = run(nativeScaleWordsTask, { gray });
  // Not awaited when the first round matches: its failure must not go unhandled then.
  detecting.catch(() => undefined);
  return () => detecting;
}

/**
 * Rank in a shortlist whose votes the other shortlists' votes are measured against in `mergeByRelativeVotes`: what a
 * shortlist's unrelated images get, as its first few can be its query's true images.
 */
export const SHORTLIST_REFERENCE_RANK = 10;

/**
 * The candidates of several word lists of one query voted with apart, for word lists whose votes cannot be compared (a
 * query's words at two scales are not as many, nor as alike their images): each candidate's votes relative to its
 * shortlist's SHORTLIST_REFERENCE_RANK-th votes, and its best over the shortlists, once per `key`. Unordered.
 */
export function mergeByRelativeVotes<C extends { votes: number }>(shortlists: readonly (readonly C[])[], key: (candidate: C) => number): C[] {
  const merged = new Map<number, C>();
  for (const shortlist of shortlists) {
    const reference = shortlist[Math.min(SHORTLIST_REFERENCE_RANK, shortlist.length) - 1]?.votes || 1;
    for (const c of shortlist) {
      const votes = c.votes / reference;
      if (votes > (merged.get(key(c))?.votes ?? 0)) merged.set(key(c), { ...c, votes });
    }
  }
  return [...merged.values()];
}
