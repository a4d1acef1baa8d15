import { ComparePayload, JobKind, JobPayload, JobResult, runJob, SearchPayload } from '@loupe/jobs';
import type { JobQueue } from '@loupe/queue';
import { Inject, Injectable } from '@nestjs/common';
import { readGroup } from './collection.service';
import type { OperationContext, OperationOutcome } from './operation';
import { QueryInputs, StagedQuery } from './query-inputs';
import { releaseStaged } from './staging';
import { deadlineOf, downloadScope, remaining } from './deadline';
import type { CompareInput, SearchInput } from '../contracts';
import { JOB_QUEUE } from './tokens';

/**
 * Image search and compare on the matching engine (match, mobile, and the image part of wine). Inputs are read and
 * staged here; the work runs as read jobs, at most 4 at a time per account and service.
 */
@Injectable()
export class MatchingService {
  constructor(
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(QueryInputs) private readonly inputs: QueryInputs,
  ) {}

  async search(ctx: OperationContext, input: SearchInput, preferredSide: number): Promise<OperationOutcome> {
    const options = {
      min_score: input.min_score,
      check_horizontal_flip: input.check_horizontal_flip,
      generate_overlay: input.generate_overlay,
      offset: input.offset,
      limit: input.limit,
      name_filter: input.name_filter,
      path_filter: input.path_filter,
    };
    const deadline = deadlineOf(ctx);
    const staged = await this.inputs.stage(input.query, '', downloadScope(ctx, deadline));
    const payload: SearchPayload = {
      account_id: ctx.account.id,
      account: ctx.account.name,
      service: ctx.service,
      query: staged.source,
      preferred_side: preferredSide,
      options,
    };
    const result = await this.run(ctx, JobKind.Search, payload, deadline, [staged]);
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

  async compare(ctx: OperationContext, input: CompareInput, preferredSide: number): Promise<OperationOutcome> {
    const options = {
      min_score: input.min_score,
      check_horizontal_flip: input.check_horizontal_flip,
      generate_overlay: input.generate_overlay,
      compute_enhanced_score: input.compute_enhanced_score,
      compare_color: input.compare_color,
    };
    const deadline = deadlineOf(ctx);
    const first = await this.inputs.stage(input.images.first, '1', downloadScope(ctx, deadline));
    let second: StagedQuery;
    try {
      second = await this.inputs.stage(input.images.second, '2', downloadScope(ctx, deadline));
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
    const result = await this.run(ctx, JobKind.Compare, payload, deadline, [first, second]);
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

  private async run<K extends JobKind>(ctx: OperationContext, kind: K, payload: JobPayload<K>, deadline: number | undefined, staged: StagedQuery[]): Promise<JobResult<K>> {
    try {
      return await runJob(this.queue, { kind, group: readGroup(ctx), payload, timeoutMs: remaining(deadline) });
    } catch (error) {
      // The worker deletes staged queries when it runs; a job that never ran leaves them to us.
      await releaseStaged(error, () => Promise.all(staged.map((s) => this.inputs.discard(s))));
      throw error;
    }
  }
}
