import { ALL_JOB_KINDS, collectionCandidateKinds, createWorkerServices, JOB_POLICY, JobKind, FLEET_PLAN_PARALLELISM, publicCandidateKinds, startVocabularyMigration, WorkerServices } from '@loupe/jobs';
import { createBullQueue, createInProcessQueue, JobQueue, startBullWorkers, WorkerHandle } from '@loupe/queue';
import type { Logger } from 'pino';
import type { AppConfig } from './config';
import type { Infrastructure } from './infrastructure';
import type { Metrics } from './metrics';
import { reportTo, warnTo } from './logging';
import { instrumentProcessors, withRequestIds } from './observability';

export interface QueueRuntime {
  queue: JobQueue;
  workers: WorkerHandle | null;
  close(): Promise<void>;
}

/** The job kinds of the shard-set owners that searches fan out to (none without PUBLIC_/COLLECTION_SHARD_SETS). */
export function shardCandidateKinds(config: AppConfig): string[] {
  return [...publicCandidateKinds(config.publicShardSets), ...collectionCandidateKinds(config.collectionShardSets)];
}

/** The job kinds a worker's own jobs hand work to: shard-set owners, and with INGEST_FAN_OUT the images' preparation. */
export function fanOutKinds(config: AppConfig): string[] {
  return [...shardCandidateKinds(config), ...(config.ingestFanOut ? [JobKind.IngestPrepare] : [])];
}

/**
 * The job processors of a process that runs jobs (a worker, or the gateway in embedded mode or with RUN_WORKERS), as
 * configured; searches reach shard-set owners through `fanOut`.
 */
export function configuredWorkerServices(config: AppConfig, infra: Infrastructure, fanOut: () => JobQueue | null): WorkerServices {
  return createWorkerServices({
    ...infra,
    publicShards: { sets: config.publicShardSets, queue: fanOut },
    collectionShards: { sets: config.collectionShardSets, queue: fanOut },
    indexSnapshots: config.indexSnapshots,
    indexCacheMaxBytes: config.indexCacheMaxBytes,
    ingestFanOut: config.ingestFanOut ? { queue: fanOut, parallelism: FLEET_PLAN_PARALLELISM } : undefined,
    computeThreads: config.computeThreads,
  });
}

/**
 * Embedded mode (no REDIS_URL): an in-process queue that runs the processors here with the same concurrency rules.
 * With Redis: a BullMQ queue; this process also runs workers only when RUN_WORKERS is set.
 */
export async function openQueues(config: AppConfig, infra: Infrastructure, observe: { metrics: Metrics; log: Logger }): Promise<QueueRuntime> {
  // Searches of the public index and of partitioned collections fan out to the shard-set owners through this same
  // queue, which is built from these processors.
  let fanOut: JobQueue | null = null;
  const services = configuredWorkerServices(config, infra, () => fanOut);
  const processors = instrumentProcessors(services.processors, observe.metrics, observe.log);
  const migrate = () => startVocabularyMigration(infra, reportTo(observe.log));
  if (!config.redisUrl) {
    const queue = withRequestIds(createInProcessQueue({ policy: JOB_POLICY, processors }));
    fanOut = queue;
    const migration = migrate();
    return {
      queue,
      workers: null,
      close: async () => {
        await migration.stop();
        await queue.close();
        await services.close();
      },
    };
  }
  const queue = withRequestIds(
    createBullQueue({
      policy: JOB_POLICY,
      redisUrl: config.redisUrl,
      prefix: config.redisPrefix,
      kinds: [...ALL_JOB_KINDS, ...shardCandidateKinds(config)],
      pickupTimeoutMs: config.queuePickupTimeoutMs,
      warn: warnTo(observe.log),
    }),
  );
  fanOut = queue;
  const workers = config.runWorkers
    ? await startBullWorkers({ redisUrl: config.redisUrl, prefix: config.redisPrefix, processors, kinds: Object.keys(processors), warn: warnTo(observe.log) })
    : null;
  const migration = workers ? migrate() : null;
  return {
    queue,
    workers,
    close: async () => {
      await migration?.stop();
      await workers?.close();
      await queue.close();
      await services.close();
    },
  };
}
