import { ExpirySweeper, OrphanBlobSweeper, StagingSweeper } from '@loupe/jobs';
import type { AppConfig } from './config';
import type { Infrastructure } from './infrastructure';

/**
 * The background sweeps of a process that runs jobs (a worker, or the gateway in embedded mode or with RUN_WORKERS):
 * expired overlays, nonces and rate buckets of the public API, staged uploads left behind by killed processes, and (once
 * per ORPHAN_SWEEP_HOURS per database) collection blobs that no image row points to.
 * Every interval, with `report` told what each sweep did (or the error it met).
 */
export function startSweepers(
  config: Pick<AppConfig, 'overlayTtlHours' | 'stagingMaxAgeHours' | 'orphanSweepHours' | 'sweepIntervalMinutes'>,
  infra: Pick<Infrastructure, 'publicApi' | 'blobs' | 'accounts' | 'images'>,
  report: (message: string, error?: unknown) => void,
): { stop(): Promise<void> } {
  const sweeps = [
    new ExpirySweeper(infra.publicApi, infra.blobs, { overlayTtlHours: config.overlayTtlHours }).start(config.sweepIntervalMinutes, report),
    new StagingSweeper(infra.blobs, { maxAgeHours: config.stagingMaxAgeHours }).start(config.sweepIntervalMinutes, report),
    new OrphanBlobSweeper(infra.blobs, infra.accounts, infra.images, infra.publicApi, { everyHours: config.orphanSweepHours }).start(config.sweepIntervalMinutes, report),
  ];
  return { stop: async () => void (await Promise.all(sweeps.map((sweep) => sweep.stop()))) };
}
