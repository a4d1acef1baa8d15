import { COLLECTION_CANDIDATES_KIND, collectionCandidateKinds, JOB_POLICY, JobKind, PUBLIC_CANDIDATES_KIND, publicCandidateKinds, startVocabularyMigration } from '@loupe/jobs';
import { createBullQueue, JobQueue, startBullWorkers } from '@loupe/queue';
import { configuredWorkerServices, createLogger, fanOutKinds, instrumentProcessors, loadConfig, Metrics, openInfrastructure, reportTo, serveMetrics, startSweepers, warnTo } from '@loupe/runtime';

/** Without snapshots, collections from this size up are loaded at start by their shard owners. */
const LARGE_COLLECTION_IMAGES = 20_000;

/**
 * A worker process: runs the processors of the job kinds named in WORKER_QUEUES (default: all) against the shared
 * Redis, Postgres and blob store. Start as many as the load needs; each takes WORKER_CONCURRENCY jobs at a time.
 * It serves /metrics and /health/live on METRICS_PORT (default 9464) for Prometheus and Kubernetes.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.redisUrl) {
    throw new Error('REDIS_URL is not set: a separate worker needs Redis. Without it, `npm start` runs the workers in the gateway process.');
  }
  const log = createLogger('worker', config.logLevel);
  const metrics = new Metrics();
  const infra = await openInfrastructure(config);
  // With PUBLIC_SHARD_SETS (COLLECTION_SHARD_SETS), a public (collection) search here fans out one candidate job per
  // shard set to the sets' owners; with INGEST_FAN_OUT, an add hands each image's preparation to the fleet.
  const publicKinds = publicCandidateKinds(config.publicShardSets);
  const collectionKinds = collectionCandidateKinds(config.collectionShardSets);
  const handedKinds = fanOutKinds(config);
  const fanOut: JobQueue | null =
    handedKinds.length > 0 ? createBullQueue({ policy: JOB_POLICY, redisUrl: config.redisUrl, prefix: config.redisPrefix, kinds: handedKinds, pickupTimeoutMs: config.queuePickupTimeoutMs, warn: warnTo(log) }) : null;
  const services = configuredWorkerServices(config, infra, () => fanOut);
  const processors = instrumentProcessors(services.processors, metrics, log);
  const known = Object.keys(processors);
  const kinds = config.workerQueues;
  const unknown = kinds.filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    await fanOut?.close();
    await infra.close();
    const hint = (prefix: string, variable: string, value: string | undefined) =>
      unknown.some((k) => k.startsWith(prefix)) ? ` (${prefix}_<set> kinds follow ${variable}${value ? `="${value}"` : ', which is not set'})` : '';
    const hints = hint(PUBLIC_CANDIDATES_KIND, 'PUBLIC_SHARD_SETS', config.publicShardSets) + hint(COLLECTION_CANDIDATES_KIND, 'COLLECTION_SHARD_SETS', config.collectionShardSets);
    throw new Error(`WORKER_QUEUES: unknown job kinds ${unknown.join(', ')}${hints}; known: ${known.join(', ')}.`);
  }
  const running = kinds.length > 0 ? kinds : known;
  // A shard owner loads its shards before it takes candidate jobs, so searches never wait on a load: until then the
  // set's other owners (or the search's timeout) answer.
  for (const kind of running.filter((k) => publicKinds.includes(k))) {
    const started = Date.now();
    await services.processors[kind]({ words: [], limit: 0 }, { kind, group: 'warm-up', attempt: 1 });
    console.log(`Loupe worker: ${kind} loaded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  // Owners of collection shard sets load the large collections' shards (those that get snapshots) for the same reason;
  // smaller ones load within a search's wait.
  const warmCollections = running.filter((k) => collectionKinds.includes(k));
  if (warmCollections.length > 0) {
    const collections = await infra.matchIndex.largeCollections(config.indexSnapshots?.minImages ?? LARGE_COLLECTION_IMAGES);
    for (const kind of warmCollections) {
      const started = Date.now();
      for (const ref of collections) {
        await services.processors[kind]({ op: 'load', account_id: ref.accountId, service: ref.service }, { kind, group: 'warm-up', attempt: 1 });
      }
      console.log(`Loupe worker: ${kind} loaded ${collections.length} large collections in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  }
  // Listening before taking jobs: a port clash stops the process before it has work to abandon, and /health/live
  // (the shard owners' readiness) answers only once the shards above are loaded.
  const metricsServer = await serveMetrics(metrics, config.metricsPort);
  const concurrency = config.workerConcurrency;
  const workers = await startBullWorkers({
    redisUrl: config.redisUrl,
    prefix: config.redisPrefix,
    processors,
    kinds: running,
    concurrency,
    // An image's preparation is CPU work on the compute threads: as many at once as there are threads.
    concurrencyOf: { [JobKind.IngestPrepare]: Math.max(concurrency, services.computeParallelism) },
    stalledIntervalMs: config.workerStalledIntervalMs,
    warn: warnTo(log),
  });
  const report = reportTo(log);
  const sweepers = startSweepers(config, infra, report);
  // Write workers bring words of an earlier search vocabulary over (a no-op once done); see VocabularyMigration.
  const migration = running.includes('ingest') ? startVocabularyMigration(infra, report) : null;
  console.log(`Loupe worker ready for ${kinds.length > 0 ? kinds.join(', ') : 'all job kinds'} (concurrency ${concurrency}, metrics on :${metricsServer.port})`);
  const stop = async (signal: string) => {
    console.log(`${signal}: finishing current jobs and stopping`);
    await metricsServer.close();
    await sweepers.stop();
    await migration?.stop();
    await workers.close();
    await fanOut?.close();
    await services.close();
    await infra.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
