import { seconds, statusFor } from '@loupe/envelope';
import { DeletePayload, IngestItem, IngestPayload, IngestResult, JobKind, runJob, Stopwatch, IngestPolicy } from '@loupe/jobs';
import type { JobQueue } from '@loupe/queue';
import { Inject, Injectable } from '@nestjs/common';
import type { CollectionRef, ImageRepository, ImageRow } from '@loupe/storage';
import { performance } from 'node:perf_hooks';
import type { AddCandidate, ListInput } from '../contracts';
import { ImageInputs } from './image-inputs';
import type { OperationContext, OperationOutcome } from './operation';
import { releaseStaged } from './staging';
import { deadlineOf, downloadScope, remaining } from './deadline';
import { IMAGE_REPOSITORY, JOB_QUEUE } from './tokens';

export function missingMessage(filepath: string): string {
  return `${filepath}: This file does not exist in the image collection.`;
}

/** The queue group of a collection's reads: 4 at a time per account and service. */
export function readGroup(ctx: OperationContext): string {
  return `${ctx.account.name}:${ctx.service}`;
}

/** The queue group of writes: 1 at a time per account, across its services (docs/protocol.md §4). */
export function writeGroup(ctx: OperationContext): string {
  return `${ctx.account.name}`;
}

function formatDate(value: Date | string): string {
  const date = value instanceof Date ? value : new Date(value);
  return date.toISOString().slice(0, 10);
}

function pick(values: Record<string, number>, names: readonly string[]): Record<string, number> {
  return Object.fromEntries(names.map((name) => [name, values[name] ?? 0]));
}

export function collectionRef(ctx: OperationContext): CollectionRef {
  return { accountId: ctx.account.id, service: ctx.service };
}

export interface AddPolicy extends IngestPolicy {
  /** Options for the service's ingest hooks. */
  options?: Record<string, unknown>;
  /** Stats fields of the service's ingest stages, reported (as 0 when nothing was processed) between time_resize and time_add. */
  stageStats?: readonly string[];
  /** Service fields of the item at a candidate position (e.g. color `metadata[n]`). */
  extras?: (position: number) => Partial<IngestItem>;
}

/**
 * The operations every collection service shares (add, get_info, get_metadata, delete, list, count, ping).
 * Reads go straight to the index; writes go through the per-account write queue.
 */
@Injectable()
export class CollectionService {
  constructor(
    @Inject(IMAGE_REPOSITORY) private readonly images: ImageRepository,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(ImageInputs) private readonly inputs: ImageInputs,
  ) {}

  async add(ctx: OperationContext, candidates: AddCandidate[], policy: AddPolicy): Promise<OperationOutcome> {
    const deadline = deadlineOf(ctx);
    const staged = await this.inputs.stage(candidates, downloadScope(ctx, deadline), policy.extras);
    const stages = Object.fromEntries((policy.stageStats ?? []).map((name) => [name, 0]));
    const stats = { time_download: staged.timeDownload, time_resize: 0, ...stages, time_add: 0 };
    if (staged.items.length === 0) return { result: [], errors: staged.errors, status: 'fail', stats };
    const payload: IngestPayload = {
      account_id: ctx.account.id,
      account: ctx.account.name,
      service: ctx.service,
      items: staged.items,
      on_existing: policy.on_existing,
      preferred_side: policy.preferred_side,
      crop_borders: policy.crop_borders,
      options: policy.options,
    };
    let outcome: IngestResult;
    try {
      outcome = await runJob(this.queue, {
        kind: JobKind.Ingest,
        group: writeGroup(ctx),
        payload,
        timeoutMs: remaining(deadline),
      });
    } catch (error) {
      await releaseStaged(error, () => this.inputs.discard(staged.items));
      throw error;
    }
    const errors = [...staged.errors, ...outcome.errors];
    return {
      result: [],
      errors,
      status: statusFor(errors, outcome.added.length > 0),
      stats: { ...stats, time_resize: outcome.time_resize, ...pick(outcome.stage_times, Object.keys(stages)), time_add: outcome.time_add },
    };
  }

  async getInfo(ctx: OperationContext, paths: string[], options: { reportFingerprint: boolean }): Promise<OperationOutcome> {
    const watch = new Stopwatch().start();
    const rows = await this.images.findByPaths(collectionRef(ctx), paths);
    const result = paths.map((filepath) => {
      const row = rows.get(filepath);
      if (!row) return { filepath, width: 0, height: 0, fingerprint: 0, date: '0000-00-00', status: 'missing' };
      return {
        filepath,
        width: row.width,
        height: row.height,
        fingerprint: options.reportFingerprint ? row.fingerprint_health : 0,
        date: formatDate(row.created_at),
        status: 'healthy',
      };
    });
    return { result, stats: { time_get_info: watch.stop() } };
  }

  async getMetadata(ctx: OperationContext, paths: string[]): Promise<OperationOutcome> {
    const watch = new Stopwatch().start();
    const rows = await this.images.findByPaths(collectionRef(ctx), paths);
    const found = paths.filter((p) => rows.has(p));
    const errors = paths.filter((p) => !rows.has(p)).map(missingMessage);
    const result = found.map((filepath) => ({ filepath, metadata: { image_id: (rows.get(filepath) as ImageRow).image_id ?? '' } }));
    return {
      result,
      errors,
      status: statusFor(errors, found.length > 0),
      stats: { time_get_metadata: watch.stop() },
    };
  }

  async delete(ctx: OperationContext, requested: string[]): Promise<OperationOutcome> {
    const paths = [...new Set(requested)];
    const started = performance.now();
    const payload: DeletePayload = { account_id: ctx.account.id, service: ctx.service, filepaths: paths };
    const outcome = await runJob(this.queue, { kind: JobKind.Delete, group: writeGroup(ctx), payload, timeoutMs: ctx.timeoutMs });
    const deleted = new Set(outcome.deleted);
    const errors = paths.filter((p) => !deleted.has(p)).map(missingMessage);
    // docs/protocol.md §3: deleting a path that is not there "did nothing", which is a warning, not a failure.
    return { result: [], errors, status: errors.length === 0 ? 'ok' : 'warn', stats: { time_delete: seconds(performance.now() - started) } };
  }

  async list(ctx: OperationContext, page: ListInput): Promise<OperationOutcome> {
    const watch = new Stopwatch().start();
    const result = await this.images.listPaths(collectionRef(ctx), page.offset, page.limit);
    return { result, stats: { time_list: watch.stop() } };
  }

  async count(ctx: OperationContext): Promise<OperationOutcome> {
    const watch = new Stopwatch().start();
    const n = await this.images.count(collectionRef(ctx));
    return { result: [n], stats: { time_count: watch.stop() } };
  }

  async ping(): Promise<OperationOutcome> {
    return { result: [], stats: {} };
  }
}
