import type { Migration } from '..';

/**
 * The share of each of an indexed image's 64 colour bins (`encodeColourShares`, 64 bytes), next to its colour set: it
 * ranks the images most alike a query in colour by how much of each colour they have. Rows indexed before this
 * migration keep NULL (ranked by their colour set alone) until they are added or re-fingerprinted again.
 */
export const colourShares: Migration = {
  id: 10,
  name: 'colour-shares',
  up: `
    ALTER TABLE image_words ADD COLUMN colour_shares bytea;
  `,
};
