import { classifyColor, formatColor } from '@loupe/color';
import { Stats, statusFor } from '@loupe/envelope';
import {
  ColorCollectionPayload, ColorImagesPayload, ColorImagesResult, ColorMetadataPayload,
  ColorPresenceCount, ColorSearchPayload, ColorSearchResult, INGEST_POLICIES, JobKind, JobPayload, JobResult, runJob, Stopwatch,
} from '@loupe/jobs';
import type { JobQueue } from '@loupe/queue';
import { Inject, Injectable } from '@nestjs/common';
import type { ColorRepository, ImageRepository, StoredPaletteColor } from '@loupe/storage';
import {
  background, ColorSearchInput, ColorUpdateInput, CountCollectionColorsInput, CountImageColorsInput, CountMetadataInput,
  ExtractCollectionColorsInput, ExtractImageColorsInput, GivenColor, QueryImages, UpdateMetadataInput,
} from '../contracts';
import { collectionRef, CollectionService, missingMessage, readGroup, writeGroup } from './collection.service';
import { ImageInputs } from './image-inputs';
import type { OperationContext, OperationOutcome } from './operation';
import { releaseStaged } from './staging';
import { deadlineOf, downloadScope, remaining } from './deadline';
import { COLOR_REPOSITORY, IMAGE_REPOSITORY, JOB_QUEUE } from './tokens';

/** The color search floor, declared with the contracts; here too for the color benchmark, which reports on it. */
export { DEFAULT_COLOR_MIN_SCORE } from '../contracts';

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
 * The color service's operations (docs/protocol.md §6-§8), on requests ColorController's pipe has read: stages query
 * images, queues the work (searches, extractions and counts as reads, updates as writes) and shapes answers.
 */
@Injectable()
export class ColorService {
  constructor(
    @Inject(CollectionService) private readonly collection: CollectionService,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(ImageInputs) private readonly inputs: ImageInputs,
    @Inject(IMAGE_REPOSITORY) private readonly images: ImageRepository,
    @Inject(COLOR_REPOSITORY) private readonly colors: ColorRepository,
  ) {}

  async search(ctx: OperationContext, input: ColorSearchInput): Promise<OperationOutcome> {
    const { colors, filepath, url, metadata } = input;
    const returnMetadata = input.return_metadata;
    const base = {
      ...background(input),
      min_score: input.min_score,
      offset: input.offset,
      limit: input.limit,
      name_filter: input.name_filter,
      path_filter: input.path_filter,
      sort_metadata: input.sort_metadata,
    };
    const query: QueryImages = { uploads: input.image, urls: url !== undefined ? [url] : [] };
    const deadline = deadlineOf(ctx);
    const staged = query.uploads.length > 0 || url !== undefined ? await this.inputs.stageQueryImages(query, downloadScope(ctx, deadline)) : undefined;
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
    const outcome = await this.runStaged(ctx, JobKind.ColorSearch, payload, staged?.images ?? [], deadline);
    const queryImage = filepath ?? staged?.images[0]?.label;
    return {
      result: outcome.hits,
      errors: outcome.errors,
      status: outcome.errors.length > 0 ? 'fail' : 'ok',
      ...(queryImage !== undefined ? { query_image: { filepath: queryImage } } : {}),
      stats: stats(outcome),
    };
  }

  async extractImageColors(ctx: OperationContext, input: ExtractImageColorsInput): Promise<OperationOutcome> {
    const form = input.color_format;
    const run = await this.imageJob(ctx, input.images, { op: 'extract', ...background(input), target_number_colors: input.target_number_colors, limit: input.limit });
    const stats: Stats = { ...run.downloadStats, time_resize: run.result?.time_resize ?? 0, time_extract: run.result?.time_work ?? 0 };
    const result = run.result?.palette ? extractedItems(run.result.palette, form) : [];
    return { result, errors: run.errors, status: statusFor(run.errors, run.result?.palette !== undefined), stats };
  }

  async countImageColors(ctx: OperationContext, input: CountImageColorsInput): Promise<OperationOutcome> {
    const countColors = input.count_colors;
    const run = await this.imageJob(ctx, input.images, { op: 'count', ...background(input), limit: 0, count_colors: countColors.map((c) => c.rgb) });
    // docs/protocol.md §9: count_image_colors reports no time_download; download time is part of time_total.
    const stats: Stats = { time_resize: run.result?.time_resize ?? 0, time_count: run.result?.time_work ?? 0 };
    const result = run.result?.counts ? countedItems(countColors, run.result.counts) : [];
    return { result, errors: run.errors, status: statusFor(run.errors, run.result?.counts !== undefined), stats };
  }

  async collectionColors(
    ctx: OperationContext,
    input: ExtractCollectionColorsInput | CountCollectionColorsInput,
    op: 'extract' | 'count_colors',
  ): Promise<OperationOutcome> {
    const form = 'color_format' in input ? input.color_format : 'rgb';
    const countColors = 'count_colors' in input ? input.count_colors : undefined;
    const payload: ColorCollectionPayload = {
      account_id: ctx.account.id,
      service: ctx.service,
      op,
      scope: input.scope,
      limit: input.limit,
      count_colors: countColors?.map((c) => c.rgb),
    };
    const outcome = await runJob(this.queue, { kind: JobKind.ColorCollection, group: readGroup(ctx), payload, timeoutMs: ctx.timeoutMs });
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

  async countMetadata(ctx: OperationContext, input: CountMetadataInput): Promise<OperationOutcome> {
    const queries = input.count_metadata;
    const payload: ColorCollectionPayload = {
      account_id: ctx.account.id,
      service: ctx.service,
      op: 'count_metadata',
      scope: input.scope,
      count_metadata: queries.map((q) => q.query),
    };
    const outcome = await runJob(this.queue, { kind: JobKind.ColorCollection, group: readGroup(ctx), payload, timeoutMs: ctx.timeoutMs });
    // docs/protocol.md §8: in XML the count is an attribute of count-metadata and the query its content; in JSON the
    // same entry is {count, "": query}. The renderer writes `@name` keys as attributes, so the shape follows the format.
    const xml = ctx.format === 'xml';
    const entries = queries.map((q, i) => {
      const count = String(outcome.metadata_counts?.[i] ?? 0);
      return { 'count-metadata': xml ? { '@count': count, ...q.sent } : { count, '': q.sent } };
    });
    const anyFound = payload.scope.filepaths === undefined || outcome.errors.length < payload.scope.filepaths.length;
    return { result: [{ metadata: entries }], errors: outcome.errors, status: statusFor(outcome.errors, anyFound), stats: { time_count: outcome.time_work } };
  }

  /**
   * update and its client-side twin add (docs/protocol.md §6): the same inputs, metadata and background options, an
   * existing path replaced. Only the name of the writing time follows the operation (§9: time_add vs time_update).
   */
  async update(ctx: OperationContext, input: ColorUpdateInput, timeName: 'time_add' | 'time_update'): Promise<OperationOutcome> {
    const metadata = input.metadata;
    const outcome = await this.collection.add(ctx, input.images, {
      ...INGEST_POLICIES.color,
      options: { ...background(input) },
      extras: (position) => (metadata.has(position) ? { metadata: metadata.get(position) } : {}),
    });
    const { time_add: timeWrite, ...rest } = outcome.stats;
    return { ...outcome, stats: { ...rest, [timeName]: timeWrite ?? 0 } };
  }

  async updateMetadata(ctx: OperationContext, input: UpdateMetadataInput): Promise<OperationOutcome> {
    const paths = input.filepaths;
    const updates = input.metadata;
    const watch = new Stopwatch().start();
    const payload: ColorMetadataPayload = { account_id: ctx.account.id, service: ctx.service, updates };
    const outcome = await runJob(this.queue, { kind: JobKind.ColorMetadata, group: writeGroup(ctx), payload, timeoutMs: ctx.timeoutMs });
    const updated = new Set(outcome.updated);
    const errors = paths.filter((f) => !updated.has(f)).map(missingMessage);
    return { result: [], errors, status: statusFor(errors, updated.size > 0), stats: { time_update: watch.stop() } };
  }

  async getMetadata(ctx: OperationContext, paths: string[]): Promise<OperationOutcome> {
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

  private async imageJob(
    ctx: OperationContext,
    images: QueryImages,
    fields: Omit<ColorImagesPayload, 'images'>,
  ): Promise<{ result?: ColorImagesResult; errors: string[]; downloadStats: Stats }> {
    const deadline = deadlineOf(ctx);
    const staged = await this.inputs.stageQueryImages(images, downloadScope(ctx, deadline));
    const downloadStats: Stats = staged.urls > 0 ? { time_download: staged.timeDownload } : {};
    if (staged.images.length === 0) return { errors: staged.errors, downloadStats };
    const payload: ColorImagesPayload = { ...fields, images: staged.images };
    const result = await this.runStaged(ctx, JobKind.ColorImages, payload, staged.images, deadline);
    return { result, errors: [...staged.errors, ...result.errors], downloadStats };
  }

  /** Queues a read job whose staged images the worker consumes; if the job never ran, the gateway removes them. */
  private async runStaged<K extends JobKind>(ctx: OperationContext, kind: K, payload: JobPayload<K>, staged: Array<{ staged_key: string }>, deadline?: number): Promise<JobResult<K>> {
    try {
      return await runJob(this.queue, { kind, group: readGroup(ctx), payload, timeoutMs: remaining(deadline) });
    } catch (error) {
      await releaseStaged(error, () => this.inputs.discard(staged));
      throw error;
    }
  }
}
