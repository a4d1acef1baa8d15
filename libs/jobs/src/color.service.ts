import {
  colorPresence, combinePalettes, PaletteEntry, prepareQuery, PreparedQuery, rankPalettes, WeightedColor,
} from '@loupe/color';
import type { BlobStore, CollectionRef, ColorRepository, ImageScope, MetadataMatch } from '@loupe/storage';
import {
  ColorCollectionPayload, ColorCollectionResult, ColorImagesPayload, ColorImagesResult, ColorMetadataPayload,
  ColorMetadataResult, ColorPresenceCount, ColorQueryColor, ColorSearchHit, ColorSearchPayload, ColorSearchResult, JsonRgb,
} from './color-contracts';
import { compareByMetadata, returnedMetadata } from './color-metadata';
import {
  CachedPalette, notInCollectionMessage, PaletteCache, paletteOptions, palettesOfStaged, toStoredPalette,
} from './color-palettes';
import { pathPredicate } from './match/path-filter';
import { Stopwatch } from './stopwatch';

/**
 * With a colors scope and no min_score, an image belongs to the scope when it scores at least this. 50 keeps the
 * images where at least half of the query's color mass finds a close match (a royal-blue image for a #1f4e9c query
 * scores ~58, a red one < 6), rather than the whole collection, which a 0 threshold would mean.
 */
export const COLOR_SCOPE_DEFAULT_MIN_SCORE = 50;

/** Scores are shown with two decimals, like weights. */
function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function toWeighted(colors: readonly ColorQueryColor[]): WeightedColor[] {
  return colors.map((c) => ({ rgb: c.rgb, weight: c.weight }));
}

function presenceCounts(palettes: readonly (readonly PaletteEntry[])[], colors: readonly JsonRgb[]): ColorPresenceCount[] {
  return colors.map((color) => {
    let partial = 0;
    let full = 0;
    for (const palette of palettes) {
      const presence = colorPresence(palette, color);
      if (presence.partial) partial++;
      if (presence.full) full++;
    }
    return { partial, full };
  });
}

/** The color service's read jobs (searches, extractions, counts) and its metadata write. */
export class ColorService {
  private readonly cache: PaletteCache;

  constructor(
    private readonly colors: ColorRepository,
    private readonly blobs: BlobStore,
    cache?: PaletteCache,
  ) {
    this.cache = cache ?? new PaletteCache(colors);
  }

  /** color_search (docs/protocol.md §7). */
  async search(payload: ColorSearchPayload): Promise<ColorSearchResult> {
    const ref: CollectionRef = { accountId: payload.account_id, service: payload.service };
    const resize = new Stopwatch();
    const searchWatch = new Stopwatch();
    const empty = (errors: string[]): ColorSearchResult => ({
      errors, hits: [], total_results: 0, total_filtered_results: 0, time_resize: resize.elapsed, time_search: searchWatch.elapsed,
    });

    let query: PreparedQuery | undefined;
    if (payload.colors) query = prepareQuery(toWeighted(payload.colors));
    if (payload.image) {
      const staged = await palettesOfStaged(this.blobs, [payload.image], paletteOptions(payload), { resize, work: searchWatch });
      if (staged.errors.length > 0) return empty(staged.errors);
      query = prepareQuery(staged.palettes[0].map((e) => ({ rgb: e.rgb, weight: e.weight })));
    }
    searchWatch.start();
    if (payload.filepath !== undefined) {
      const row = (await this.colors.palettesByPaths(ref, [payload.filepath])).get(payload.filepath);
      if (!row) return empty([notInCollectionMessage(payload.filepath)]);
      query = prepareQuery(row.palette.map((e) => ({ rgb: e.rgb, weight: e.weight })));
    }

    const collection = await this.cache.get(ref);
    const matches = payload.metadata ? await this.colors.matchMetadata(ref, payload.metadata) : undefined;
    // The same filter syntax as the matching services (README "name_filter and path_filter").
    const allowed = pathPredicate(payload);
    const considered = matches ? collection.palettes.filter((p) => matches.has(p.id)) : collection.palettes;
    const candidates = allowed ? considered.filter((p) => allowed(p.filepath)) : considered;

    const sortsByMetadata = payload.sort_metadata || payload.return_metadata.some((k) => k.sort);
    const take = payload.limit > 0 && !sortsByMetadata ? payload.offset + payload.limit : 0;
    let ranked: Array<{ palette: CachedPalette; score?: number; scoreMetadata: number }>;
    let filtered: number;
    if (query) {
      const result = rankPalettes(query, candidates.map((c) => c.prepared), { minScore: payload.min_score, take });
      ranked = result.hits.map((h) => ({ palette: candidates[h.index], score: h.score, scoreMetadata: matches?.get(candidates[h.index].id)?.score_metadata ?? 100 }));
      filtered = result.matched;
    } else {
      // A metadata-only search: min_score applies to the metadata score.
      ranked = candidates
        .map((palette) => ({ palette, scoreMetadata: matches?.get(palette.id)?.score_metadata ?? 100 }))
        .filter((r) => r.scoreMetadata >= payload.min_score);
      filtered = ranked.length;
    }

    let metadataById: Map<number, MetadataMatch> | undefined = matches;
    if (payload.with_metadata && !metadataById) {
      // Without a filter, metadata is read only for what is shown, unless the order depends on it.
      const ids = sortsByMetadata ? undefined : ranked.slice(payload.offset, payload.limit > 0 ? payload.offset + payload.limit : undefined).map((r) => r.palette.id);
      metadataById = await this.colors.matchMetadata(ref, undefined, 0, ids);
    }
    const stored = (id: number) => metadataById?.get(id)?.metadata ?? {};
    if (sortsByMetadata || !query) {
      ranked.sort((a, b) => {
        const byMetadataScore = payload.sort_metadata || !query ? b.scoreMetadata - a.scoreMetadata : 0;
        return (
          byMetadataScore ||
          compareByMetadata(stored(a.palette.id), stored(b.palette.id), payload.return_metadata) ||
          (b.score ?? 0) - (a.score ?? 0) ||
          a.palette.id - b.palette.id
        );
      });
    }
    const page = ranked.slice(payload.offset, payload.limit > 0 ? payload.offset + payload.limit : undefined);
    const hits: ColorSearchHit[] = page.map((r) => {
      if (!payload.with_metadata) return { filepath: r.palette.filepath, score: round2(r.score ?? 0) };
      const hit: ColorSearchHit = { filepath: r.palette.filepath };
      if (r.score !== undefined) hit.score = round2(r.score);
      hit.metadata = returnedMetadata(stored(r.palette.id), payload.return_metadata);
      hit.score_metadata = round2(r.scoreMetadata);
      return hit;
    });
    searchWatch.stop();
    return {
      errors: [],
      hits,
      total_results: considered.length,
      total_filtered_results: filtered,
      time_resize: resize.elapsed,
      time_search: searchWatch.elapsed,
    };
  }

  /** extract_image_colors and count_image_colors (docs/protocol.md §7). */
  async images(payload: ColorImagesPayload): Promise<ColorImagesResult> {
    const resize = new Stopwatch();
    const work = new Stopwatch();
    const { palettes, errors } = await palettesOfStaged(this.blobs, payload.images, paletteOptions(payload, payload.target_number_colors), { resize, work });
    work.start();
    const result: ColorImagesResult = { errors, time_resize: 0, time_work: 0 };
    if (palettes.length > 0) {
      if (payload.op === 'extract') result.palette = toStoredPalette(combinePalettes(palettes, payload.limit));
      else result.counts = presenceCounts(palettes, payload.count_colors ?? []);
    }
    work.stop();
    return { ...result, time_resize: resize.elapsed, time_work: work.elapsed };
  }

  /** extract_collection_colors, count_collection_colors and count_metadata over a scope (docs/protocol.md §7). */
  async collection(payload: ColorCollectionPayload): Promise<ColorCollectionResult> {
    const ref: CollectionRef = { accountId: payload.account_id, service: payload.service };
    const watch = new Stopwatch().start();
    const { palettes, errors, dbScope } = await this.resolveScope(ref, payload);
    const result: ColorCollectionResult = { errors, time_work: 0 };
    if (payload.op === 'extract') {
      result.palette = toStoredPalette(combinePalettes(palettes.map((p) => p.palette.map(toEntry)), payload.limit ?? 0));
    } else if (payload.op === 'count_colors') {
      result.counts = presenceCounts(palettes.map((p) => p.palette.map(toEntry)), payload.count_colors ?? []);
    } else {
      result.metadata_counts = await this.colors.countMetadata(ref, payload.count_metadata ?? [], dbScope);
    }
    result.time_work = watch.stop();
    return result;
  }

  /** update_metadata: each path's metadata replaced in one transaction; absent paths are reported by the caller. */
  async updateMetadata(payload: ColorMetadataPayload): Promise<ColorMetadataResult> {
    const ref: CollectionRef = { accountId: payload.account_id, service: payload.service };
    const updated: string[] = [];
    await this.colors.transaction(async (tx) => {
      for (const u of payload.updates) if (await this.colors.updateMetadata(ref, u.filepath, u.metadata, tx)) updated.push(u.filepath);
    });
    return { updated };
  }

  private async resolveScope(
    ref: CollectionRef,
    payload: ColorCollectionPayload,
  ): Promise<{ palettes: CachedPalette[]; errors: string[]; dbScope: ImageScope }> {
    const scope = payload.scope;
    const collection = await this.cache.get(ref);
    if (scope.filepaths) {
      const byPath = new Map(collection.palettes.map((p) => [p.filepath, p]));
      const found = scope.filepaths.filter((f) => byPath.has(f)).map((f) => byPath.get(f) as CachedPalette);
      const errors = scope.filepaths.filter((f) => !byPath.has(f)).map(notInCollectionMessage);
      return { palettes: found, errors, dbScope: { ids: found.map((p) => p.id) } };
    }
    if (scope.metadata) {
      const dbScope: ImageScope = { metadata: scope.metadata, minScoreMetadata: scope.min_score };
      if (payload.op === 'count_metadata') return { palettes: [], errors: [], dbScope };
      const ids = new Set(await this.colors.scopeIds(ref, dbScope));
      return { palettes: collection.palettes.filter((p) => ids.has(p.id)), errors: [], dbScope };
    }
    if (scope.colors) {
      const ranked = rankPalettes(prepareQuery(toWeighted(scope.colors)), collection.palettes.map((p) => p.prepared), {
        minScore: scope.min_score ?? COLOR_SCOPE_DEFAULT_MIN_SCORE,
        take: 0,
      });
      const palettes = ranked.hits.map((h) => collection.palettes[h.index]);
      return { palettes, errors: [], dbScope: { ids: palettes.map((p) => p.id) } };
    }
    return { palettes: collection.palettes, errors: [], dbScope: {} };
  }
}

function toEntry(color: { rgb: JsonRgb; weight: number; class: string }): PaletteEntry {
  return { rgb: color.rgb, weight: color.weight, class: color.class };
}
