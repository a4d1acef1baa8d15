import { MAX_CALL_TIMEOUT_MS } from '@loupe/queue';
import type { BlobStore } from '@loupe/storage';
import { STAGING_PREFIX } from './blob-keys';
import { startPeriodicSweep } from './periodic-sweep';
import { HOUR_MS } from './durations';

/**
 * A job reads its staged inputs when it starts, and it starts within the caller's `timeout` (at most
 * MAX_CALL_TIMEOUT_MS) or not at all. The hour on top covers the downloads before the call was queued and clocks a
 * little apart (the store's modification times against this process's clock). Younger blobs are never swept,
 * whatever STAGING_MAX_AGE_HOURS says.
 */
export const MIN_STAGING_AGE_HOURS = MAX_CALL_TIMEOUT_MS / HOUR_MS + 1;

export interface StagingSweepReport {
  deleted: number;
  /** Staged blobs still young enough that a job may need them. */
  kept: number;
}

/**
 * Deletes staged uploads that no job will read any more: a gateway or worker killed between staging and the end of
 * its job leaves them behind, and nothing else ever deletes them. Runs where the ExpirySweeper runs (processes that
 * run workers); sweepers running at once only repeat a listing, and deleting a blob that is already gone is fine.
 */
export class StagingSweeper {
  private readonly maxAgeMs: number;

  constructor(
    private readonly blobs: BlobStore,
    options: { maxAgeHours: number },
  ) {
    this.maxAgeMs = Math.max(options.maxAgeHours, MIN_STAGING_AGE_HOURS) * HOUR_MS;
  }

  async sweepOnce(now = Date.now()): Promise<StagingSweepReport> {
    const report: StagingSweepReport = { deleted: 0, kept: 0 };
    const cutoff = now - this.maxAgeMs;
    for await (const blob of this.blobs.list(STAGING_PREFIX)) {
      if (blob.modifiedAt.getTime() > cutoff) {
        report.kept++;
        continue;
      }
      await this.blobs.delete(blob.key);
      report.deleted++;
    }
    return report;
  }

  /** Sweeps every `intervalMinutes` (0: never); see startPeriodicSweep. */
  start(intervalMinutes: number, log: (message: string, error?: unknown) => void): { stop(): Promise<void> } {
    const summary = (r: StagingSweepReport) =>
      r.deleted > 0 ? `staging sweep: deleted ${r.deleted} staged uploads older than ${this.maxAgeMs / HOUR_MS} h left by stopped processes` : null;
    return startPeriodicSweep(intervalMinutes, async () => summary(await this.sweepOnce()), log, 'staging sweep');
  }
}
