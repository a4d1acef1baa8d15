import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Vocabulary } from './vocabulary';

/** Committed vocabulary, produced by scripts/train-vocabulary.ts. */
export const DEFAULT_VOCABULARY_PATH = join(__dirname, '..', 'data', 'vocabulary.bin');

let cached: Vocabulary | undefined;

/** The committed vocabulary, read once per process. Every stored word list depends on it: never retrain in place. */
export function defaultVocabulary(): Vocabulary {
  cached ??= Vocabulary.deserialize(readFileSync(DEFAULT_VOCABULARY_PATH));
  return cached;
}
