import { extractFeatures, Features, fingerprintHealth, GrayImage, serializeFeatures } from '@loupe/fingerprint';
import { assessImage, cropImage, encodeJpeg, findContentBox, grayImageOf, ImageInputError, NormalizedImage, normalizeImage } from '@loupe/imaging';
import type { BlobStore, CollectionRef, ImageRepository, NewImage, Queryable } from '@loupe/storage';
import { collectionBlobPrefix } from './blob-keys';
import { IngestItem, IngestPayload, IngestResult, NO_FEATURES_REASON } from './contracts';
import { Stopwatch } from './stopwatch';

/** JPEG quality of the stored normalised copy: high enough that later feature extraction and overlays lose nothing visible. */
const NORMALIZED_JPEG_QUALITY = 90;

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
 * any transaction), `persist` runs inside the transaction that inserts the row, so its data commits with the image or
 * not at all. Rows of other tables must reference images(id) ON DELETE CASCADE so that delete and replace clean them.
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

interface Prepared {
  row: NewImage;
  normalizedJpeg: Buffer;
  analyses: Array<{ hook: IngestHook; analysis: unknown }>;
  hookInput: IngestHookInput;
  features: { count: number; data: Buffer };
}

/**
 * Adds images to a collection. Each image is decoded, validated, normalised and fingerprinted, its blobs written,
 * and then its row and features are committed in one transaction: a crash at any point leaves the collection with
 * the whole image or none of it. Re-running a job is safe: a row carrying the job's staging token is recognised as
 * already added, and blobs a crashed run wrote before its commit are written again under the same keys (or removed
 * when the item ends without its row), so none is left behind without a row.
 */
export class IngestService {
  constructor(
    private readonly images: ImageRepository,
    private readonly blobs: BlobStore,
    private readonly hooks: IngestHooks = () => [],
  ) {}

  async ingest(payload: IngestPayload): Promise<IngestResult> {
    const ref: CollectionRef = { accountId: payload.account_id, service: payload.service };
    const result: IngestResult = { errors: [], added: [], time_resize: 0, time_add: 0, stage_times: {} };
    const seen = new Set<string>();
    for (const item of payload.items) {
      try {
        if (seen.has(item.filepath)) {
          result.errors.push(alreadyExistsMessage(item.filepath));
          continue;
        }
        seen.add(item.filepath);
        let outcome: string | null;
        try {
          outcome = await this.ingestOne(ref, payload, item, result);
        } catch (error) {
          // Once an image of the call is in, failing the whole call (e.g. the database went away mid-batch) would tell
          // the caller nothing was added while some was: the answer names what failed instead. Before that, nothing
          // changed and the job fails as a whole, with the error's detail in the worker's log.
          if (result.added.length === 0) throw error;
          outcome = notStoredMessage(item.filepath);
        }
        if (outcome === null) result.added.push(item.filepath);
        else result.errors.push(outcome);
      } finally {
        await this.blobs.delete(item.staged_key);
      }
    }
    // Sums of per-image times pick up float noise (0.1 + 0.2); envelopes show microseconds.
    result.time_resize = Math.round(result.time_resize * 1e6) / 1e6;
    result.time_add = Math.round(result.time_add * 1e6) / 1e6;
    for (const [stat, value] of Object.entries(result.stage_times)) result.stage_times[stat] = Math.round(value * 1e6) / 1e6;
    return result;
  }

  /** Returns null when the image is in the collection afterwards, else the error message. */
  private async ingestOne(ref: CollectionRef, payload: IngestPayload, item: IngestItem, timing: IngestResult): Promise<string | null> {
    // The keys follow from the staged upload, so every attempt at this item writes the same ones (see collectionBlobPrefix).
    const prefix = collectionBlobPrefix(payload.account, payload.service, item.filepath, item.staged_key);
    const keys = { original: `${prefix}/original`, normalized: `${prefix}/normalized.jpg` };
    const forgetBlobs = () => Promise.all([this.blobs.delete(keys.original), this.blobs.delete(keys.normalized)]);

    const existing = (await this.images.findByPaths(ref, [item.filepath])).get(item.filepath);
    if (existing && existing.ingest_token === item.staged_key) return null;
    if (existing && payload.on_existing === 'refuse') {
      // An earlier attempt of this job, killed between writing the blobs and committing, may have left them; no row
      // can point to them (the path belongs to another upload's row).
      await forgetBlobs();
      return alreadyExistsMessage(item.filepath);
    }

    const data = await this.blobs.get(item.staged_key);
    if (data === null) return `${item.filepath}: The uploaded file could not be read back; please send it again.`;

    let prepared: Prepared;
    const resizeWatch = new Stopwatch();
    const addWatch = new Stopwatch();
    try {
      prepared = await this.prepare(payload, item, data, resizeWatch, addWatch, timing.stage_times);
    } catch (error) {
      if (error instanceof ImageInputError) return `${item.filepath}: ${error.message}`;
      throw error;
    }

    addWatch.start();
    prepared.row.blob_key = keys.original;
    prepared.row.norm_blob_key = keys.normalized;
    await this.blobs.put(keys.original, data);
    await this.blobs.put(keys.normalized, prepared.normalizedJpeg);
    let replaced: string[] = [];
    try {
      replaced = await this.images.transaction(async (tx) => {
        const old = payload.on_existing === 'replace' ? await this.images.deleteByPaths(ref, [item.filepath], tx) : [];
        const imagePk = await this.images.insert(ref, prepared.row, prepared.features, tx);
        for (const { hook, analysis } of prepared.analyses) await hook.persist(tx, imagePk, analysis, prepared.hookInput);
        return old.flatMap((r) => [r.blob_key, r.norm_blob_key]);
      });
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
        // Another run of this same job (BullMQ restarts a job whose worker stopped answering, which may yet be alive)
        // committed this item first: the row is ours and points to these very blobs.
        const winner = (await this.images.findByPaths(ref, [item.filepath])).get(item.filepath);
        if (winner?.ingest_token === item.staged_key) return null;
        await forgetBlobs();
        return alreadyExistsMessage(item.filepath);
      }
      await forgetBlobs();
      throw error;
    }
    // A replaced row of another run of this job has the same keys as the new one: those blobs stay.
    await Promise.all(replaced.filter((key) => key !== keys.original && key !== keys.normalized).map((key) => this.blobs.delete(key)));
    timing.time_add += addWatch.stop();
    timing.time_resize += resizeWatch.elapsed;
    return null;
  }

  private async prepare(
    payload: IngestPayload,
    item: IngestItem,
    data: Buffer,
    resizeWatch: Stopwatch,
    addWatch: Stopwatch,
    stageTimes: Record<string, number>,
  ): Promise<Prepared> {
    resizeWatch.start();
    // Normalising reads and validates the whole file (corrupt, truncated, animated): no separate inspection decode.
    const full = await normalizeImage(data, { preferredSide: payload.preferred_side });
    const info = full.original;
    const normalized: NormalizedImage = payload.crop_borders ? { ...full, ...cropImage(full, findContentBox(full)) } : full;
    const assessment = assessImage(normalized, info);
    const normalizedJpeg = await encodeJpeg(normalized, NORMALIZED_JPEG_QUALITY);
    resizeWatch.stop();

    addWatch.start();
    const gray = grayImageOf(normalized);
    const features = assessment.extremelySmall || assessment.singleColor ? null : await extractFeatures(gray);
    const hookInput: IngestHookInput = { payload, item, normalized, gray, features };
    const analyses = [];
    for (const hook of this.hooks(payload.service)) {
      if (hook.stat) addWatch.stop();
      const watch = new Stopwatch().start();
      analyses.push({ hook, analysis: await hook.analyze(hookInput) });
      if (hook.stat) {
        stageTimes[hook.stat] = (stageTimes[hook.stat] ?? 0) + watch.stop();
        addWatch.start();
      }
    }
    addWatch.stop();
    const health = features ? fingerprintHealth(features) : 0;
    const searchable = features !== null && features.count > 0;
    return {
      normalizedJpeg,
      analyses,
      hookInput,
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
        fingerprint_health: health,
        searchable,
        unsearchable_reason: assessment.reason ?? (searchable ? null : NO_FEATURES_REASON),
        metadata: item.metadata ?? {},
        ingest_token: item.staged_key,
      },
      features: features
        ? { count: features.count, data: serializeFeatures(features) }
        : { count: 0, data: Buffer.alloc(0) },
    };
  }
}
