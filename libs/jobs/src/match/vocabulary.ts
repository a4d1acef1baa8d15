import { searchVocabulary, Vocabulary } from '@loupe/fingerprint';
import { createHash } from 'node:crypto';

export interface VersionedVocabulary {
  vocabulary: Vocabulary;
  /** Content hash: stored with every word list so a new vocabulary is never mixed with words from an old one. */
  id: string;
}

let loaded: VersionedVocabulary | null = null;

/** The search vocabulary (visual words of collections and of the public index) and its id. */
export function matchVocabulary(): VersionedVocabulary {
  if (!loaded) {
    const vocabulary = searchVocabulary();
    loaded = { vocabulary, id: createHash('sha1').update(vocabulary.serialize()).digest('hex').slice(0, 12) };
  }
  return loaded;
}
