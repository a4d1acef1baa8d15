import { differenceHash, Features } from '@loupe/fingerprint';
import type { GrayImage } from '@loupe/imaging';
import type { MatchIndexRepository, Queryable } from '@loupe/storage';
import type { IngestHook, IngestHookInput } from '../ingest.service';
import { matchVocabulary } from './vocabulary';

interface SearchIndexEntry {
  words: Uint32Array;
  globalHash: bigint;
}

/**
 * Quantises an added image's features into visual words, hashes the whole image (`differenceHash`) and stores both with
 * the image, in its transaction.
 */
export class SearchIndexHook implements IngestHook<SearchIndexEntry | null> {
  constructor(private readonly index: MatchIndexRepository) {}

  async analyze(input: Pick<IngestHookInput, 'features' | 'gray'>): Promise<SearchIndexEntry | null> {
    if (!input.features || input.features.count === 0) return null;
    return { words: matchVocabulary().vocabulary.quantize(input.features), globalHash: differenceHash(input.gray) };
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
