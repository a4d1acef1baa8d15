import type { Migration } from '..';

/**
 * Number of hash partitions of the public index tables. Fixed at creation (changing it means a repartition); 16
 * lets a deployment spread 10M+ images over up to 16 index-shard owners, and each partition stays small enough
 * (~600k rows at 10M) for its own vacuum and index builds. Index shard s of the search engine is partition s.
 */
export const PUBLIC_INDEX_PARTITIONS = 16;

function partitions(table: string): string {
  return Array.from(
    { length: PUBLIC_INDEX_PARTITIONS },
    (_, r) => `CREATE TABLE ${table}_p${r} PARTITION OF ${table} FOR VALUES WITH (MODULUS ${PUBLIC_INDEX_PARTITIONS}, REMAINDER ${r});`,
  ).join('\n');
}

/**
 * The public index API: API keys and search blocks of accounts, replay protection and rate buckets for when no
 * Redis is configured, and the shared image index with its backlinks, hash-partitioned by image id.
 */
export const publicIndex: Migration = {
  id: 5,
  name: 'public-index',
  up: `
    CREATE TABLE api_keys (
      public_key   text PRIMARY KEY,
      -- Kept in clear: an HMAC can only be checked with the key itself.
      private_key  text NOT NULL,
      account_id   bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      created_at   timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX api_keys_account ON api_keys (account_id);

    CREATE TABLE api_search_blocks (
      id           bigserial PRIMARY KEY,
      account_id   bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      searches     integer NOT NULL CHECK (searches >= 0),
      remaining    integer NOT NULL CHECK (remaining >= 0),
      start_date   timestamptz NOT NULL,
      expire_date  timestamptz NOT NULL,
      created_at   timestamptz NOT NULL DEFAULT now(),
      CHECK (expire_date > start_date)
    );
    CREATE INDEX api_search_blocks_account ON api_search_blocks (account_id, expire_date);

    CREATE TABLE api_nonces (
      public_key  text NOT NULL,
      nonce       text NOT NULL,
      expires_at  timestamptz NOT NULL,
      PRIMARY KEY (public_key, nonce)
    );
    CREATE INDEX api_nonces_expiry ON api_nonces (expires_at);

    CREATE TABLE api_rate_buckets (
      bucket      text PRIMARY KEY,
      tokens      double precision NOT NULL,
      updated_at  timestamptz NOT NULL
    );

    CREATE SEQUENCE public_images_id_seq;
    CREATE TABLE public_images (
      id             bigint NOT NULL,
      content_hash   bytea NOT NULL,
      format         text NOT NULL,
      width          integer NOT NULL,
      height         integer NOT NULL,
      filesize       integer NOT NULL,
      norm_width     integer NOT NULL,
      norm_height    integer NOT NULL,
      norm_blob_key  text NOT NULL,
      feature_count  integer NOT NULL,
      features       bytea NOT NULL,
      vocabulary     text NOT NULL,
      words          bytea NOT NULL,
      created_at     timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (id)
    ) PARTITION BY HASH (id);
    ${partitions('public_images')}

    -- Identical bytes are one image, whatever pages they were found on. Unique across partitions, so kept apart.
    CREATE TABLE public_image_hashes (
      content_hash  bytea PRIMARY KEY,
      image_id      bigint NOT NULL
    );

    CREATE TABLE public_backlinks (
      image_id    bigint NOT NULL,
      image_url   text NOT NULL,
      backlink    text NOT NULL,
      domain      text NOT NULL,
      crawl_date  date,
      PRIMARY KEY (image_id, image_url, backlink)
    ) PARTITION BY HASH (image_id);
    ${partitions('public_backlinks')}

    -- Manifest entries already imported (sha1 of image source and backlink): what makes an import resumable.
    CREATE TABLE public_import_entries (
      entry_key    bytea PRIMARY KEY,
      image_id     bigint,
      imported_at  timestamptz NOT NULL DEFAULT now()
    );

    -- Images entering an index shard, in commit order: search workers apply what is new since their last look.
    CREATE TABLE public_index_log (
      seq       bigserial PRIMARY KEY,
      shard     integer NOT NULL,
      image_id  bigint NOT NULL
    );
    CREATE INDEX public_index_log_shard ON public_index_log (shard, seq);

    -- count(*) over 10M rows is a scan; image_count reads this row, kept in the inserting transaction.
    CREATE TABLE public_index_stats (
      id           integer PRIMARY KEY CHECK (id = 1),
      image_count  bigint NOT NULL
    );
    INSERT INTO public_index_stats (id, image_count) VALUES (1, 0);
  `,
};
