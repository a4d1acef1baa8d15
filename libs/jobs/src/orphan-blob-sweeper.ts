import type { AccountRepository, BlobStore, ImageRepository } from '@loupe/storage';
import { createHash } from 'node:crypto';
import { COLLECTIONS_PREFIX } from './blob-keys';
import { startPeriodicSweep } from './periodic-sweep';
import { MIN_STAGING_AGE_HOURS } from './staging-sweeper';
import { HOUR_MS } from './durations';

/**
 * Collection blobs younger than this are never swept. An ingest writes an image's blobs, then commits its row, within
 * one job; the job starts within the longest call timeout of being queued, and a retried job writes its blobs again
 * (a fresh modification time). So a blob this old with no row is one no job will commit a row for.
 */
export const MIN_ORPHAN_AGE_HOURS = MIN_STAGING_AGE_HOURS;
/** Rows read per page when collecting a collection's referenced blob keys. */
const ROWS_PER_PAGE = 5_000;
/** maintenance_cursors entry: when (epoch ms) the last orphan sweep of this database finished. */
const LAST_SWEEP_CURSOR = 'orphan-blobs:last-sweep-ms';

/** The maintenance cursors shared through the database (PublicApiRepository has them). */
export interface SweepCursors {
  cursor(name: string): Promise<number | null>;
  advanceCursor(name: string, value: number): Promise<void>;
}

export interface OrphanSweepReport {
  deleted: number;
  /** Old enough, and an image row points to it. */
  referenced: number;
  /** Too young to judge: an ingest may still commit its row. */
  young: number;
  /** The sweep did not run: another process swept within the interval. */
  skipped: boolean;
}

/**
 * A 64-bit digest of a blob key: the referenced keys of a million-image collection fit in 16 MB as a sorted array,
 * where a set of the strings would take hundreds. Two keys sharing a digest only keep an orphan (the safe side).
 */
function keyDigest(key: string): bigint {
  return createHash('sha1').update(key).digest().readBigUInt64BE(0);
}

/** The blob keys a collection's rows point to, as sorted digests. */
class ReferencedKeys {
  constructor(private readonly digests: BigUint64Array) {}

  static async of(images: ImageRepository, ref: { accountId: number; service: string } | null): Promise<ReferencedKeys> {
    let digests = new BigUint64Array(1024);
    let count = 0;
    for (let after: string | null = null; ref; ) {
      const page = await images.blobKeysPage(ref, after, ROWS_PER_PAGE);
      if (count + page.keys.length > digests.length) {
        const grown = new BigUint64Array(2 * (count + page.keys.length));
        grown.set(digests.subarray(0, count));
        digests = grown;
      }
      for (const key of page.keys) digests[count++] = keyDigest(key);
      if (page.lastPath === null) break;
      after = page.lastPath;
    }
    return new ReferencedKeys(digests.slice(0, count).sort());
  }

  has(key: string): boolean {
    const digest = keyDigest(key);
    let [low, high] = [0, this.digests.length - 1];
    while (low <= high) {
      const mid = (low + high) >>> 1;
      if (this.digests[mid] === digest) return true;
      if (this.digests[mid] < digest) low = mid + 1;
      else high = mid - 1;
    }
    return false;
  }
}

/** `collections/<account>/<service>/`, the prefix of a collection blob key's collection; null for any other key. */
function collectionOf(key: string): { prefix: string; account: string; service: string } | null {
  const [account, service, ...rest] = key.slice(COLLECTIONS_PREFIX.length).split('/');
  if (!key.startsWith(COLLECTIONS_PREFIX) || account === undefined || service === undefined || rest.length === 0) return null;
  return { prefix: `${COLLECTIONS_PREFIX}${account}/${service}/`, account, service };
}

/**
 * Deletes collection blobs (an image's original and normalised copy) that no image row points to, once they are
 * MIN_ORPHAN_AGE_HOURS old. They are what is left when a process dies between writing an image's blobs and its commit,
 * between deleting rows and deleting their blobs (a delete or an account's removal), or when a cut-off COMMIT's outcome
 * stayed unknown (the ingest keeps the blobs then, rather than risk a row without them). Nothing else ever removes them.
 *
 * It lists every collection blob, so it runs at most once per `everyHours` per database (a cursor in
 * maintenance_cursors), on the periodic sweep's tick in processes running workers; two processes starting it at once
 * only repeat the work. Memory: 8 bytes per referenced blob of the collections being swept.
 */
export class OrphanBlobSweeper {
  constructor(
    private readonly blobs: BlobStore,
    private readonly accounts: Pick<AccountRepository, 'find'>,
    private readonly images: ImageRepository,
    private readonly cursors: SweepCursors,
    private readonly options: { everyHours: number },
  ) {}

  /** Sweeps unless this database was swept within `everyHours` (`force` sweeps anyway). */
  async sweepOnce(now = Date.now(), force = false): Promise<OrphanSweepReport> {
    const report: OrphanSweepReport = { deleted: 0, referenced: 0, young: 0, skipped: false };
    const last = await this.cursors.cursor(LAST_SWEEP_CURSOR);
    if (!force && last !== null && now - last < this.options.everyHours * HOUR_MS) return { ...report, skipped: true };
    const cutoff = now - MIN_ORPHAN_AGE_HOURS * HOUR_MS;
    // Loaded when a collection's first old blob is listed (the listing is in no particular order), kept for the sweep.
    const referencedIn = new Map<string, Promise<ReferencedKeys>>();
    for await (const blob of this.blobs.list(COLLECTIONS_PREFIX)) {
      const collection = collectionOf(blob.key);
      if (!collection) continue;
      if (blob.modifiedAt.getTime() > cutoff) {
        report.young++;
        continue;
      }
      let referenced = referencedIn.get(collection.prefix);
      if (!referenced) {
        referenced = this.referencedKeys(collection.account, collection.service);
        referencedIn.set(collection.prefix, referenced);
      }
      if ((await referenced).has(blob.key)) {
        report.referenced++;
        continue;
      }
      await this.blobs.delete(blob.key);
      report.deleted++;
    }
    await this.cursors.advanceCursor(LAST_SWEEP_CURSOR, now);
    return report;
  }

  /** A collection's referenced keys; none for an account that no longer exists (its removal did not finish). */
  private async referencedKeys(accountName: string, service: string): Promise<ReferencedKeys> {
    const account = await this.accounts.find(accountName);
    return ReferencedKeys.of(this.images, account && { accountId: account.id, service });
  }

  /** Checks every `intervalMinutes` (0: never) whether a sweep is due; see startPeriodicSweep. */
  start(intervalMinutes: number, log: (message: string, error?: unknown) => void): { stop(): Promise<void> } {
    if (this.options.everyHours <= 0) return { stop: async () => undefined };
    const summary = (r: OrphanSweepReport) =>
      r.deleted > 0 ? `orphan blob sweep: deleted ${r.deleted} collection blobs older than ${MIN_ORPHAN_AGE_HOURS} h that no image points to (${r.referenced} in use)` : null;
    return startPeriodicSweep(intervalMinutes, async () => summary(await this.sweepOnce()), log, 'orphan blob sweep');
  }
}
