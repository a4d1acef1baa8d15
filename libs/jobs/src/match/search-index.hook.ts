import { differenceHash } from '@loupe/fingerprint';
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

  async analyze(input: IngestHookInput): Promise<SearchIndexEntry | null> {
    if (!input.features || input.features.count === 0) return null;
    return { words: matchVocabulary().vocabulary.quantize(input.features), globalHash: differenceHash(input.gray) };
  }

  async persist(tx: Queryable, imagePk: number, entry: SearchIndexEntry | null): Promise<void> {
    if (entry) await this.index.saveWords(imagePk, matchVocabulary().id, entry.words, tx, entry.globalHash);
  }
}
