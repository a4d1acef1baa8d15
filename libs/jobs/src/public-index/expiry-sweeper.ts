import type { BlobStore, PublicApiRepository } from '@loupe/storage';
import { HOUR_MS } from '../durations';
import { hourOf, LEGACY_OVERLAY_PREFIX, OVERLAY_HOUR_PREFIX } from '../match/overlay-store';
import { LEGACY_PUBLIC_OVERLAY_PREFIX, PUBLIC_OVERLAY_HOUR_PREFIX } from './overlay-store';
import { startPeriodicSweep } from '../periodic-sweep';

/**
 * Public overlay links work for an hour after the search (OVERLAY_TTL_SECONDS in the gateway); their blobs are kept
 * at least twice that, whatever OVERLAY_TTL_HOURS says, so no valid link ever points at a deleted overlay.
 */
const MIN_PUBLIC_OVERLAY_HOURS = 2;
/** Rate-limit rows idle this long are dropped (a bucket is full again after a minute, so this changes no answer). */
const RATE_BUCKET_IDLE_SECONDS = 3600;
/**
 * The first sweep of a deployment starts this far before the expiry cut-off. Hour keys exist only since this
 * sweeper did, so a week covers a deployment that ran new code with sweeping switched off for a while.
 */
const FIRST_SWEEP_LOOKBACK_HOURS = 7 * 24;

const LEGACY_FIRST_SEEN = 'legacy-overlays-first-sweep';
const LEGACY_DONE = 'legacy-overlays-deleted';

export interface SweepOptions {
  /** OVERLAY_TTL_HOURS: overlays are deleted once they are this old (to the hour). */
  overlayTtlHours: number;
  firstSweepLookbackHours?: number;
}

export interface SweepReport {
  /** Overlay hours whose blobs were deleted, per prefix. */
  overlayHours: number;
  overlays: number;
  legacyOverlays: number;
  nonces: number;
  rateBuckets: number;
}

/**
 * Deletes what expires: rendered overlays (collection services and public API) once OVERLAY_TTL_HOURS old, expired
 * API nonces and idle rate-limit rows in Postgres. Every process that runs workers sweeps every
 * SWEEP_INTERVAL_MINUTES; sweeps are idempotent and the hour cursors only move forward, so sweepers running at once
 * only repeat a little work.
 */
export class ExpirySweeper {
  constructor(
    private readonly repo: PublicApiRepository,
    private readonly blobs: BlobStore,
    private readonly options: SweepOptions,
  ) {}

  async sweepOnce(now = Date.now()): Promise<SweepReport> {
    const report: SweepReport = { overlayHours: 0, overlays: 0, legacyOverlays: 0, nonces: 0, rateBuckets: 0 };
    const ttl = this.options.overlayTtlHours;
    for (const [prefix, hours] of [
      [OVERLAY_HOUR_PREFIX, ttl],
      [PUBLIC_OVERLAY_HOUR_PREFIX, Math.max(ttl, MIN_PUBLIC_OVERLAY_HOURS)],
    ] as const) {
      // Hour h holds overlays made in [h, h+1): all of them are `hours` old once h + 1 <= the cut-off hour.
      const cutoff = hourOf(now - hours * HOUR_MS);
      const from = (await this.repo.cursor(prefix)) ?? cutoff - (this.options.firstSweepLookbackHours ?? FIRST_SWEEP_LOOKBACK_HOURS);
      for (let hour = from; hour < cutoff; hour++) {
        report.overlays += await this.blobs.deletePrefix(`${prefix}${hour}/`);
        report.overlayHours++;
      }
      // Advanced after the deletes: a sweeper that dies half-way leaves the hours to the next sweep, never a leak.
      if (cutoff > from) await this.repo.advanceCursor(prefix, cutoff);
    }
    report.legacyOverlays = await this.sweepLegacy(now, ttl);
    report.nonces = await this.repo.deleteExpiredNonces();
    report.rateBuckets = await this.repo.deleteIdleRateBuckets(RATE_BUCKET_IDLE_SECONDS);
    return report;
  }

  /**
   * Overlays stored before keys carried their hour have no age to read. The first sweep notes its time; once every
   * such overlay is surely older than the TTL (one TTL after that first sweep), they all go at once.
   */
  private async sweepLegacy(now: number, ttlHours: number): Promise<number> {
    if ((await this.repo.cursor(LEGACY_DONE)) !== null) return 0;
    const firstSeen = await this.repo.cursor(LEGACY_FIRST_SEEN);
    if (firstSeen === null) {
      await this.repo.advanceCursor(LEGACY_FIRST_SEEN, now);
      return 0;
    }
    if (now - firstSeen < Math.max(ttlHours, MIN_PUBLIC_OVERLAY_HOURS) * HOUR_MS) return 0;
    const deleted = (await this.blobs.deletePrefix(LEGACY_OVERLAY_PREFIX)) + (await this.blobs.deletePrefix(LEGACY_PUBLIC_OVERLAY_PREFIX));
    await this.repo.advanceCursor(LEGACY_DONE, now);
    return deleted;
  }

  /** Sweeps every `intervalMinutes` (0: never); see startPeriodicSweep. */
  start(intervalMinutes: number, log: (message: string, error?: unknown) => void): { stop(): Promise<void> } {
    const summary = (r: SweepReport) =>
      r.overlays + r.legacyOverlays + r.nonces + r.rateBuckets > 0
        ? `sweep: deleted ${r.overlays} overlays (${r.overlayHours} hours), ${r.legacyOverlays} legacy overlays, ${r.nonces} nonces, ${r.rateBuckets} rate buckets`
        : null;
    return startPeriodicSweep(intervalMinutes, async () => summary(await this.sweepOnce()), log, 'sweep');
  }
}
