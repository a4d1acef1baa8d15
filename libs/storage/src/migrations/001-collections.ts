import type { Migration } from '..';

/** Accounts, their users, and the collection images of every service with their local features. */
export const collections: Migration = {
  id: 1,
  name: 'collections',
  up: `
    CREATE TABLE accounts (
      id          bigserial PRIMARY KEY,
      name        text NOT NULL UNIQUE,
      created_at  timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE users (
      id             bigserial PRIMARY KEY,
      account_id     bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      username       text NOT NULL,
      password_hash  text NOT NULL,
      created_at     timestamptz NOT NULL DEFAULT now(),
      UNIQUE (account_id, username)
    );

    -- One row per collection image; a service's collection is (account_id, service).
    CREATE TABLE images (
      id                   bigserial PRIMARY KEY,
      account_id           bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      service              text NOT NULL,
      filepath             text NOT NULL,
      image_id             text,
      format               text NOT NULL,
      width                integer NOT NULL,
      height               integer NOT NULL,
      norm_width           integer NOT NULL,
      norm_height          integer NOT NULL,
      blob_key             text NOT NULL,
      norm_blob_key        text NOT NULL,
      fingerprint_health   real NOT NULL,
      searchable           boolean NOT NULL,
      unsearchable_reason  text,
      metadata             jsonb NOT NULL DEFAULT '{}'::jsonb,
      -- The staged upload this row was made from: a retried ingest job recognises its own earlier commit.
      ingest_token         text,
      created_at           timestamptz NOT NULL DEFAULT now(),
      UNIQUE (account_id, service, filepath)
    );
    -- list and count walk a collection in insertion order.
    CREATE INDEX images_collection_order ON images (account_id, service, id);

    -- Local features (serialised keypoints and descriptors), kept apart so listing never reads them.
    CREATE TABLE image_features (
      image_pk       bigint PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
      feature_count  integer NOT NULL,
      features       bytea NOT NULL
    );
  `,
};
