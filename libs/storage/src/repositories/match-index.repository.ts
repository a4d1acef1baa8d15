import type { Db, Queryable } from '..';
import type { CollectionRef } from './images.repository';

/**
 * Marks the narrow layout: one byte, then the words as little-endian uint16. The tag makes the narrow layout's length
 * odd, and the wide layout (rows written before it, and words of vocabularies past 65,536) is plain uint32, a multiple
 * of 4 bytes: the length alone says which layout a row has.
 */
const NARROW_WORDS_TAG = 2;
const NARROW_WORD_LIMIT = 0x10000;

/**
 * Visual words as stored (bytea) and back. Words of vocabularies up to 65,536 words (the default has 10,000) take 2
 * bytes each instead of 4: 2 kB instead of 4 kB for a 1000-keypoint image. Order and repeats are kept as given.
 */
export function encodeWords(words: Uint32Array): Buffer {
  if (!words.every((w) => w < NARROW_WORD_LIMIT)) return Buffer.from(words.buffer, words.byteOffset, words.byteLength);
  // Typed-array views are in the platform's byte order: little endian, as on every machine Loupe runs on.
  const narrow = Uint16Array.from(words);
  return Buffer.concat([Buffer.from([NARROW_WORDS_TAG]), Buffer.from(narrow.buffer, 0, narrow.byteLength)]);
}

export function decodeWords(stored: Buffer | Uint8Array): Uint32Array {
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  if (bytes.length % 2 === 1) {
    if (bytes[0] !== NARROW_WORDS_TAG) throw new Error(`Not stored visual words (tag ${bytes[0]})`);
    // Copies: Postgres buffers may be unaligned slices of a larger allocation, which typed-array views refuse.
    return Uint32Array.from(new Uint16Array(Uint8Array.from(bytes.subarray(1)).buffer));
  }
  if (bytes.length % 4 !== 0) throw new Error(`Not stored visual words (${bytes.length} bytes)`);
  return new Uint32Array(Uint8Array.from(bytes).buffer);
}

/**
 * Shards of a collection's search index when it is partitioned across processes (COLLECTION_SHARD_SETS): an image
 * belongs to shard `id mod 16`. Ids are drawn from one sequence, so every shard is an even sample of each collection.
 */
export const COLLECTION_INDEX_SHARDS = 16;

export function collectionShardOf(imagePk: number): number {
  return imagePk % COLLECTION_INDEX_SHARDS;
}

export interface IndexChange {
  seq: number;
  image_pk: number;
  op: 'add' | 'remove';
}

export interface IndexedImage {
  image_pk: number;
  filepath: string;
  words: Buffer;
  /** The whole-image difference hash as a signed 64-bit decimal, null for rows indexed without one. */
  global_hash: string | null;
  /** The colour set (`colourSet`) as a signed 64-bit decimal, null for rows indexed without one. */
  colour_set: string | null;
}

/** What an image is indexed with besides its words, each absent (NULL) for rows indexed before it was kept. */
export interface ImageSignatures {
  /** The whole-image difference hash. */
  globalHash?: bigint | null;
  /** The colour set (`colourSet`). */
  colourSet?: bigint | null;
  /** The colour shares as stored (`encodeColourShares`). */
  colourShares?: Uint8Array | null;
}

/** The persisted side of the matching index: visual words per image and the change log workers follow. */
export class MatchIndexRepository {
  constructor(private readonly db: Db) {}

  async saveWords(imagePk: number, vocabulary: string, words: Uint32Array, q: Queryable, signatures: ImageSignatures = {}): Promise<void> {
    const signed = (bits: bigint | null | undefined) => (bits == null ? null : BigInt.asIntN(64, bits).toString());
    const shares = signatures.colourShares ? Buffer.from(signatures.colourShares.buffer, signatures.colourShares.byteOffset, signatures.colourShares.byteLength) : null;
    await q.query(
      `INSERT INTO image_words (image_pk, vocabulary, words, global_hash, colour_set, colour_shares) VALUES ($1, $2, $3, $4::bigint, $5::bigint, $6)
       ON CONFLICT (image_pk) DO UPDATE
         SET vocabulary = EXCLUDED.vocabulary, words = EXCLUDED.words, global_hash = EXCLUDED.global_hash, colour_set = EXCLUDED.colour_set,
             colour_shares = EXCLUDED.colour_shares`,
      [imagePk, vocabulary, encodeWords(words), signed(signatures.globalHash), signed(signatures.colourSet), shares],
    );
  }

  /** The stored colour shares (`encodeColourShares`) of those of `imagePks` indexed with them. */
  async colourSharesOf(imagePks: readonly number[], q: Queryable = this.db): Promise<Map<number, Uint8Array>> {
    if (imagePks.length === 0) return new Map();
    const { rows } = await q.query<{ image_pk: string | number; colour_shares: Uint8Array }>(
      'SELECT image_pk, colour_shares FROM image_words WHERE image_pk = ANY($1::bigint[]) AND colour_shares IS NOT NULL',
      [imagePks],
    );
    return new Map(rows.map((row) => [Number(row.image_pk), row.colour_shares]));
  }

  /** Removes an image's words (it is no longer searchable); its row stays. */
  async deleteWords(imagePk: number, q: Queryable): Promise<void> {
    await q.query('DELETE FROM image_words WHERE image_pk = $1', [imagePk]);
  }

  /**
   * Logs that an image's words changed in place (a re-fingerprint): a remove then an add, so every worker's cached index
   * drops the old words and reads the new ones (or none, when the image is no longer searchable).
   */
  async logReindexed(imagePk: number, q: Queryable): Promise<void> {
    for (const op of ['remove', 'add']) {
      await q.query(
        `INSERT INTO index_log (account_id, service, image_pk, op) SELECT account_id, service, id, $2 FROM images WHERE id = $1`,
        [imagePk, op],
      );
    }
  }

  /** The newest change of a collection; 0 when it never changed. */
  async latestSeq(ref: CollectionRef): Promise<number> {
    const { rows } = await this.db.query<{ seq: number | null }>(
      'SELECT max(seq) AS seq FROM index_log WHERE account_id = $1 AND service = $2',
      [ref.accountId, ref.service],
    );
    return rows[0].seq ?? 0;
  }

  async changesSince(ref: CollectionRef, seq: number): Promise<IndexChange[]> {
    const { rows } = await this.db.query<IndexChange>(
      'SELECT seq, image_pk, op FROM index_log WHERE account_id = $1 AND service = $2 AND seq > $3 ORDER BY seq',
      [ref.accountId, ref.service, seq],
    );
    return rows;
  }

  /** Searchable images with their words: all of a collection, or the given ones. */
  async indexedImages(ref: CollectionRef, vocabulary: string, imagePks?: readonly number[]): Promise<IndexedImage[]> {
    const { rows } = await this.db.query<IndexedImage>(
      `SELECT i.id AS image_pk, i.filepath, w.words, w.global_hash::text AS global_hash, w.colour_set::text AS colour_set
         FROM images i JOIN image_words w ON w.image_pk = i.id
        WHERE i.account_id = $1 AND i.service = $2 AND i.searchable AND w.vocabulary = $3
          ${imagePks ? 'AND i.id = ANY($4::bigint[])' : ''}`,
      imagePks ? [ref.accountId, ref.service, vocabulary, imagePks] : [ref.accountId, ref.service, vocabulary],
    );
    return rows;
  }

  /**
   * One page of a collection's searchable images with their words, in id order from after `afterPk`: a large
   * collection is loaded page by page, so that its rows never sit in memory all at once next to the index they build.
   * With `shards`, only the images of those shards (`collectionShardOf`).
   */
  async indexedImagesPage(ref: CollectionRef, vocabulary: string, afterPk: number, limit: number, shards?: readonly number[]): Promise<IndexedImage[]> {
    const { rows } = await this.db.query<IndexedImage>(
      `SELECT i.id AS image_pk, i.filepath, w.words, w.global_hash::text AS global_hash, w.colour_set::text AS colour_set
         FROM images i JOIN image_words w ON w.image_pk = i.id
        WHERE i.account_id = $1 AND i.service = $2 AND i.searchable AND w.vocabulary = $3 AND i.id > $4
          ${shards ? `AND i.id % ${COLLECTION_INDEX_SHARDS} = ANY($6::bigint[])` : ''}
        ORDER BY i.id LIMIT $5`,
      shards ? [ref.accountId, ref.service, vocabulary, afterPk, limit, shards] : [ref.accountId, ref.service, vocabulary, afterPk, limit],
    );
    return rows;
  }

  /** Collections with at least `minImages` searchable indexed images: what a shard owner loads before taking jobs. */
  async largeCollections(minImages: number): Promise<CollectionRef[]> {
    const { rows } = await this.db.query<{ account_id: number; service: string }>(
      `SELECT i.account_id, i.service FROM images i JOIN image_words w ON w.image_pk = i.id
        WHERE i.searchable GROUP BY i.account_id, i.service HAVING count(*) >= $1 ORDER BY i.account_id, i.service`,
      [minImages],
    );
    return rows.map((r) => ({ accountId: Number(r.account_id), service: r.service }));
  }

  /**
   * A number that names this database for as long as it lives (drawn once, kept in maintenance_cursors): a snapshot
   * of a collection's index made from one database must never be replayed onto another that reuses its ids.
   */
  async databaseIdentity(): Promise<number> {
    await this.db.query(
      `INSERT INTO maintenance_cursors (name, value) VALUES ('database_identity', floor(random() * 9007199254740991)::bigint)
       ON CONFLICT (name) DO NOTHING`,
    );
    const { rows } = await this.db.query<{ value: number | string }>(`SELECT value FROM maintenance_cursors WHERE name = 'database_identity'`);
    return Number(rows[0].value);
  }

  async features(imagePks: readonly number[]): Promise<Map<number, Buffer>> {
    if (imagePks.length === 0) return new Map();
    const { rows } = await this.db.query<{ image_pk: number; features: Buffer }>(
      'SELECT image_pk, features FROM image_features WHERE image_pk = ANY($1::bigint[])',
      [imagePks],
    );
    return new Map(rows.map((r) => [r.image_pk, r.features]));
  }

  /**
   * Up to `limit` images (their ids after `afterPk`, in order) whose words come from another vocabulary than
   * `vocabulary`, with their stored features: what a vocabulary change re-quantises. (`<` or `>` rather than `<>`, which
   * no index serves: with none left, the look reads the vocabulary index, not the table.)
   */
  async staleWords(vocabulary: string, afterPk: number, limit: number): Promise<Array<{ id: number; features: Buffer }>> {
    const { rows } = await this.db.query<{ id: number | string; features: Buffer }>(
      `SELECT w.image_pk AS id, f.features FROM image_words w JOIN image_features f ON f.image_pk = w.image_pk
        WHERE (w.vocabulary < $1 OR w.vocabulary > $1) AND w.image_pk > $2 ORDER BY w.image_pk LIMIT $3`,
      [vocabulary, afterPk, limit],
    );
    return rows.map((r) => ({ id: Number(r.id), features: r.features }));
  }

  /**
   * Replaces an image's words of another vocabulary by `words` of `vocabulary`, and logs it re-indexed so that every
   * cached index reads them. Words already of `vocabulary` (a re-fingerprint got there first) are left alone.
   */
  async replaceStaleWords(imagePk: number, vocabulary: string, words: Uint32Array): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rowCount } = await tx.query('UPDATE image_words SET vocabulary = $2, words = $3 WHERE image_pk = $1 AND vocabulary <> $2', [
        imagePk,
        vocabulary,
        encodeWords(words),
      ]);
      if (!rowCount) return false;
      await this.logReindexed(imagePk, tx);
      return true;
    });
  }

  /** Images whose words are missing or from another vocabulary: what a reindex must quantise. */
  async staleImages(ref: CollectionRef, vocabulary: string): Promise<number[]> {
    const { rows } = await this.db.query<{ id: number }>(
      `SELECT i.id FROM images i LEFT JOIN image_words w ON w.image_pk = i.id
        WHERE i.account_id = $1 AND i.service = $2 AND i.searchable AND (w.image_pk IS NULL OR w.vocabulary <> $3)`,
      [ref.accountId, ref.service, vocabulary],
    );
    return rows.map((r) => r.id);
  }
}
