import { extractFeatures } from '../features';
import { deserializeFeatures, serializeFeatures } from '../features-codec';
import { defaultVocabulary } from '../default-vocabulary';
import { InvertedIndex } from '../inverted-index';
import { verifyMatch } from '../verify';
import { syntheticImage, toGray } from './synthetic-images';
import type { Features, MatchResult, RgbImage, VerifyOptions } from '../types';

/** An indexed test collection: generated images keyed by their seed. */
export interface Collection {
  images: Map<number, RgbImage>;
  features: Map<number, Features>;
  index: InvertedIndex;
}

export async function buildCollection(seeds: number[]): Promise<Collection> {
  const vocabulary = defaultVocabulary();
  const collection: Collection = { images: new Map(), features: new Map(), index: new InvertedIndex() };
  for (const seed of seeds) {
    const img = await syntheticImage(seed);
    const f = await extractFeatures(toGray(img));
    collection.images.set(seed, img);
    // Verified as a search verifies them: read back from the layout collection rows store, not as extracted.
    collection.features.set(seed, deserializeFeatures(serializeFeatures(f)));
    collection.index.add(seed, vocabulary.quantize(f));
  }
  return collection;
}

/** Candidates to verify per query: Pastec-style shortlist before the expensive geometric check. */
export const SHORTLIST = 8;

/** The search the services run: words → shortlist → geometric verification → best score first. */
export async function search(c: Collection, queryImg: RgbImage, opts: VerifyOptions = {}): Promise<Array<{ key: number; match: MatchResult }>> {
  const query = await extractFeatures(toGray(queryImg), { includeMirror: opts.checkHorizontalFlip });
  const shortlist = c.index.candidates(defaultVocabulary().quantize(query), SHORTLIST);
  if (opts.checkHorizontalFlip && query.mirrored) {
    shortlist.push(...c.index.candidates(defaultVocabulary().quantize(query.mirrored), SHORTLIST));
  }
  const results: Array<{ key: number; match: MatchResult }> = [];
  for (const key of new Set(shortlist.map((s) => s.imageKey))) {
    const match = await verifyMatch(query, c.features.get(key)!, opts);
    if (match) results.push({ key, match });
  }
  return results.sort((a, b) => b.match.score - a.match.score || b.match.inliers - a.match.inliers);
}
