import type { Migration } from '..';

/**
 * A colour set per indexed image (`colourSet`: which of 64 colour bins cover at least 1 % of it), next to its
 * whole-image hash: it finds the images a crop too plain to vote with may come from. Rows indexed before this migration
 * keep NULL until they are added or re-fingerprinted again.
 */
export const colourSet: Migration = {
  id: 9,
  name: 'colour-set',
  up: `
    ALTER TABLE image_words ADD COLUMN colour_set bigint;
  `,
};
