import type { Db, Queryable } from '..';
import type { CollectionRef } from './images.repository';

/** A collection image's label metadata (docs/protocol.md §8) with the image's own identifier. */
export interface WineLabelRow {
  filepath: string;
  image_id: string | null;
  metadata: Record<string, unknown>;
}

/** Label metadata of the wine service's collection images, one row per image, deleted with it. */
export class WineLabelRepository {
  constructor(private readonly db: Db) {}

  async insert(q: Queryable, imagePk: number, metadata: Record<string, unknown>): Promise<void> {
    await q.query('INSERT INTO wine_labels (image_pk, metadata) VALUES ($1, $2::jsonb)', [imagePk, JSON.stringify(metadata)]);
  }

  /** Label rows of the given paths, keyed by filepath; paths without a row (or without an image) are absent. */
  async byPaths(ref: CollectionRef, filepaths: readonly string[]): Promise<Map<string, WineLabelRow>> {
    if (filepaths.length === 0) return new Map();
    const { rows } = await this.db.query<WineLabelRow>(
      `SELECT i.filepath, i.image_id, w.metadata FROM images i JOIN wine_labels w ON w.image_pk = i.id
       WHERE i.account_id = $1 AND i.service = $2 AND i.filepath = ANY($3::text[])`,
      [ref.accountId, ref.service, filepaths],
    );
    return new Map(rows.map((r) => [r.filepath, r]));
  }

  /** Every label's path and text tokens in a collection: the text side of a search when the image side finds nothing. */
  async allTokens(ref: CollectionRef): Promise<Array<{ filepath: string; text_tokens: string[] }>> {
    const { rows } = await this.db.query<{ filepath: string; text_tokens: string[] | null }>(
      `SELECT i.filepath, w.metadata->'text_tokens' AS text_tokens FROM images i JOIN wine_labels w ON w.image_pk = i.id
       WHERE i.account_id = $1 AND i.service = $2 ORDER BY i.id`,
      [ref.accountId, ref.service],
    );
    return rows.map((r) => ({ filepath: r.filepath, text_tokens: r.text_tokens ?? [] }));
  }
}
