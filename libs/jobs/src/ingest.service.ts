import { Features, fingerprintHealth, GrayImage, serializeFeatures } from '@loupe/fingerprint';
import { ImageInputError, NormalizedImage } from '@loupe/imaging';
import { createFifoSemaphore, FifoSemaphore } from '@loupe/queue';
import type { BlobStore, CollectionRef, ImageRepository, NewImage, Queryable } from '@loupe/storage';
import { collectionBlobPrefix } from './blob-keys';
import { Compute, IN_THIS_THREAD } from './compute';
import { IngestItem, IngestPayload, IngestResult, NO_FEATURES_REASON } from './contracts';
import { PreparedImage, prepareImageTask } from './image-preparation';
import { prepareConcurrentlyConsumeInOrder } from './in-order';
import { Stopwatch } from './stopwatch';

/** Postgres error code of a unique-constraint violation (a concurrent add of the same path). */
const UNIQUE_VIOLATION = '23505';

export function alreadyExistsMessage(filepath: string): string {
  return `${filepath}: This file already exists in the image collection.`;
}

export function notStoredMessage(filepath: string): string {
  return `${filepath}: The image could not be stored because of a server error; please send it again.`;
}

/**
 * What a service adds to the common ingest: `analyze` runs after the image is normalised and fingerprinted (outside
 * any transaction, while other images of the batch are prepared: CPU-bound analysis belongs on the process's compute
 * threads), `persist` runs inside the transaction that inserts the row, so its data commits with the image or not at
 * all. Rows of other tables must reference images(id) ON DELETE CASCADE so that delete and replace clean them.
 */
export interface IngestHook<A = unknown> {
  /**
   * The stats field that the time of `analyze` is reported in (e.g. wine's `time_detect_label`); without one it
   * counts in `time_add`.
   */
  readonly stat?: string;
  analyze(input: IngestHookInput): Promise<A>;
  persist(tx: Queryable, imagePk: number, analysis: A, input: IngestHookInput): Promise<void>;
}

export interface IngestHookInput {
  payload: IngestPayload;
  item: IngestItem;
  normalized: NormalizedImage;
  /** The normalised image in grey, as its features were extracted from. */
  gray: GrayImage;
  features: Features | null;
}

/** The hooks that apply to one service's collection. */
export type IngestHooks = (service: string) => readonly IngestHook[];

/** What an item of a batch comes to before its commit: an answer already, or an image ready to store. */
type ItemPlan =
  | { outcome: string | null }
  | {
      data: Buffer;
      row: NewImage;
      normalizedJpeg: Buffer;
      analyses: Array<{ hook: IngestHook; analysis: unknown }>;
      hookInput: IngestHookInput;
      features: { count: number; data: Buffer };
      /** Seconds of time_resize, of time_add before the commit, and of the hooks' own stats fields. */
      seconds: { resize: number; add: number; stages: Record<string, number> };
    };

/**
 * Adds images to a collection. Each image is decoded, validated, normalised and fingerprinted, its blobs written,
 * and then its row and features are committed in one transaction: a crash at any point leaves the collection with
 * the whole image or none of it. Re-running a job is safe: a row carrying the job's staging token is recognised as
 * already added, and blobs a crashed run wrote before its commit are written again under the same keys (or removed
 * when the item ends without its row), so none is left behind without a row.
 *
 * The images of a batch are prepared concurrently, as many at once as the compute threads run, but commit one at a
 * time in the batch's order, so the answer and the collection are what one-after-another processing gives. Two calls
 * for one account (the CLI overlaps batches) prepare side by side, and commit one call after the other, in call order.
 */
export class IngestService {
  /** Per account, the calls committing or waiting to (dropped when none is). */
  private readonly commitLines = new Map<number, FifoSemaphore>();

  constructor(
    private readonly images: ImageRepository,
    private readonly blobs: BlobStore,
    private readonly hooks: IngestHooks = () => [],
    private readonly compute: Pick<Compute, 'run' | 'parallelism'> = IN_THIS_THREAD,
  ) {}

  async ingest(payload: IngestPayload): Promise<IngestResult> {
    const ref: CollectionRef = { accountId: payload.account_id, service: payload.service };
    const result: IngestResult = { errors: [], added: [], time_resize: 0, time_add: 0, stage_times: {} };
    const seen = new Set<string>();
    const entries = payload.items.map((item) => {
      const repeated = seen.has(item.filepath);
      seen.add(item.filepath);
      return { item, repeated };
    });
    const turn = this.takeCommitTurn(ref.accountId);
    try {
      await prepareConcurrentlyConsumeInOrder(
        entries,
        this.compute.parallelism,
        async ({ item, repeated }): Promise<ItemPlan> => (repeated ? { outcome: alreadyExistsMessage(item.filepath) } : this.plan(ref, payload, item)),
        async ({ item }, plan) => {
          try {
            let outcome: string | null;
            try {
              if (plan.status === 'rejected') throw plan.reason;
              await turn.reached();
              outcome = await this.commit(ref, payload, item, plan.value, result);
            } catch (error) {
              // Once an image of the call is in, failing the whole call (e.g. the database went away mid-batch) would
              // tell the caller nothing was added while some was: the answer names what failed instead. Before that,
              // nothing changed and the job fails as a whole, with the error's detail in the worker's log.
              if (result.added.length === 0) throw error;
              outcome = notStoredMessage(item.filepath);
            }
            if (outcome === null) result.added.push(item.filepath);
            else result.errors.push(outcome);
          } finally {
            await this.blobs.delete(item.staged_key);
          }
        },
      );
    } finally {
      turn.done();
    }
    // Sums of per-image times pick up float noise (0.1 + 0.2); envelopes show microseconds.
    result.time_resize = Math.round(result.time_resize * 1e6) / 1e6;
    result.time_add = Math.round(result.time_add * 1e6) / 1e6;
    for (const [stat, value] of Object.entries(result.stage_times)) result.stage_times[stat] = Math.round(value * 1e6) / 1e6;
    return result;
  }

  /**
   * This call's place in its account's line of commits, taken when the call starts so that call order is commit
   * order; `reached` resolves when every earlier call is done.
   */
  private takeCommitTurn(accountId: number): { reached(): Promise<unknown>; done(): void } {
    let line = this.commitLines.get(accountId);
    if (!line) this.commitLines.set(accountId, (line = createFifoSemaphore(1)));
    const granted = line.acquire();
    return {
      reached: () => granted,
      done: () =>
        void granted.then((release) => {
          release();
          if (line.active === 0 && line.waiting === 0) this.commitLines.delete(accountId);
        }),
    };
  }

  /** Everything before the commit: whether the item is already answered, else the image prepared and analysed. */
  private async plan(ref: CollectionRef, payload: IngestPayload, item: IngestItem): Promise<ItemPlan> {
    const existing = (await this.images.findByPaths(ref, [item.filepath])).get(item.filepath);
    if (existing && existing.ingest_token === item.staged_key) return { outcome: null };
    if (existing && payload.on_existing === 'refuse') {
      // An earlier attempt of this job, killed between writing the blobs and committing, may have left them; no row
      // can point to them (the path belongs to another upload's row).
      await this.forgetBlobs(payload, item);
      return { outcome: alreadyExistsMessage(item.filepath) };
    }

    const data = await this.blobs.get(item.staged_key);
    if (data === null) return { outcome: `${item.filepath}: The uploaded file could not be read back; please send it again.` };

    const preparation = await this.compute.run(prepareImageTask, { data, preferredSide: payload.preferred_side, cropBorders: payload.crop_borders === true });
    if ('refused' in preparation) return { outcome: `${item.filepath}: ${preparation.refused}` };
    const image = preparation.image;
    const hookInput: IngestHookInput = { payload, item, normalized: image.normalized, gray: image.gray, features: image.features };
    const seconds = { resize: image.seconds.resize, add: image.seconds.features, stages: {} as Record<string, number> };
    const analyses = [];
    try {
      for (const hook of this.hooks(payload.service)) {
        const watch = new Stopwatch().start();
        analyses.push({ hook, analysis: await hook.analyze(hookInput) });
        if (hook.stat) seconds.stages[hook.stat] = (seconds.stages[hook.stat] ?? 0) + watch.stop();
        else seconds.add += watch.stop();
      }
    } catch (error) {
      if (error instanceof ImageInputError) return { outcome: `${item.filepath}: ${error.message}` };
      throw error;
    }
    return { data, analyses, hookInput, seconds, ...storedForm(payload, item, image) };
  }

  /** Returns null when the image is in the collection afterwards, else the error message. */
  private async commit(ref: CollectionRef, payload: IngestPayload, item: IngestItem, plan: ItemPlan, timing: IngestResult): Promise<string | null> {
    if ('outcome' in plan) return plan.outcome;
    for (const [stat, value] of Object.entries(plan.seconds.stages)) timing.stage_times[stat] = (timing.stage_times[stat] ?? 0) + value;
    const addWatch = new Stopwatch().start();
    const keys = blobKeys(payload, item);
    plan.row.blob_key = keys.original;
    plan.row.norm_blob_key = keys.normalized;
    await Promise.all([this.blobs.put(keys.original, plan.data), this.blobs.put(keys.normalized, plan.normalizedJpeg)]);
    let replaced: string[] = [];
    try {
      replaced = await this.images.transaction(async (tx) => {
        const old = payload.on_existing === 'replace' ? await this.images.deleteByPaths(ref, [item.filepath], tx) : [];
        const imagePk = await this.images.insert(ref, plan.row, plan.features, tx);
        for (const { hook, analysis } of plan.analyses) await hook.persist(tx, imagePk, analysis, plan.hookInput);
        return old.flatMap((r) => [r.blob_key, r.norm_blob_key]);
      });
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
        // Another run of this same job (BullMQ restarts a job whose worker stopped answering, which may yet be alive)
        // committed this item first: the row is ours and points to these very blobs.
        const winner = (await this.images.findByPaths(ref, [item.filepath])).get(item.filepath);
        if (winner?.ingest_token === item.staged_key) return null;
        await this.forgetBlobs(payload, item);
        return alreadyExistsMessage(item.filepath);
      }
      await this.forgetBlobs(payload, item);
      throw error;
    }
    // A replaced row of another run of this job has the same keys as the new one: those blobs stay.
    await Promise.all(replaced.filter((key) => key !== keys.original && key !== keys.normalized).map((key) => this.blobs.delete(key)));
    timing.time_add += plan.seconds.add + addWatch.stop();
    timing.time_resize += plan.seconds.resize;
    return null;
  }

  private async forgetBlobs(payload: IngestPayload, item: IngestItem): Promise<void> {
    const keys = blobKeys(payload, item);
    await Promise.all([this.blobs.delete(keys.original), this.blobs.delete(keys.normalized)]);
  }
}

/** The keys follow from the staged upload, so every attempt at this item writes the same ones (see collectionBlobPrefix). */
function blobKeys(payload: IngestPayload, item: IngestItem): { original: string; normalized: string } {
  const prefix = collectionBlobPrefix(payload.account, payload.service, item.filepath, item.staged_key);
  return { original: `${prefix}/original`, normalized: `${prefix}/normalized.jpg` };
}

/** The image's row (blob keys set at commit) and its serialised features. */
function storedForm(payload: IngestPayload, item: IngestItem, image: PreparedImage): { row: NewImage; normalizedJpeg: Buffer; features: { count: number; data: Buffer } } {
  const { normalized, assessment, features } = image;
  const info = normalized.original;
  const searchable = features !== null && features.count > 0;
  return {
    normalizedJpeg: Buffer.from(image.normalizedJpeg.buffer, image.normalizedJpeg.byteOffset, image.normalizedJpeg.byteLength),
    row: {
      filepath: item.filepath,
      image_id: item.image_id,
      format: info.format,
      width: info.width,
      height: info.height,
      norm_width: normalized.width,
      norm_height: normalized.height,
      blob_key: '',
      norm_blob_key: '',
      fingerprint_health: features ? fingerprintHealth(features) : 0,
      searchable,
      unsearchable_reason: assessment.reason ?? (searchable ? null : NO_FEATURES_REASON),
      metadata: item.metadata ?? {},
      ingest_token: item.staged_key,
    },
    features: features ? { count: features.count, data: serializeFeatures(features) } : { count: 0, data: Buffer.alloc(0) },
  };
}
