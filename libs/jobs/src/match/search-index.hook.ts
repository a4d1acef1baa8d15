import { colourSet, colourShares, defineTask, encodeColourShares, differenceHash, Features, runInThisThread, TaskRunner } from '@loupe/fingerprint';
import type { GrayImage, RgbImage } from '@loupe/imaging';
import type { MatchIndexRepository, Queryable } from '@loupe/storage';
import type { IngestHook, IngestHookInput } from '../ingest.service';
import { matchVocabulary } from './vocabulary';

interface SearchIndexEntry {
  words: Uint32Array;
  globalHash: bigint;
  colourSet: bigint;
  colourShares: Uint8Array;
}

/** The visual words of an image's features and its whole-image hash; CPU work, so it runs on a compute thread. */
export const searchIndexEntryTask = defineTask(
  __filename,
  'searchIndexEntryTask',
  ({ features, gray }: { features: Features; gray: GrayImage }): Omit<SearchIndexEntry, 'colourSet' | 'colourShares'> => ({
    words: matchVocabulary().vocabulary.quantize(features),
    globalHash: differenceHash(gray),
  }),
);

/**
 * Quantises an added image's features into visual words, hashes the whole image (`differenceHash`), takes its colour set
 * (`colourSet`) and shares (`colourShares`) and stores them with the image, in its transaction.
 */
export class SearchIndexHook implements IngestHook<SearchIndexEntry | null> {
  constructor(
    private readonly index: MatchIndexRepository,
    private readonly run: TaskRunner = runInThisThread,
  ) {}

  async analyze(input: Pick<IngestHookInput, 'features' | 'gray'> & { normalized: RgbImage }): Promise<SearchIndexEntry | null> {
    // Without features (a refused image) nothing is indexed; without corners, only the signatures (a soft gradient is
    // found as a whole copy, or by its colours).
    if (!input.features) return null;
    const entry = await this.run(searchIndexEntryTask, { features: input.features, gray: input.gray });
    // A few thousand sampled pixels: not worth sending the colour image to a thread.
    return { ...entry, colourSet: colourSet(input.normalized), colourShares: encodeColourShares(colourShares(input.normalized)) };
  }

  async persist(tx: Queryable, imagePk: number, entry: SearchIndexEntry | null): Promise<void> {
    if (entry) await this.index.saveWords(imagePk, matchVocabulary().id, entry.words, tx, entry);
  }

  /**
   * After a re-fingerprint: the image's words and signatures recomputed from its new features and its stored pixels
   * (`normalized`; removed when it has no features) and the change logged, so cached indexes replace the old ones.
   */
  async reindex(tx: Queryable, imagePk: number, features: Features | null, normalized: RgbImage, gray: GrayImage): Promise<void> {
    const entry = await this.analyze({ features, gray, normalized });
    if (entry) await this.persist(tx, imagePk, entry);
    else await this.index.deleteWords(imagePk, tx);
    await this.index.logReindexed(imagePk, tx);
  }
}
