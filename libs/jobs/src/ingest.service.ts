import type { Features, GrayImage } from '@loupe/fingerprint';
import type { NormalizedImage } from '@loupe/imaging';
import { createFifoSemaphore, FifoSemaphore } from '@loupe/queue';
import { CommitUnconfirmedError, type BlobStore, type CollectionRef, type ImageRepository, type Queryable } from '@loupe/storage';
import { Compute, IN_THIS_THREAD } from './compute';
import { IngestItem, IngestPayload, IngestResult, unreadableUploadMessage } from './contracts';
import { alreadyExistsMessage, forgetIngestBlobs, ItemPlan, ItemPlanner, LocalItemPlanner, ReadyImage } from './ingest-planning';
import { prepareConcurrentlyConsumeInOrder } from './in-order';
import { Stopwatch } from './stopwatch';

export { alreadyExistsMessage } from './ingest-planning';

/** Postgres error code of a unique-constraint violation (a concurrent add of the same path). */
const UNIQUE_VIOLATION = '23505';

/**
 * How long an add waits for the database to answer again after its COMMIT was cut off (`CommitUnconfirmedError`), to
 * learn whether the image went in: a restarting Postgres is back within seconds, and the answer can then say exactly
 * what was added.
 */
export const COMMIT_CHECK_WINDOW_MS = 30_000;

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
  /** `payload` is the add's (for its options): the analysis may have been made by another process. */
  persist(tx: Queryable, imagePk: number, analysis: A, payload: IngestPayload): Promise<void>;
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

/**
 * Adds images to a collection. Each image is decoded, validated, normalised and fingerprinted, its blobs written,
 * and then its row and features are committed in one transaction: a crash at any point leaves the collection with
 * the whole image or none of it. Re-running a job is safe: a row carrying the job's staging token is recognised as
 * already added, and blobs a crashed run wrote before its commit are written again under the same keys (or removed
 * when the item ends without its row), so none is left behind without a row.
 *
 * The images of a batch are planned concurrently (`ItemPlanner`: on this process's compute threads, or on the worker
 * fleet), but commit one at a time in the batch's order, so the answer and the collection are what one-after-another
 * processing gives. Two calls for one account (the CLI overlaps batches) plan side by side, and commit one call after
 * the other, in call order.
 */
export class IngestService {
  /** Per account, the calls committing or waiting to (dropped when none is). */
  private readonly commitLines = new Map<number, FifoSemaphore>();

  constructor(
    private readonly images: ImageRepository,
    private readonly blobs: BlobStore,
    private readonly hooks: IngestHooks = () => [],
    compute: Pick<Compute, 'run' | 'parallelism'> = IN_THIS_THREAD,
    private readonly planner: ItemPlanner = new LocalItemPlanner(images, blobs, hooks, compute),
    private readonly commitCheckWindowMs = COMMIT_CHECK_WINDOW_MS,
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
        this.planner.parallelism,
        async ({ item, repeated }): Promise<ItemPlan> => (repeated ? { outcome: alreadyExistsMessage(item.filepath) } : this.planner.plan(payload, item)),
        async ({ item }, plan) => {
          try {
            let outcome: string | null;
            try {
              if (plan.status === 'rejected') throw plan.reason;
              await turn.reached();
              outcome = 'ready' in plan.value ? await this.commit(ref, payload, item, plan.value.ready, result) : plan.value.outcome;
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

  /** Returns null when the image is in the collection afterwards, else the error message. */
  private async commit(ref: CollectionRef, payload: IngestPayload, item: IngestItem, ready: ReadyImage, timing: IngestResult): Promise<string | null> {
    const hooks = this.hooks(payload.service);
    // A plan made by a worker of another version: committing it would store the image without a service's data.
    if (hooks.length !== ready.analyses.length) throw new Error(`${item.filepath}: planned with ${ready.analyses.length} service analyses, ${payload.service} has ${hooks.length}.`);
    for (const [stat, value] of Object.entries(ready.seconds.stages)) timing.stage_times[stat] = (timing.stage_times[stat] ?? 0) + value;
    const addWatch = new Stopwatch().start();
    const original = ready.original ?? (await this.blobs.get(item.staged_key));
    if (!original) return unreadableUploadMessage(item.filepath);
    const { blob_key: originalKey, norm_blob_key: normalizedKey } = ready.row;
    await Promise.all([this.blobs.put(originalKey, toBuffer(original)), this.blobs.put(normalizedKey, toBuffer(ready.normalizedJpeg))]);
    let replaced: string[] = [];
    try {
      replaced = await this.images.transaction(async (tx) => {
        const old = payload.on_existing === 'replace' ? await this.images.deleteByPaths(ref, [item.filepath], tx) : [];
        const imagePk = await this.images.insert(ref, ready.row, ready.features, tx);
        for (let i = 0; i < hooks.length; i++) await hooks[i].persist(tx, imagePk, ready.analyses[i], payload);
        return old.flatMap((r) => [r.blob_key, r.norm_blob_key]);
      });
    } catch (error) {
      const committed = error instanceof CommitUnconfirmedError ? await this.committedAfterAll(ref, item) : false;
      // Still unknown: the blobs stay, for the row may point to them (an orphan pair of blobs is the lesser harm).
      if (committed === undefined) throw error;
      if (!committed) {
        if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
          // Another run of this same job (BullMQ restarts a job whose worker stopped answering, which may yet be alive)
          // committed this item first: the row is ours and points to these very blobs.
          if (await this.holdsUpload(ref, item)) return null;
          await forgetIngestBlobs(this.blobs, payload, item);
          return alreadyExistsMessage(item.filepath);
        }
        await forgetIngestBlobs(this.blobs, payload, item);
        throw error;
      }
      // In, after all. Had it replaced a row, that row's blobs are left behind: their keys went with the lost answer.
    }
    // A replaced row of another run of this job has the same keys as the new one: those blobs stay.
    await Promise.all(replaced.filter((key) => key !== originalKey && key !== normalizedKey).map((key) => this.blobs.delete(key)));
    timing.time_add += ready.seconds.add + addWatch.stop();
    timing.time_resize += ready.seconds.resize;
    return null;
  }

  /** Whether the collection's row at the item's path is the one this upload committed (its ingest token). */
  private async holdsUpload(ref: CollectionRef, item: IngestItem): Promise<boolean> {
    return (await this.images.findByPaths(ref, [item.filepath])).get(item.filepath)?.ingest_token === item.staged_key;
  }

  /**
   * `holdsUpload`, asked until the database answers or COMMIT_CHECK_WINDOW_MS has passed (then undefined: unknown).
   */
  private async committedAfterAll(ref: CollectionRef, item: IngestItem): Promise<boolean | undefined> {
    const deadline = Date.now() + this.commitCheckWindowMs;
    for (let pause = 100; ; pause = Math.min(2 * pause, 2_000)) {
      try {
        return await this.holdsUpload(ref, item);
      } catch {
        if (Date.now() + pause > deadline) return undefined;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
