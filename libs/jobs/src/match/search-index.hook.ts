import { defineTask, differenceHash, Features, runInThisThread, TaskRunner } from '@loupe/fingerprint';
import type { GrayImage } from '@loupe/imaging';
import type { MatchIndexRepository, Queryable } from '@loupe/storage';
import type { IngestHook, IngestHookInput } from '../ingest.service';
import { matchVocabulary } from './vocabulary';

interface SearchIndexEntry {
  words: Uint32Array;
  globalHash: bigint;
}

/** The visual words of an image's features and its whole-image hash; CPU work, so it runs on a compute thread. */
export const searchIndexEntryTask = defineTask(
  __filename,
  'searchIndexEntryTask',
  ({ features, gray }: { features: Features; gray: GrayImage }): SearchIndexEntry => ({
    words: matchVocabulary().vocabulary.quantize(features),
    globalHash: differenceHash(gray),
  }),
);

/**
 * Quantises an added image's features into visual words, hashes the whole image (`differenceHash`) and stores both with
 * the image, in its transaction.
 */
export class SearchIndexHook implements IngestHook<SearchIndexEntry | null> {
  constructor(
    private readonly index: MatchIndexRepository,
    private readonly run: TaskRunner = runInThisThread,
  ) {}

  async analyze(input: Pick<IngestHookInput, 'features' | 'gray'>): Promise<SearchIndexEntry | null> {
    // Without features (a refused image) nothing is indexed; without corners, only the hash (a soft gradient is found
    // as a whole copy).
    if (!input.features) return null;
    return this.run(searchIndexEntryTask, { features: input.features, gray: input.gray });
  }

  async persist(tx: Queryable, imagePk: number, entry: SearchIndexEntry | null): Promise<void> {
    if (entry) await this.index.saveWords(imagePk, matchVocabulary().id, entry.words, tx, entry.globalHash);
  }

  /**
   * After a re-fingerprint: the image's words and hash recomputed from its new features (removed when it has none) and
   * the change logged, so cached indexes replace the old words.
   */
  async reindex(tx: Queryable, imagePk: number, features: Features | null, gray: GrayImage): Promise<void> {
    const entry = await this.analyze({ features, gray });
    if (entry) await this.persist(tx, imagePk, entry);
    else await this.index.deleteWords(imagePk, tx);
    await this.index.logReindexed(imagePk, tx);
  }
}
