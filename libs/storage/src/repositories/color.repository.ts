import type { Db, Queryable } from '..';
import { compileMetadata, MetadataQuery } from './color-metadata';
import type { CollectionRef } from './images.repository';

/** One stored palette color: sRGB, percent of the counted area, class names (docs/protocol.md §8). */
export interface StoredPaletteColor {
  rgb: [number, number, number];
  weight: number;
  class: string;
}

export interface PaletteRow {
  id: number;
  filepath: string;
  palette: StoredPaletteColor[];
}

export interface MetadataMatch {
  score_metadata: number;
  metadata: Record<string, unknown>;
}

export interface MetadataKeyCount {
  key: string;
  type: string;
  count: number;
}

/** Which images a count or an extraction covers; absent members do not restrict. */
export interface ImageScope {
  ids?: readonly number[];
  metadata?: MetadataQuery;
  /** With `metadata`: the least score_metadata an image needs. */
  minScoreMetadata?: number;
}

function toNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

/** Palettes and keyword metadata of the color service's collections. */
export class ColorRepository {
  constructor(private readonly db: Db) {}

  async insertPalette(
    q: Queryable,
    imagePk: number,
    palette: readonly StoredPaletteColor[],
    options: { ignoreBackground: boolean; ignoreInteriorBackground: boolean },
  ): Promise<void> {
    await q.query(
      `INSERT INTO image_palettes (image_pk, palette, ignore_background, ignore_interior_background) VALUES ($1, $2::jsonb, $3, $4)`,
      [imagePk, JSON.stringify(palette), options.ignoreBackground, options.ignoreInteriorBackground],
    );
  }

  /**
   * A token that changes whenever the collection's set of images changes: every insert (also a replacing update)
   * raises max(id), every delete without an insert lowers the count. Search caches compare it before reuse.
   */
  async collectionVersion(ref: CollectionRef): Promise<string> {
    const { rows } = await this.db.query<{ n: number; m: number }>(
      'SELECT count(*)::int AS n, coalesce(max(id), 0)::bigint AS m FROM images WHERE account_id = $1 AND service = $2',
      [ref.accountId, ref.service],
    );
    return `${rows[0].n}:${rows[0].m}`;
  }

  async loadPalettes(ref: CollectionRef, ids?: readonly number[]): Promise<PaletteRow[]> {
    const { rows } = await this.db.query<PaletteRow>(
      `SELECT i.id, i.filepath, p.palette FROM images i JOIN image_palettes p ON p.image_pk = i.id
       WHERE i.account_id = $1 AND i.service = $2 ${ids ? 'AND i.id = ANY($3::bigint[])' : ''} ORDER BY i.id`,
      ids ? [ref.accountId, ref.service, ids] : [ref.accountId, ref.service],
    );
    return rows.map((r) => ({ ...r, id: toNumber(r.id) }));
  }

  async palettesByPaths(ref: CollectionRef, filepaths: readonly string[]): Promise<Map<string, PaletteRow>> {
    if (filepaths.length === 0) return new Map();
    const { rows } = await this.db.query<PaletteRow>(
      `SELECT i.id, i.filepath, p.palette FROM images i JOIN image_palettes p ON p.image_pk = i.id
       WHERE i.account_id = $1 AND i.service = $2 AND i.filepath = ANY($3::text[])`,
      [ref.accountId, ref.service, filepaths],
    );
    return new Map(rows.map((r) => [r.filepath, { ...r, id: toNumber(r.id) }]));
  }

  /**
   * Images that satisfy a metadata query (all images when it is absent; only `ids` when given), with their
   * score_metadata and stored metadata. The filter runs in Postgres; only matching rows come back.
   */
  async matchMetadata(
    ref: CollectionRef,
    query: MetadataQuery | undefined,
    minScore = 0,
    ids?: readonly number[],
  ): Promise<Map<number, MetadataMatch>> {
    const compiled = query ? compileMetadata(query, 'metadata', 3) : undefined;
    const params: unknown[] = [ref.accountId, ref.service, ...(compiled?.params ?? [])];
    let where = compiled ? `AND ${compiled.where}` : '';
    if (compiled && minScore > 0) {
      params.push(minScore);
      where += ` AND ${compiled.score} >= $${params.length}`;
    }
    if (ids) {
      params.push(ids);
      where += ` AND id = ANY($${params.length}::bigint[])`;
    }
    const { rows } = await this.db.query<{ id: number; score_metadata: number; metadata: Record<string, unknown> }>(
      `SELECT id, ${compiled ? compiled.score : '100.0'}::float8 AS score_metadata, metadata
       FROM images WHERE account_id = $1 AND service = $2 ${where}`,
      params,
    );
    return new Map(rows.map((r) => [toNumber(r.id), { score_metadata: toNumber(r.score_metadata), metadata: r.metadata }]));
  }

  /** Image ids of a scope, in insertion order. */
  async scopeIds(ref: CollectionRef, scope: ImageScope): Promise<number[]> {
    const { where, params } = this.scopeSql(ref, scope);
    const { rows } = await this.db.query<{ id: number }>(`SELECT id FROM images WHERE ${where} ORDER BY id`, params);
    return rows.map((r) => toNumber(r.id));
  }

  /** For each query, how many images of the scope satisfy it; one pass over the scope with a FILTER per query. */
  async countMetadata(ref: CollectionRef, queries: readonly MetadataQuery[], scope: ImageScope): Promise<number[]> {
    if (queries.length === 0) return [];
    const { where, params } = this.scopeSql(ref, scope);
    const counts = queries.map((query) => {
      const compiled = compileMetadata(query, 'metadata', params.length + 1);
      params.push(...compiled.params);
      return `count(*) FILTER (WHERE ${compiled.where})::int`;
    });
    const { rows } = await this.db.query<Record<string, number>>(
      `SELECT ${counts.map((c, i) => `${c} AS c${i}`).join(', ')} FROM images WHERE ${where}`,
      params,
    );
    return queries.map((_, i) => toNumber(rows[0][`c${i}`]));
  }

  /** Replaces an image's metadata; false when the path is not in the collection. */
  async updateMetadata(ref: CollectionRef, filepath: string, metadata: Record<string, unknown>, q: Queryable = this.db): Promise<boolean> {
    const { rowCount } = await q.query(
      'UPDATE images SET metadata = $4::jsonb WHERE account_id = $1 AND service = $2 AND filepath = $3',
      [ref.accountId, ref.service, filepath, JSON.stringify(metadata)],
    );
    return rowCount > 0;
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  /** The metadata keys of a collection with their types and how many images carry each (`returnable`: action return only). */
  async metadataKeys(ref: CollectionRef, options: { returnable: boolean }): Promise<MetadataKeyCount[]> {
    const { rows } = await this.db.query<MetadataKeyCount>(
      `SELECT e.key, CASE WHEN e.key = 'keywords' THEN 'string' ELSE coalesce(e.value->>'type', 'string') END AS type,
              count(*)::int AS count
       FROM images i, jsonb_each(i.metadata) e
       WHERE i.account_id = $1 AND i.service = $2 AND ($3 = false OR (jsonb_typeof(e.value) = 'object' AND e.value->>'action' = 'return'))
       GROUP BY 1, 2 ORDER BY 1, 2`,
      [ref.accountId, ref.service, options.returnable],
    );
    return rows.map((r) => ({ ...r, count: toNumber(r.count) }));
  }

  /** Every keyword of a collection and how many images carry it, most frequent first. */
  async keywordCounts(ref: CollectionRef): Promise<Array<{ keyword: string; count: number }>> {
    const { rows } = await this.db.query<{ keyword: string; count: number }>(
      `SELECT k AS keyword, count(*)::int AS count
       FROM images i, jsonb_array_elements_text(CASE WHEN jsonb_typeof(i.metadata->'keywords') = 'array' THEN i.metadata->'keywords' ELSE '[]'::jsonb END) k
       WHERE i.account_id = $1 AND i.service = $2 GROUP BY k ORDER BY count(*) DESC, k`,
      [ref.accountId, ref.service],
    );
    return rows.map((r) => ({ ...r, count: toNumber(r.count) }));
  }

  private scopeSql(ref: CollectionRef, scope: ImageScope): { where: string; params: unknown[] } {
    const params: unknown[] = [ref.accountId, ref.service];
    let where = 'account_id = $1 AND service = $2';
    if (scope.ids) {
      params.push(scope.ids);
      where += ` AND id = ANY($${params.length}::bigint[])`;
    }
    if (scope.metadata) {
      const compiled = compileMetadata(scope.metadata, 'metadata', params.length + 1);
      params.push(...compiled.params);
      where += ` AND ${compiled.where}`;
      if (scope.minScoreMetadata && scope.minScoreMetadata > 0) {
        params.push(scope.minScoreMetadata);
        where += ` AND ${compiled.score} >= $${params.length}`;
      }
    }
    return { where, params };
  }
}
