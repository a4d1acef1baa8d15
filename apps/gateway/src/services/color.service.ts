import { classifyColor, formatColor } from '@loupe/color';
import { ParamError, Params, Stats, statusFor } from '@loupe/envelope';
import {
  ColorCollectionPayload, ColorCollectionResult, ColorImagesPayload, ColorImagesResult, ColorMetadataPayload,
  ColorMetadataResult, ColorPresenceCount, ColorScope, ColorSearchPayload, ColorSearchResult, INGEST_POLICIES, JobKind, Stopwatch,
} from '@loupe/jobs';
import type { JobQueue } from '@loupe/queue';
import type { ColorRepository, ImageRepository, StoredPaletteColor } from '@loupe/storage';
import { collectionRef, CollectionService, missingMessage, readGroup, writeGroup } from './collection.service';
import {
  GivenColor, readBackground, readColorFormat, readColorQuery, readCountColors, readMetadataQuery, readOptionalMetadataQuery,
  readReturnMetadata, readStoredMetadata,
} from './color-params';
import { ImageInputs, refuseBadPath } from './image-inputs';
import type { OperationContext, OperationOutcome, OperationTable } from './operation';
import { releaseStaged } from './staging';
import { deadlineOf, downloadScope, remaining } from './deadline';
import { readPathFilters } from './path-filters';

/** Specification 4.2: results per search unless `limit` says otherwise. */
export const DEFAULT_SEARCH_LIMIT = 10;
/**
 * Default `min_score` of a color search by image, path, URL or colors (issue 14): a teal query listed an unrelated
 * purple image at 2.99 when the default was 0. On the color benchmark (tools/bench/color, docs/benchmarks.md) palettes
 * with no color within ΔE 20 of the query score p50 6.5 (max 29), while palettes holding a one-color query's color on
 * a quarter of their area score at least 18.7 and planted answers at least 89: 15 hides 89.5 % of the unrelated hits
 * and keeps every related one. `min_score=0` still lists everything.
 */
export const DEFAULT_COLOR_MIN_SCORE = 15;
/** Specification 4.3, 4.4: colors returned by extractions unless `limit` says otherwise. */
export const DEFAULT_EXTRACT_LIMIT = 32;



function extractedItems(palette: readonly StoredPaletteColor[], form: 'rgb' | 'hex'): unknown[] {
  return palette.map((c, i) => ({ color: formatColor(c.rgb, form), rank: i + 1, class: c.class, weight: c.weight }));
}

function countedItems(colors: readonly GivenColor[], counts: readonly ColorPresenceCount[]): unknown[] {
  return colors.map((c, i) => ({
    color: formatColor(c.rgb, c.form),
    num_images_partial_area: counts[i]?.partial ?? 0,
    num_images_full_area: counts[i]?.full ?? 0,
    class: classifyColor(c.rgb),
  }));
}

/**
 * The color service (specification 2.6-2.8, 4.2-4.6, 4.10, 4.13 and compatibility.md): reads the request, stages
 * query images, queues the work (searches, extractions and counts as reads, updates as writes) and shapes answers.
 */
export class ColorOperations {
  constructor(
    private readonly collection: CollectionService,
    private readonly queue: JobQueue,
    private readonly inputs: ImageInputs,
    private readonly images: ImageRepository,
    private readonly colors: ColorRepository,
  ) {}

  table(): OperationTable {
    return {
      color_search: (ctx) => this.search(ctx),
      extract_image_colors: (ctx) => this.extractImageColors(ctx),
      count_image_colors: (ctx) => this.countImageColors(ctx),
      extract_collection_colors: (ctx) => this.collectionColors(ctx, 'extract'),
      count_collection_colors: (ctx) => this.collectionColors(ctx, 'count_colors'),
      count_metadata: (ctx) => this.countMetadata(ctx),
      // compatibility.md "Color add": both MulticolorEngine clients fill a collection with add, never update.
      add: (ctx) => this.update(ctx, 'time_add'),
      update: (ctx) => this.update(ctx, 'time_update'),
      update_metadata: (ctx) => this.updateMetadata(ctx),
      get_metadata: (ctx) => this.getMetadata(ctx),
      get_search_metadata: (ctx) => this.metadataKeys(ctx, false),
      get_return_metadata: (ctx) => this.metadataKeys(ctx, true),
      // Specification 2.8: the color service shows the fingerprint field as 0 for every file.
      get_info: (ctx) => this.collection.getInfo(ctx, { reportFingerprint: false }),
      delete: (ctx) => this.collection.delete(ctx),
      list: (ctx) => this.collection.list(ctx),
      count: (ctx) => this.collection.count(ctx),
      ping: () => this.collection.ping(),
    };
  }

  async search(ctx: OperationContext): Promise<OperationOutcome> {
    const p = ctx.params;
    const colors = readColorQuery(p, { allowWildcard: true });
    const filepath = p.string('filepath');
    if (filepath !== undefined) refuseBadPath(filepath);
    const hasImage = p.files('image').length > 0;
    const url = p.string('url');
    const sources = [hasImage, filepath !== undefined, url !== undefined, colors !== undefined].filter(Boolean).length;
    if (sources > 1) throw new ParamError('Please specify only one of image, filepath, url or colors[n].');
    const metadata = readOptionalMetadataQuery(p);
    const returnMetadata = readReturnMetadata(p);
    if (sources === 0 && !metadata) throw new ParamError('Please specify image, filepath, url, colors[n] or metadata.');
    const base = {
      ...readBackground(p),
      // A metadata-only search ranks by metadata score, which the color floor does not describe.
      min_score: p.number('min_score', { default: sources > 0 ? DEFAULT_COLOR_MIN_SCORE : 0, min: 0, max: 100 })!,
      offset: p.int('offset', { default: 0, min: 0 })!,
      limit: p.int('limit', { default: DEFAULT_SEARCH_LIMIT, min: 0 })!,
      ...readPathFilters(p),
      sort_metadata: p.bool('sort_metadata'),
    };
    const deadline = deadlineOf(ctx);
    const staged = hasImage || url !== undefined ? await this.inputs.stageQueryImages(p, { several: false, ...downloadScope(ctx, deadline) }) : undefined;
    const downloadStats: Stats = url !== undefined ? { time_download: staged?.timeDownload ?? 0 } : {};
    const stats = (r?: ColorSearchResult): Stats => ({
      total_results: r?.total_results ?? 0,
      total_filtered_results: r?.total_filtered_results ?? 0,
      total_returned_results: r?.hits.length ?? 0,
      ...downloadStats,
      time_resize: r?.time_resize ?? 0,
      time_search: r?.time_search ?? 0,
    });
    if (staged && staged.images.length === 0) return { result: [], errors: staged.errors, status: 'fail', stats: stats() };
    const payload: ColorSearchPayload = {
      account_id: ctx.account.id,
      service: ctx.service,
      ...base,
      colors,
      image: staged?.images[0],
      filepath,
      metadata,
      return_metadata: returnMetadata ?? [],
      with_metadata: metadata !== undefined || returnMetadata !== undefined,
    };
    const outcome = await this.runStaged<ColorSearchResult>(ctx, JobKind.ColorSearch, payload, staged?.images ?? [], deadline);
    const queryImage = filepath ?? staged?.images[0]?.label;
    return {
      result: outcome.hits,
      errors: outcome.errors,
      status: outcome.errors.length > 0 ? 'fail' : 'ok',
      ...(queryImage !== undefined ? { query_image: { filepath: queryImage } } : {}),
      stats: stats(outcome),
    };
  }

  async extractImageColors(ctx: OperationContext): Promise<OperationOutcome> {
    const p = ctx.params;
    const form = readColorFormat(p);
    const payloadBase = {
      ...readBackground(p),
      target_number_colors: p.int('target_number_colors', { min: 1 }),
      limit: p.int('limit', { default: DEFAULT_EXTRACT_LIMIT, min: 0 })!,
    };
    const run = await this.imageJob(ctx, { op: 'extract', ...payloadBase });
    const stats: Stats = { ...run.downloadStats, time_resize: run.result?.time_resize ?? 0, time_extract: run.result?.time_work ?? 0 };
    const result = run.result?.palette ? extractedItems(run.result.palette, form) : [];
    return { result, errors: run.errors, status: statusFor(run.errors, run.result?.palette !== undefined), stats };
  }

  async countImageColors(ctx: OperationContext): Promise<OperationOutcome> {
    const p = ctx.params;
    const countColors = readCountColors(p);
    const run = await this.imageJob(ctx, { op: 'count', ...readBackground(p), limit: 0, count_colors: countColors.map((c) => c.rgb) });
    // Specification 2.2 lists no time_download for count_image_colors; download time is part of time_total.
    const stats: Stats = { time_resize: run.result?.time_resize ?? 0, time_count: run.result?.time_work ?? 0 };
    const result = run.result?.counts ? countedItems(countColors, run.result.counts) : [];
    return { result, errors: run.errors, status: statusFor(run.errors, run.result?.counts !== undefined), stats };
  }

  async collectionColors(ctx: OperationContext, op: 'extract' | 'count_colors'): Promise<OperationOutcome> {
    const p = ctx.params;
    const form = op === 'extract' ? readColorFormat(p) : 'rgb';
    const countColors = op === 'count_colors' ? readCountColors(p) : undefined;
    const payload: ColorCollectionPayload = {
      account_id: ctx.account.id,
      service: ctx.service,
      op,
      scope: this.readScope(p),
      limit: p.int('limit', { default: DEFAULT_EXTRACT_LIMIT, min: 0 })!,
      count_colors: countColors?.map((c) => c.rgb),
    };
    const outcome = await this.queue.run<ColorCollectionResult>({ kind: JobKind.ColorCollection, group: readGroup(ctx), payload, timeoutMs: ctx.timeoutMs });
    const anyFound = payload.scope.filepaths === undefined || outcome.errors.length < payload.scope.filepaths.length;
    if (op === 'extract') {
      return {
        result: extractedItems(outcome.palette ?? [], form),
        errors: outcome.errors,
        status: statusFor(outcome.errors, anyFound),
        stats: { time_extract: outcome.time_work },
      };
    }
    return {
      result: countedItems(countColors!, outcome.counts ?? []),
      errors: outcome.errors,
      status: statusFor(outcome.errors, anyFound),
      stats: { time_count: outcome.time_work },
    };
  }

  async countMetadata(ctx: OperationContext): Promise<OperationOutcome> {
    const p = ctx.params;
    const texts = p.list('count_metadata').filter((t) => t.trim() !== '');
    if (texts.length === 0) throw new ParamError('Please specify at least one metadata query to count: count_metadata[n].');
    const queries = texts.map((t, i) => readMetadataQuery(`count_metadata[${i}]`, t));
    const payload: ColorCollectionPayload = {
      account_id: ctx.account.id,
      service: ctx.service,
      op: 'count_metadata',
      scope: this.readScope(p),
      count_metadata: queries.map((q) => q.query),
    };
    const outcome = await this.queue.run<ColorCollectionResult>({ kind: JobKind.ColorCollection, group: readGroup(ctx), payload, timeoutMs: ctx.timeoutMs });
    // Specification 2.1: in XML the count is an attribute of count-metadata and the query its content; in JSON the
    // same entry is {count, "": query}. The renderer writes `@name` keys as attributes, so the shape follows the format.
    const xml = (p.string('format') ?? '').toLowerCase() === 'xml';
    const entries = queries.map((q, i) => {
      const count = String(outcome.metadata_counts?.[i] ?? 0);
      return { 'count-metadata': xml ? { '@count': count, ...q.sent } : { count, '': q.sent } };
    });
    const anyFound = payload.scope.filepaths === undefined || outcome.errors.length < payload.scope.filepaths.length;
    return { result: [{ metadata: entries }], errors: outcome.errors, status: statusFor(outcome.errors, anyFound), stats: { time_count: outcome.time_work } };
  }

  /**
   * update (specification 4.13) and its client-side twin add: the same inputs, metadata and background options, an
   * existing path replaced. Only the name of the writing time follows the operation (2.2: time_add vs time_update).
   */
  async update(ctx: OperationContext, timeName: 'time_add' | 'time_update'): Promise<OperationOutcome> {
    const p = ctx.params;
    const metadata = new Map<number, Record<string, unknown>>();
    for (const [position, text] of p.indexed('metadata')) {
      if (text.trim() !== '') metadata.set(position, readStoredMetadata(`metadata[${position}]`, text));
    }
    const outcome = await this.collection.add(ctx, {
      ...INGEST_POLICIES.color,
      options: { ...readBackground(p) },
      extras: (position) => (metadata.has(position) ? { metadata: metadata.get(position) } : {}),
    });
    const { time_add: timeWrite, ...rest } = outcome.stats;
    return { ...outcome, stats: { ...rest, [timeName]: timeWrite ?? 0 } };
  }

  async updateMetadata(ctx: OperationContext): Promise<OperationOutcome> {
    const p = ctx.params;
    const paths = this.collection.requestedPaths(p);
    const texts = [...p.list('metadata'), ...p.list('metadatas')];
    if (texts.length !== paths.length) throw new ParamError('Please specify one metadata (metadata[n]) for each filepath (filepaths[n]).');
    const updates = paths.map((filepath, i) => ({ filepath, metadata: readStoredMetadata(`metadata[${i}]`, texts[i] || '{}') }));
    const watch = new Stopwatch().start();
    const payload: ColorMetadataPayload = { account_id: ctx.account.id, service: ctx.service, updates };
    const outcome = await this.queue.run<ColorMetadataResult>({ kind: JobKind.ColorMetadata, group: writeGroup(ctx), payload, timeoutMs: ctx.timeoutMs });
    const updated = new Set(outcome.updated);
    const errors = paths.filter((f) => !updated.has(f)).map(missingMessage);
    return { result: [], errors, status: statusFor(errors, updated.size > 0), stats: { time_update: watch.stop() } };
  }

  async getMetadata(ctx: OperationContext): Promise<OperationOutcome> {
    const paths = this.collection.requestedPaths(ctx.params);
    const watch = new Stopwatch().start();
    const rows = await this.images.findByPaths(collectionRef(ctx), paths);
    const found = paths.filter((f) => rows.has(f));
    const errors = paths.filter((f) => !rows.has(f)).map(missingMessage);
    const result = found.map((filepath) => ({ filepath, metadata: rows.get(filepath)!.metadata }));
    return { result, errors, status: statusFor(errors, found.length > 0), stats: { time_get_metadata: watch.stop() } };
  }

  /** get_search_metadata / get_return_metadata: the keys in the collection with their types and image counts. */
  async metadataKeys(ctx: OperationContext, returnable: boolean): Promise<OperationOutcome> {
    const watch = new Stopwatch().start();
    const ref = collectionRef(ctx);
    const keys = await this.colors.metadataKeys(ref, { returnable });
    const keywords = !returnable && keys.some((k) => k.key === 'keywords') ? await this.colors.keywordCounts(ref) : [];
    const result = keys.map((k) => (k.key === 'keywords' && !returnable ? { ...k, keywords } : k));
    return { result, stats: { time_get_metadata: watch.stop() } };
  }

  /** The scope of a collection extraction or count: metadata, colors[n]+weights[n], or filepaths[n]; at most one. */
  private readScope(p: Params): ColorScope {
    const metadata = readOptionalMetadataQuery(p);
    const colors = readColorQuery(p, { allowWildcard: false });
    const filepaths = p.list('filepaths', 'filepath').filter((f) => f !== '');
    filepaths.forEach(refuseBadPath);
    const given = [metadata !== undefined, colors !== undefined, filepaths.length > 0].filter(Boolean).length;
    if (given > 1) throw new ParamError('Please specify only one scope: metadata, colors[n] with weights[n], or filepaths[n].');
    const minScore = p.number('min_score', { min: 0, max: 100 });
    if (filepaths.length > 0) return { filepaths };
    return { metadata, colors, min_score: minScore };
  }

  private async imageJob(
    ctx: OperationContext,
    fields: Omit<ColorImagesPayload, 'images' | 'ignore_background' | 'ignore_interior_background'> & Partial<ColorImagesPayload>,
  ): Promise<{ result?: ColorImagesResult; errors: string[]; downloadStats: Stats }> {
    const deadline = deadlineOf(ctx);
    const staged = await this.inputs.stageQueryImages(ctx.params, { several: true, ...downloadScope(ctx, deadline) });
    if (staged.images.length === 0 && staged.errors.length === 0) throw new ParamError('Please send an image: image, images[n], url or urls[n].');
    const downloadStats: Stats = staged.urls > 0 ? { time_download: staged.timeDownload } : {};
    if (staged.images.length === 0) return { errors: staged.errors, downloadStats };
    const payload = { ...readBackground(ctx.params), ...fields, images: staged.images } as ColorImagesPayload;
    const result = await this.runStaged<ColorImagesResult>(ctx, JobKind.ColorImages, payload, staged.images, deadline);
    return { result, errors: [...staged.errors, ...result.errors], downloadStats };
  }

  /** Queues a read job whose staged images the worker consumes; if the job never ran, the gateway removes them. */
  private async runStaged<R>(ctx: OperationContext, kind: string, payload: unknown, staged: Array<{ staged_key: string }>, deadline?: number): Promise<R> {
    try {
      return await this.queue.run<R>({ kind, group: readGroup(ctx), payload, timeoutMs: remaining(deadline) });
    } catch (error) {
      await releaseStaged(error, () => this.inputs.discard(staged));
      throw error;
    }
  }
}
