import type { Stats } from '@loupe/envelope';
import {
  INGEST_POLICIES, JobKind, runJob, WINE_PREFERRED_SIDE, WineExtractPayload, WineExtractResult, WineSearchPayload, WineSearchResult,
} from '@loupe/jobs';
import type { JobQueue } from '@loupe/queue';
import { CONTRACTS, WineExtractInput, WineSearchInput } from '../contracts';
import { CollectionService, readGroup } from './collection.service';
import { ImageInputs } from './image-inputs';
import { deadlineOf, downloadScope, remaining } from './deadline';
import { MatchingService } from './matching.service';
import { operation, OperationContext, OperationOutcome, OperationTable } from './operation';
import { QueryInputs } from './query-inputs';
import { releaseStaged } from './staging';

const WINE = CONTRACTS.wine;

/**
 * The wine-label service (docs/protocol.md §7, §8): add reads each label and stores its
 * metadata; search matches the label image and orders the best by label text; extract_metadata and extract_text
 * read the labels of given images; compare matches two images as match compare does. delete, list, count and ping are
 * the collection operations every service has.
 */
export class WineOperations {
  private readonly matching: MatchingService;

  constructor(
    private readonly collection: CollectionService,
    private readonly queue: JobQueue,
    private readonly images: ImageInputs,
    private readonly queries: QueryInputs,
  ) {
    this.matching = new MatchingService(queue, queries);
  }

  table(): OperationTable {
    return {
      // docs/protocol.md §7-§9: an existing path is refused; rectangles refer to the image without its solid
      // borders; the label reading time is reported as time_detect_label.
      add: operation(WINE.add, (ctx, input) =>
        this.collection.add(ctx, input.images, { ...INGEST_POLICIES.wine, stageStats: ['time_detect_label'] })),
      search: operation(WINE.search, (ctx, input) => this.search(ctx, input)),
      // docs/protocol.md §6 (wine compare): the Python WineEngine inherits compare from the match client. The images are
      // normalised as wine labels are (solid borders cropped, preferred side of docs/protocol.md §9).
      compare: operation(WINE.compare, (ctx, input) => this.matching.compare(ctx, input, WINE_PREFERRED_SIDE)),
      extract_metadata: operation(WINE.extract_metadata, (ctx, input) => this.extract(ctx, input, 'metadata')),
      extract_text: operation(WINE.extract_text, (ctx, input) => this.extract(ctx, input, 'text')),
      delete: operation(WINE.delete, (ctx, input) => this.collection.delete(ctx, input.filepaths)),
      list: operation(WINE.list, (ctx, input) => this.collection.list(ctx, input)),
      count: operation(WINE.count, (ctx) => this.collection.count(ctx)),
      ping: operation(WINE.ping, () => this.collection.ping()),
    };
  }

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
