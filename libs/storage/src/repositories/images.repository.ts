import type { Db, Queryable } from '..';

/** A collection is one service's images of one account. */
export interface CollectionRef {
  accountId: number;
  service: string;
}

export interface ImageRow {
  id: number;
  filepath: string;
  image_id: string | null;
  format: string;
  width: number;
  height: number;
  norm_width: number;
  norm_height: number;
  blob_key: string;
  norm_blob_key: string;
  fingerprint_health: number;
  searchable: boolean;
  unsearchable_reason: string | null;
  metadata: Record<string, unknown>;
  ingest_token: string | null;
  created_at: Date | string;
}

export type NewImage = Omit<ImageRow, 'id' | 'created_at'>;

const IMAGE_COLUMNS = `id, filepath, image_id, format, width, height, norm_width, norm_height, blob_key, norm_blob_key,
  fingerprint_health, searchable, unsearchable_reason, metadata, ingest_token, created_at`;

/** Collection images and their features. Writes that belong together take a transaction handle. */
export class ImageRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  /** Rows for the given paths, keyed by filepath (absent paths are simply not in the map). */
  async findByPaths(ref: CollectionRef, filepaths: readonly string[], q: Queryable = this.db): Promise<Map<string, ImageRow>> {
    if (filepaths.length === 0) return new Map();
    const { rows } = await q.query<ImageRow>(
      `SELECT ${IMAGE_COLUMNS} FROM images WHERE account_id = $1 AND service = $2 AND filepath = ANY($3::text[])`,
      [ref.accountId, ref.service, filepaths],
    );
    return new Map(rows.map((r) => [r.filepath, r]));
  }

  async insert(ref: CollectionRef, image: NewImage, features: { count: number; data: Buffer }, q: Queryable): Promise<number> {
    const { rows } = await q.query<{ id: number }>(
      `INSERT INTO images (account_id, service, filepath, image_id, format, width, height, norm_width, norm_height,
                           blob_key, norm_blob_key, fingerprint_health, searchable, unsearchable_reason, metadata, ingest_token)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::jsonb, $16)
       RETURNING id`,
      [
        ref.accountId, ref.service, image.filepath, image.image_id, image.format, image.width, image.height,
        image.norm_width, image.norm_height, image.blob_key, image.norm_blob_key, image.fingerprint_health,
        image.searchable, image.unsearchable_reason, JSON.stringify(image.metadata), image.ingest_token,
      ],
    );
    const id = rows[0].id;
    await q.query('INSERT INTO image_features (image_pk, feature_count, features) VALUES ($1, $2, $3)', [id, features.count, features.data]);
    return id;
  }

  /** Deletes the paths that exist; returns the deleted rows so their blobs can be removed after commit. */
  async deleteByPaths(ref: CollectionRef, filepaths: readonly string[], q: Queryable = this.db): Promise<ImageRow[]> {
    if (filepaths.length === 0) return [];
    const { rows } = await q.query<ImageRow>(
      `DELETE FROM images WHERE account_id = $1 AND service = $2 AND filepath = ANY($3::text[]) RETURNING ${IMAGE_COLUMNS}`,
      [ref.accountId, ref.service, filepaths],
    );
    return rows;
  }

  /** Filepaths in insertion order; limit 0 means all. */
  async listPaths(ref: CollectionRef, offset: number, limit: number): Promise<string[]> {
    const { rows } = await this.db.query<{ filepath: string }>(
      `SELECT filepath FROM images WHERE account_id = $1 AND service = $2 ORDER BY id
       OFFSET $3 ${limit > 0 ? 'LIMIT $4' : ''}`,
      limit > 0 ? [ref.accountId, ref.service, offset, limit] : [ref.accountId, ref.service, offset],
    );
    return rows.map((r) => r.filepath);
  }

  async count(ref: CollectionRef): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM images WHERE account_id = $1 AND service = $2',
      [ref.accountId, ref.service],
    );
    return rows[0].n;
  }

  /** Replaces an image's features after a re-fingerprint (a new extractor version, or a repaired image). */
  async replaceFeatures(
    imagePk: number,
    update: { count: number; data: Buffer; health: number; searchable: boolean; reason: string | null },
    q: Queryable = this.db,
  ): Promise<void> {
    await q.query(
      'UPDATE images SET fingerprint_health = $2, searchable = $3, unsearchable_reason = $4 WHERE id = $1',
      [imagePk, update.health, update.searchable, update.reason],
    );
    await q.query(
      `INSERT INTO image_features (image_pk, feature_count, features) VALUES ($1, $2, $3)
       ON CONFLICT (image_pk) DO UPDATE SET feature_count = EXCLUDED.feature_count, features = EXCLUDED.features`,
      [imagePk, update.count, update.data],
    );
  }

  /**
   * The blob keys (original, normalised) of up to `limit` rows of a collection, in filepath order after `afterPath`
   * (null: from the first), and the last of their paths (null when none were left): a collection's referenced blobs,
   * page by page along its (account, service, filepath) index.
   */
  async blobKeysPage(ref: CollectionRef, afterPath: string | null, limit: number): Promise<{ keys: string[]; lastPath: string | null }> {
    const { rows } = await this.db.query<{ filepath: string; blob_key: string; norm_blob_key: string }>(
      `SELECT filepath, blob_key, norm_blob_key FROM images
        WHERE account_id = $1 AND service = $2 AND ($3::text IS NULL OR filepath > $3)
        ORDER BY filepath LIMIT $4`,
      [ref.accountId, ref.service, afterPath, limit],
    );
    return { keys: rows.flatMap((r) => [r.blob_key, r.norm_blob_key]), lastPath: rows.at(-1)?.filepath ?? null };
  }

  /** Images per service across all accounts, for the index-size metric. */
  async countsByService(): Promise<Array<{ service: string; images: number }>> {
    const { rows } = await this.db.query<{ service: string; images: number }>('SELECT service, count(*)::int AS images FROM images GROUP BY service ORDER BY service');
    return rows;
  }

  async features(imagePk: number): Promise<Buffer | null> {
    const { rows } = await this.db.query<{ features: Buffer | Uint8Array }>('SELECT features FROM image_features WHERE image_pk = $1', [imagePk]);
    return rows[0] ? Buffer.from(rows[0].features) : null;
  }
}
