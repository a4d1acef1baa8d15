import type { Db, Queryable } from '..';
import { PUBLIC_INDEX_PARTITIONS } from '../migrations/005-public-index';
import { encodeWords } from './match-index.repository';

export { PUBLIC_INDEX_PARTITIONS };

export interface NewPublicImage {
  content_hash: Buffer;
  format: string;
  width: number;
  height: number;
  filesize: number;
  norm_width: number;
  norm_height: number;
  norm_blob_key: string;
  feature_count: number;
  features: Buffer;
  vocabulary: string;
  words: Buffer;
}

export interface PublicBacklink {
  image_url: string;
  backlink: string;
  domain: string;
  /** `YYYY-MM-DD`, or null when the manifest gave none. */
  crawl_date: string | null;
}

export interface PublicImageRow {
  id: number;
  format: string;
  width: number;
  height: number;
  filesize: number;
  norm_blob_key: string;
}

export interface ShardImageWords {
  id: number;
  words: Buffer;
}

/** Postgres error code of a unique violation: another importer committed the same bytes first. */
const UNIQUE_VIOLATION = '23505';

/** The shard of a row, from the partition Postgres put it in (`tableoid::regclass`, e.g. `public_images_p7`). */
function shardOfPartition(partition: string): number {
  return Number(/_p(\d+)$/.exec(partition)![1]);
}

function shardTable(shard: number): string {
  if (!Number.isInteger(shard) || shard < 0 || shard >= PUBLIC_INDEX_PARTITIONS) throw new RangeError(`no index shard ${shard}`);
  return `public_images_p${shard}`;
}

/**
 * The shared public index: images (hash-partitioned by id; partition s is search shard s), their backlinks, the
 * import bookkeeping that makes manifests resumable, and the per-shard change log search workers follow.
 */
export class PublicIndexRepository {
  constructor(private readonly db: Db) {}

  async imageCount(): Promise<number> {
    const { rows } = await this.db.query<{ image_count: number }>('SELECT image_count FROM public_index_stats WHERE id = 1');
    return Number(rows[0]?.image_count ?? 0);
  }

  /** Which of these manifest entry keys were imported already. */
  async importedEntries(keys: readonly Buffer[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const { rows } = await this.db.query<{ entry_key: Buffer }>('SELECT entry_key FROM public_import_entries WHERE entry_key = ANY($1::bytea[])', [keys]);
    return new Set(rows.map((r) => Buffer.from(r.entry_key).toString('hex')));
  }

  async imageIdByHash(contentHash: Buffer): Promise<number | null> {
    const { rows } = await this.db.query<{ image_id: number }>('SELECT image_id FROM public_image_hashes WHERE content_hash = $1', [contentHash]);
    return rows[0] ? Number(rows[0].image_id) : null;
  }

  /**
   * Adds a new image with its first backlink in one transaction (row, hash, backlink, entry marker, shard log,
   * count). Returns the image id, or the existing id when the same bytes were committed first by someone else.
   */
  async insertImage(image: NewPublicImage, backlink: PublicBacklink, entryKey: Buffer): Promise<{ id: number; created: boolean }> {
    try {
      return await this.db.transaction(async (tx) => {
        const { rows } = await tx.query<{ id: number; part: string }>(
          `INSERT INTO public_images (id, content_hash, format, width, height, filesize, norm_width, norm_height, norm_blob_key,
                                      feature_count, features, vocabulary, words)
           VALUES (nextval('public_images_id_seq'), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
           RETURNING id, tableoid::regclass::text AS part`,
          [image.content_hash, image.format, image.width, image.height, image.filesize, image.norm_width, image.norm_height,
            image.norm_blob_key, image.feature_count, image.features, image.vocabulary, image.words],
        );
        const id = Number(rows[0].id);
        const shard = shardOfPartition(rows[0].part);
        await tx.query('INSERT INTO public_image_hashes (content_hash, image_id) VALUES ($1, $2)', [image.content_hash, id]);
        await this.insertBacklink(tx, id, backlink, entryKey);
        await tx.query('INSERT INTO public_index_log (shard, image_id) VALUES ($1, $2)', [shard, id]);
        await tx.query('UPDATE public_index_stats SET image_count = image_count + 1 WHERE id = 1');
        return { id, created: true };
      });
    } catch (error) {
      if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
      const existing = await this.imageIdByHash(image.content_hash);
      if (existing === null) throw error;
      await this.addBacklink(existing, backlink, entryKey);
      return { id: existing, created: false };
    }
  }

  /** Another page showing an indexed image; re-adding the same one changes nothing. */
  async addBacklink(imageId: number, backlink: PublicBacklink, entryKey: Buffer): Promise<void> {
    await this.db.transaction((tx) => this.insertBacklink(tx, imageId, backlink, entryKey));
  }

  /** Marks a manifest entry done without an image (it could not be fetched or fingerprinted), so a resume skips it. */
  async markEntry(entryKey: Buffer): Promise<void> {
    await this.db.query('INSERT INTO public_import_entries (entry_key, image_id) VALUES ($1, NULL) ON CONFLICT DO NOTHING', [entryKey]);
  }

  private async insertBacklink(tx: Queryable, imageId: number, b: PublicBacklink, entryKey: Buffer): Promise<void> {
    await tx.query(
      `INSERT INTO public_backlinks (image_id, image_url, backlink, domain, crawl_date) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (image_id, image_url, backlink) DO UPDATE SET crawl_date = GREATEST(public_backlinks.crawl_date, EXCLUDED.crawl_date)`,
      [imageId, b.image_url, b.backlink, b.domain, b.crawl_date],
    );
    await tx.query('INSERT INTO public_import_entries (entry_key, image_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [entryKey, imageId]);
  }

  /** The newest change of the given shards; 0 when none changed. */
  async latestSeq(shards: readonly number[]): Promise<number> {
    const { rows } = await this.db.query<{ seq: number | null }>('SELECT max(seq) AS seq FROM public_index_log WHERE shard = ANY($1::int[])', [shards]);
    return Number(rows[0].seq ?? 0);
  }

  /** Images that entered the given shards after `seq`, in commit order. */
  async changesSince(shards: readonly number[], seq: number): Promise<Array<{ seq: number; shard: number; image_id: number }>> {
    const { rows } = await this.db.query<{ seq: number; shard: number; image_id: number }>(
      'SELECT seq, shard, image_id FROM public_index_log WHERE seq > $1 AND shard = ANY($2::int[]) ORDER BY seq',
      [seq, shards],
    );
    return rows.map((r) => ({ seq: Number(r.seq), shard: Number(r.shard), image_id: Number(r.image_id) }));
  }

  /**
   * Words of one shard's images (all, or the given ids), read from that partition only. `afterId` pages through
   * a large shard so a worker never holds more than one page of rows besides its index.
   */
  /** Up to `limit` images (after `afterId`) whose words come from another vocabulary, with their stored features. */
  async staleWords(vocabulary: string, afterId: number, limit: number): Promise<Array<{ id: number; features: Buffer }>> {
    const { rows } = await this.db.query<{ id: number | string; features: Buffer }>(
      // `<` or `>` rather than `<>`, so that the vocabulary index serves it (see the collections' staleWords).
      'SELECT id, features FROM public_images WHERE (vocabulary < $1 OR vocabulary > $1) AND id > $2 ORDER BY id LIMIT $3',
      [vocabulary, afterId, limit],
    );
    return rows.map((r) => ({ id: Number(r.id), features: r.features }));
  }

  /** Replaces an image's words of another vocabulary and logs it in its shard, so that the shard owners add it. */
  async replaceStaleWords(id: number, vocabulary: string, words: Uint32Array): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ part: string }>(
        'UPDATE public_images SET vocabulary = $2, words = $3 WHERE id = $1 AND vocabulary <> $2 RETURNING tableoid::regclass::text AS part',
        [id, vocabulary, encodeWords(words)],
      );
      if (rows.length === 0) return false;
      await tx.query('INSERT INTO public_index_log (shard, image_id) VALUES ($1, $2)', [shardOfPartition(rows[0].part), id]);
      return true;
    });
  }

  async shardWords(shard: number, vocabulary: string, options: { ids?: readonly number[]; afterId?: number; limit?: number } = {}): Promise<ShardImageWords[]> {
    const params: unknown[] = [vocabulary];
    let where = 'vocabulary = $1';
    if (options.ids) {
      params.push(options.ids);
      where += ` AND id = ANY($${params.length}::bigint[])`;
    }
    if (options.afterId !== undefined) {
      params.push(options.afterId);
      where += ` AND id > $${params.length}`;
    }
    const limit = options.limit ? `LIMIT ${Math.floor(options.limit)}` : '';
    const { rows } = await this.db.query<ShardImageWords>(`SELECT id, words FROM ${shardTable(shard)} WHERE ${where} ORDER BY id ${limit}`, params);
    return rows.map((r) => ({ id: Number(r.id), words: r.words }));
  }

  async features(ids: readonly number[]): Promise<Map<number, Buffer>> {
    if (ids.length === 0) return new Map();
    const { rows } = await this.db.query<{ id: number; features: Buffer }>('SELECT id, features FROM public_images WHERE id = ANY($1::bigint[])', [ids]);
    return new Map(rows.map((r) => [Number(r.id), r.features]));
  }

  async images(ids: readonly number[]): Promise<Map<number, PublicImageRow>> {
    if (ids.length === 0) return new Map();
    const { rows } = await this.db.query<PublicImageRow>(
      'SELECT id, format, width, height, filesize, norm_blob_key FROM public_images WHERE id = ANY($1::bigint[])',
      [ids],
    );
    return new Map(rows.map((r) => [Number(r.id), { ...r, id: Number(r.id) }]));
  }

  async backlinks(ids: readonly number[]): Promise<Map<number, PublicBacklink[]>> {
    const out = new Map<number, PublicBacklink[]>();
    if (ids.length === 0) return out;
    const { rows } = await this.db.query<PublicBacklink & { image_id: number; crawl: string | null }>(
      `SELECT image_id, image_url, backlink, domain, to_char(crawl_date, 'YYYY-MM-DD') AS crawl
         FROM public_backlinks WHERE image_id = ANY($1::bigint[]) ORDER BY image_id, crawl_date DESC NULLS LAST, backlink`,
      [ids],
    );
    for (const r of rows) {
      const id = Number(r.image_id);
      if (!out.has(id)) out.set(id, []);
      out.get(id)!.push({ image_url: r.image_url, backlink: r.backlink, domain: r.domain, crawl_date: r.crawl });
    }
    return out;
  }
}
