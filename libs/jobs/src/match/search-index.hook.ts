import type { MatchIndexRepository, Queryable } from '@loupe/storage';
import type { IngestHook, IngestHookInput } from '../ingest.service';
import { matchVocabulary } from './vocabulary';

/** Quantises an added image's features into visual words and stores them with the image, in its transaction. */
export class SearchIndexHook implements IngestHook<Uint32Array | null> {
  constructor(private readonly index: MatchIndexRepository) {}

  async analyze(input: IngestHookInput): Promise<Uint32Array | null> {
    if (!input.features || input.features.count === 0) return null;
    return matchVocabulary().vocabulary.quantize(input.features);
  }

  async persist(tx: Queryable, imagePk: number, words: Uint32Array | null): Promise<void> {
    if (words) await this.index.saveWords(imagePk, matchVocabulary().id, words, tx);
  }
}
