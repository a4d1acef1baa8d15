import type { Stats } from '@loupe/envelope';
import {
  JobKind, runJob, WINE_PREFERRED_SIDE, WineExtractPayload, WineExtractResult, WineSearchPayload, WineSearchResult,
} from '@loupe/jobs';
import type { JobQueue } from '@loupe/queue';
import { Inject, Injectable } from '@nestjs/common';
import type { WineExtractInput, WineSearchInput } from '../contracts';
import { readGroup } from './collection.service';
import { ImageInputs } from './image-inputs';
import { deadlineOf, downloadScope, remaining } from './deadline';
import type { OperationContext, OperationOutcome } from './operation';
import { QueryInputs } from './query-inputs';
import { releaseStaged } from './staging';
import { JOB_QUEUE } from './tokens';

/**
 * The wine-label operations of their own (docs/protocol.md §7, §8): search matches the label image and orders the
 * best by label text; extract_metadata and extract_text read the labels of given images. add, compare and the
 * collection operations are the shared ones with the wine policy (WineController).
 */
@Injectable()
export class WineService {
  constructor(
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(ImageInputs) private readonly images: ImageInputs,
    @Inject(QueryInputs) private readonly queries: QueryInputs,
  ) {}

  /** docs/protocol.md §7: exactly one query image; name/path filters, offset, limit, overlays; stats of §9. */
  async search(ctx: OperationContext, input: WineSearchInput): Promise<OperationOutcome> {
    const options = {
      min_score: 0,
      check_horizontal_flip: false,
      generate_overlay: input.generate_overlay,
      offset: input.offset,
      limit: input.limit,
      name_filter: input.name_filter,
      path_filter: input.path_filter,
    };
    const deadline = deadlineOf(ctx);
    const staged = await this.queries.stage(input.query, '', downloadScope(ctx, deadline));
    const payload: WineSearchPayload = {
      account_id: ctx.account.id,
      account: ctx.account.name,
      service: ctx.service,
      query: staged.source,
      preferred_side: WINE_PREFERRED_SIDE,
      options,
    };
    let result: WineSearchResult;
    try {
      result = await runJob(this.queue, { kind: JobKind.WineSearch, group: readGroup(ctx), payload, timeoutMs: remaining(deadline) });
    } catch (error) {
      await releaseStaged(error, () => this.queries.discard(staged));
      throw error;
    }
    return {
      result: result.items,
      query_image: { filepath: result.query_filepath, metadata: result.query_metadata },
      // The stats of the wine search contract, without time_download (docs/protocol.md §9: it is part of time_total).
      stats: {
        total_results: result.total_results,
        total_filtered_results: result.total_filtered_results,
        total_returned_results: result.items.length,
        time_resize: result.time_resize,
        time_detect_label: result.time_detect_label,
        time_extract_text: result.time_extract_text,
        time_compare_text: result.time_compare_text,
        time_search: result.time_search,
      },
    };
  }

  /** docs/protocol.md §7: `image`, `images[n]`, `url` or `urls[n]`, at most 10; one item per readable label. */
  async extract(ctx: OperationContext, input: WineExtractInput, op: 'metadata' | 'text'): Promise<OperationOutcome> {
    const deadline = deadlineOf(ctx);
    const staged = await this.images.stageQueryImages(input.images, downloadScope(ctx, deadline));
    // docs/protocol.md §9: extract_metadata reports time_download, extract_text does not.
    const download: Stats = op === 'metadata' ? { time_download: staged.timeDownload } : {};
    if (staged.images.length === 0) {
      return { result: [], errors: staged.errors, status: 'fail', stats: { ...download, time_resize: 0, time_detect_label: 0, time_extract_text: 0 } };
    }
    const payload: WineExtractPayload = { account_id: ctx.account.id, service: ctx.service, op, images: staged.images, preferred_side: WINE_PREFERRED_SIDE };
    let result: WineExtractResult;
    try {
      result = await runJob(this.queue, { kind: JobKind.WineExtract, group: readGroup(ctx), payload, timeoutMs: remaining(deadline) });
    } catch (error) {
      await releaseStaged(error, () => this.images.discard(staged.images));
      throw error;
    }
    const errors = [...staged.errors, ...result.errors];
    const items = op === 'metadata' ? result.items : result.items.map((i) => ({ filepath: i.filepath, text_lines: i.metadata.text_lines ?? [] }));
    return {
      result: items,
      errors,
      status: errors.length === 0 ? 'ok' : items.length > 0 ? 'warn' : 'fail',
      stats: { ...download, time_resize: result.time_resize, time_detect_label: result.time_detect_label, time_extract_text: result.time_extract_text },
    };
  }
}
