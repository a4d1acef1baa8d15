import { ParamError, Params } from '@loupe/envelope';
import { CompareResult, ComparePayload, JobKind, SearchPayload, SearchResult } from '@loupe/jobs';
import type { JobQueue } from '@loupe/queue';
import { readGroup } from './collection.service';
import type { OperationContext, OperationOutcome } from './operation';
import { QueryInputs, StagedQuery } from './query-inputs';
import { releaseStaged } from './staging';
import { deadlineOf, downloadScope, remaining } from './deadline';
import { readPathFilters } from './path-filters';

/** Search results per page unless `limit` says otherwise (specification 4.1). */
export const DEFAULT_SEARCH_LIMIT = 10;

function matchOptions(params: Params) {
  return {
    min_score: params.number('min_score', { default: 0, min: 0, max: 100 })!,
    check_horizontal_flip: params.bool('check_horizontal_flip'),
    generate_overlay: params.bool('generate_overlay'),
  };
}


/**
 * Image search and compare on the matching engine (match, mobile, and the image part of wine). Inputs are read and
 * staged here; the work runs as read jobs, at most 4 at a time per account and service.
 */
export class MatchingService {
  constructor(
    private readonly queue: JobQueue,
    private readonly inputs: QueryInputs,
  ) {}

  async search(ctx: OperationContext, preferredSide: number): Promise<OperationOutcome> {
    const params = ctx.params;
    const options = {
      ...matchOptions(params),
      offset: params.int('offset', { default: 0, min: 0 })!,
      limit: params.int('limit', { default: DEFAULT_SEARCH_LIMIT, min: 0 })!,
      ...readPathFilters(params),
    };
    const deadline = deadlineOf(ctx);
    const staged = await this.inputs.stage(params, '', downloadScope(ctx, deadline));
    const payload: SearchPayload = {
      account_id: ctx.account.id,
      account: ctx.account.name,
      service: ctx.service,
      query: staged.source,
      preferred_side: preferredSide,
      options,
    };
    const result = await this.run<SearchResult>(ctx, JobKind.Search, payload, deadline, [staged]);
    return {
      result: result.items,
      query_image: { filepath: result.query_filepath },
      stats: {
        total_results: result.total_results,
        total_filtered_results: result.total_filtered_results,
        total_returned_results: result.items.length,
        ...(staged.kind === 'url' ? { time_download: staged.timeDownload } : {}),
        time_resize: result.time_resize,
        time_search: result.time_search,
      },
    };
  }

  async compare(ctx: OperationContext, preferredSide: number): Promise<OperationOutcome> {
    const params = ctx.params;
    const options = {
      ...matchOptions(params),
      compute_enhanced_score: params.bool('compute_enhanced_score'),
      compare_color: params.bool('compare_color'),
    };
    const hasUpload = params.files('image1').length + params.files('image2').length > 0;
    const hasUrl = params.has('url1') || params.has('url2');
    if (hasUpload && hasUrl) throw new ParamError('Please send both images as uploads or both as URLs, not a mixture of the two.');
    const deadline = deadlineOf(ctx);
    const first = await this.inputs.stage(params, '1', downloadScope(ctx, deadline));
    let second: StagedQuery;
    try {
      second = await this.inputs.stage(params, '2', downloadScope(ctx, deadline));
    } catch (error) {
      await this.inputs.discard(first);
      throw error;
    }
    const payload: ComparePayload = {
      account_id: ctx.account.id,
      account: ctx.account.name,
      service: ctx.service,
      first: first.source,
      second: second.source,
      preferred_side: preferredSide,
      options,
    };
    const result = await this.run<CompareResult>(ctx, JobKind.Compare, payload, deadline, [first, second]);
    return {
      result: result.items,
      query_image: { filepath: result.query_filepath },
      stats: {
        time_download: first.timeDownload + second.timeDownload,
        time_resize: result.time_resize,
        time_compare: result.time_compare,
      },
    };
  }

  private async run<R>(ctx: OperationContext, kind: string, payload: unknown, deadline: number | undefined, staged: StagedQuery[]): Promise<R> {
    try {
      return await this.queue.run<R>({ kind, group: readGroup(ctx), payload, timeoutMs: remaining(deadline) });
    } catch (error) {
      // The worker deletes staged queries when it runs; a job that never ran leaves them to us.
      await releaseStaged(error, () => Promise.all(staged.map((s) => this.inputs.discard(s))));
      throw error;
    }
  }
}
