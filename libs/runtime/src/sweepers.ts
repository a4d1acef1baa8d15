import { ExpirySweeper, StagingSweeper } from '@loupe/jobs';
import type { AppConfig } from './config';
import type { Infrastructure } from './infrastructure';

/**
 * The background sweeps of a process that runs jobs (a worker, or the gateway in embedded mode or with RUN_WORKERS):
 * expired overlays, nonces and rate buckets of the public API, and staged uploads left behind by killed processes.
 * Every interval, with `report` told what each sweep did (or the error it met).
 */
export function startSweepers(
  config: Pick<AppConfig, 'overlayTtlHours' | 'stagingMaxAgeHours' | 'sweepIntervalMinutes'>,
  infra: Pick<Infrastructure, 'publicApi' | 'blobs'>,
  report: (message: string, error?: unknown) => void,
): { stop(): Promise<void> } {
  const sweeps = [
    new ExpirySweeper(infra.publicApi, infra.blobs, { overlayTtlHours: config.overlayTtlHours }).start(config.sweepIntervalMinutes, report),
    new StagingSweeper(infra.blobs, { maxAgeHours: config.stagingMaxAgeHours }).start(config.sweepIntervalMinutes, report),
  ];
  return { stop: async () => void (await Promise.all(sweeps.map((sweep) => sweep.stop()))) };
}
