import type { Migration } from '..';

/**
 * The vocabulary of stored words, indexed: every process that runs write jobs looks at start for words of another
 * search vocabulary (`staleWords`), and once none is left that look must not read every row of a million-image table.
 * About 30 bytes a row.
 */
export const wordsVocabularyIndex: Migration = {
  id: 8,
  name: 'words-vocabulary-index',
  up: `
    CREATE INDEX image_words_vocabulary ON image_words (vocabulary);
    CREATE INDEX public_images_vocabulary ON public_images (vocabulary);
  `,
};
