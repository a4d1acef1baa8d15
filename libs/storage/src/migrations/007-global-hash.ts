import type { Migration } from '..';

/**
 * A whole-image difference hash per indexed image, next to its visual words: it finds copies of images too smooth for
 * local features (see `differenceHash`). Rows indexed before this migration keep NULL until they are added again.
 */
export const globalHash: Migration = {
  id: 7,
  name: 'global-hash',
  up: `
    ALTER TABLE image_words ADD COLUMN global_hash bigint;
  `,
};
