import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Vocabulary } from './vocabulary';

/**
 * Committed tree of the verification's descriptor cells (`verify.ts`), produced by scripts/train-vocabulary.ts from
 * generated scenes; until the search vocabulary below, also the search words.
 */
export const DEFAULT_VOCABULARY_PATH = join(__dirname, '..', 'data', 'vocabulary.bin');

/**
 * Committed search vocabulary: 16^4 branches (60,055 words) trained on photographs of Debian packages that no benchmark
 * evaluates on, by `tools/bench/vocabulary/run.ts --write`. Against the generated-scene vocabulary it brings the true
 * image into the verified shortlist more often and reads far fewer postings per query (docs/benchmarks.md, "Search
 * vocabulary").
 */
export const SEARCH_VOCABULARY_PATH = join(__dirname, '..', 'data', 'search-vocabulary.bin');

let cached: Vocabulary | undefined;
let search: Vocabulary | undefined;

/** The committed vocabulary, read once per process. Every stored word list depends on it: never retrain in place. */
export function defaultVocabulary(): Vocabulary {
  cached ??= Vocabulary.deserialize(readFileSync(DEFAULT_VOCABULARY_PATH));
  return cached;
}

/**
 * The committed search vocabulary, read once per process. Stored word lists name the vocabulary they come from: a new
 * one is a new file, and stored words are re-quantised from the stored features (libs/jobs' VocabularyMigration).
 */
export function searchVocabulary(): Vocabulary {
  search ??= Vocabulary.deserialize(readFileSync(SEARCH_VOCABULARY_PATH));
  return search;
}
