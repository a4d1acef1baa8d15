import type { Migration } from '..';

/**
 * The color service's index: one palette per image, computed at update time with the background options given then,
 * and a GIN index over images.metadata so keyword and equality filters of color searches run in the database.
 */
export const color: Migration = {
  id: 3,
  name: 'color',
  up: `
    CREATE TABLE image_palettes (
      image_pk                    bigint PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
      -- [{ "rgb": [r, g, b], "weight": percent, "class": "blue,violet" }, ...], weights summing to 100.
      palette                     jsonb NOT NULL,
      ignore_background           boolean NOT NULL,
      ignore_interior_background  boolean NOT NULL
    );

    -- jsonb_ops (not jsonb_path_ops): it serves both @> containment and the @? jsonpath equality filters.
    CREATE INDEX images_metadata_gin ON images USING gin (metadata);
  `,
};
