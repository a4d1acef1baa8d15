import type { Migration } from '..';

/**
 * The wine service's label metadata (docs/protocol.md §8), read once when an image is added: search answers carry it
 * for every match, and its text tokens are compared with the query's, so it is stored rather than read again.
 */
export const wine: Migration = {
  id: 4,
  name: 'wine',
  up: `
    CREATE TABLE wine_labels (
      image_pk  bigint PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
      -- { variety_type, vintage_year, ..., label_rect, text_lines: [...], text_tokens: [...] }; no field = not detected.
      metadata  jsonb NOT NULL
    );
  `,
};
