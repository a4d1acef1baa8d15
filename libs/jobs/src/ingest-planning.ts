import { fingerprintHealth, serializeFeatures } from '@loupe/fingerprint';
import { ImageInputError } from '@loupe/imaging';
import type { JobQueue } from '@loupe/queue';
import type { BlobStore, CollectionRef, ImageRepository, NewImage } from '@loupe/storage';
import { deserialize, serialize } from 'node:v8';
import { collectionBlobPrefix } from './blob-keys';
import type { Compute } from './compute';
import { IngestItem, IngestPayload, JobKind, unreadableUploadMessage } from './contracts';
import { runJob } from './job-registry';
import { PreparedImage, prepareImageTask } from './image-preparation';
import type { IngestHookInput, IngestHooks } from './ingest.service';
import { fanOutGroup } from './shard-sets';
import { Stopwatch } from './stopwatch';

export function alreadyExistsMessage(filepath: string): string {
  return `${filepath}: This file already exists in the image collection.`;
}

/**
 * An image of an add, prepared, waiting for its commit: the blobs are written then, just before the transaction, so a
 * call that fails before an image's turn leaves nothing of it behind (see IngestService).
 */
export interface ReadyImage {
  /** Its row, with the blob keys its commit writes. */
  row: NewImage;
  /** The stored normalised JPEG. */
  normalizedJpeg: Uint8Array;
  /** The uploaded bytes when planned in this process; a plan from another process leaves them in the staged upload. */
  original?: Uint8Array;
  features: { count: number; data: Buffer };
  /** The service hooks' analyses, in the order of `hooks(payload.service)`. */
  analyses: unknown[];
  /** Seconds of time_resize, of time_add before the commit, and of the hooks' own stats fields. */
  seconds: { resize: number; add: number; stages: Record<string, number> };
}

/** What an item of a batch comes to before its commit: an answer already (null: it is in), or an image ready to commit. */
export type ItemPlan = { outcome: string | null } | { ready: ReadyImage };

/**
 * Everything of an added image before its commit: whether it is answered already, else decoded, normalised,
 * fingerprinted and analysed by the service's hooks. Local (this process's compute threads) or on
 * any worker of the fleet (`QueuedItemPlanner`); either way the commit stays with the account's ingest job.
 */
export interface ItemPlanner {
  /** How many images of a batch are planned at once. */
  readonly parallelism: number;
  plan(payload: IngestPayload, item: IngestItem): Promise<ItemPlan>;
}

/** The keys follow from the staged upload, so every attempt at this item writes the same ones (see collectionBlobPrefix). */
export function ingestBlobKeys(payload: Pick<IngestPayload, 'account' | 'service'>, item: IngestItem): { original: string; normalized: string } {
  const prefix = collectionBlobPrefix(payload.account, payload.service, item.filepath, item.staged_key);
  return { original: `${prefix}/original`, normalized: `${prefix}/normalized.jpg` };
}

/** Plans items in this process: preparation on `compute`'s threads, hooks as they run their analyses. */
export class LocalItemPlanner implements ItemPlanner {
  readonly parallelism: number;

  constructor(
    private readonly images: ImageRepository,
    private readonly blobs: BlobStore,
    private readonly hooks: IngestHooks,
    private readonly compute: Pick<Compute, 'run' | 'parallelism'>,
  ) {
    this.parallelism = compute.parallelism;
  }

  async plan(payload: IngestPayload, item: IngestItem): Promise<ItemPlan> {
    const ref: CollectionRef = { accountId: payload.account_id, service: payload.service };
    const existing = (await this.images.findByPaths(ref, [item.filepath])).get(item.filepath);
    if (existing && existing.ingest_token === item.staged_key) return { outcome: null };
    if (existing && payload.on_existing === 'refuse') {
      // An earlier attempt of this job, killed between writing the blobs and committing, may have left them; no row
      // can point to them (the path belongs to another upload's row).
      await forgetIngestBlobs(this.blobs, payload, item);
      return { outcome: alreadyExistsMessage(item.filepath) };
    }

    const data = await this.blobs.get(item.staged_key);
    if (data === null) return { outcome: unreadableUploadMessage(item.filepath) };

    const preparation = await this.compute.run(prepareImageTask, { data, preferredSide: payload.preferred_side, cropBorders: payload.crop_borders === true });
    if ('refused' in preparation) return { outcome: `${item.filepath}: ${preparation.refused}` };
    const image = preparation.image;
    const hookInput: IngestHookInput = { payload, item, normalized: image.normalized, gray: image.gray, features: image.features };
    const seconds = { resize: image.seconds.resize, add: image.seconds.features, stages: {} as Record<string, number> };
    const analyses: unknown[] = [];
    try {
      for (const hook of this.hooks(payload.service)) {
        const watch = new Stopwatch().start();
        analyses.push(await hook.analyze(hookInput));
        if (hook.stat) seconds.stages[hook.stat] = (seconds.stages[hook.stat] ?? 0) + watch.stop();
        else seconds.add += watch.stop();
      }
    } catch (error) {
      if (error instanceof ImageInputError) return { outcome: `${item.filepath}: ${error.message}` };
      throw error;
    }
    return { ready: { ...storedForm(item, image, ingestBlobKeys(payload, item)), normalizedJpeg: image.normalizedJpeg, original: data, analyses, seconds } };
  }
}

/** Removes the blobs an attempt at `item` may have written; for items that end without their row. */
export async function forgetIngestBlobs(blobs: BlobStore, payload: IngestPayload, item: IngestItem): Promise<void> {
  const keys = ingestBlobKeys(payload, item);
  await Promise.all([blobs.delete(keys.original), blobs.delete(keys.normalized)]);
}

/** The image's row and its serialised features. */
function storedForm(item: IngestItem, image: PreparedImage, keys: { original: string; normalized: string }): Pick<ReadyImage, 'row' | 'features'> {
  const { normalized, assessment, features } = image;
  const info = normalized.original;
  // An image without a single corner is still found as a whole copy (by its hash); only refused images are not.
  const searchable = features !== null;
  return {
    row: {
      filepath: item.filepath,
      image_id: item.image_id,
      format: info.format,
      width: info.width,
      height: info.height,
      norm_width: normalized.width,
      norm_height: normalized.height,
      blob_key: keys.original,
      norm_blob_key: keys.normalized,
      fingerprint_health: features ? fingerprintHealth(features) : 0,
      searchable,
      unsearchable_reason: assessment.reason,
      metadata: item.metadata ?? {},
      ingest_token: item.staged_key,
    },
    features: features ? { count: features.count, data: serializeFeatures(features) } : { count: 0, data: Buffer.alloc(0) },
  };
}

/** The payload of an `ingest_prepare` job: one item of an add, with the add's settings (its other items left out). */
export interface IngestPreparePayload {
  payload: IngestPayload;
  item: IngestItem;
}

/**
 * A plan as job results carry it (plain JSON through Redis): the hooks' analyses hold typed arrays and bigints, and
 * the features are bytes, so the plan travels as V8's structured serialisation in base64. Every process of a
 * deployment runs one image, so one Node version writes and reads it.
 */
export interface EncodedItemPlan {
  plan: string;
}

/** The uploaded bytes stay behind: the commit reads them from the staged upload rather than through Redis. */
export function encodeItemPlan(plan: ItemPlan): EncodedItemPlan {
  return { plan: serialize('ready' in plan ? { ready: { ...plan.ready, original: undefined } } : plan).toString('base64') };
}

export function decodeItemPlan(encoded: EncodedItemPlan): ItemPlan {
  const plan = deserialize(Buffer.from(encoded.plan, 'base64')) as ItemPlan;
  // Structured clone gives back a Uint8Array where a Buffer went in.
  if ('ready' in plan) plan.ready.features.data = Buffer.from(plan.ready.features.data.buffer, plan.ready.features.data.byteOffset, plan.ready.features.data.byteLength);
  return plan;
}

/**
 * Images of one add planned at once on the fleet: a whole batch (an add carries at most 10), so the workers that are
 * free take what they can.
 */
export const FLEET_PLAN_PARALLELISM = 10;

/**
 * Plans items on the worker fleet: each image of an add becomes an `ingest_prepare` job that any worker running that
 * kind takes, so one account's bulk add uses the cores of every such worker while its commits (blob writes included)
 * stay in its own ingest job, one at a time and in order (INGEST_FAN_OUT). Each job has its own admission group: the one-write-per-account
 * limit is the ingest job's, and the fleet's WORKER_CONCURRENCY bounds the preparation.
 */
export class QueuedItemPlanner implements ItemPlanner {
  constructor(
    private readonly queue: () => JobQueue | null,
    readonly parallelism: number,
  ) {}

  async plan(payload: IngestPayload, item: IngestItem): Promise<ItemPlan> {
    const queue = this.queue();
    if (!queue) throw new Error('INGEST_FAN_OUT is set but this process has no job queue to reach the workers.');
    const request: IngestPreparePayload = { payload: { ...payload, items: [] }, item };
    return decodeItemPlan(await runJob(queue, { kind: JobKind.IngestPrepare, group: fanOutGroup('ingest prepare'), payload: request }));
  }
}
