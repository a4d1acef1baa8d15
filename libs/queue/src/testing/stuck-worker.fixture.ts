/**
 * A worker process whose "ingest" job never ends: the test SIGKILLs it mid-job to show another worker finishes it.
 * argv: redisUrl prefix stalledIntervalMs ('default' for the library's default)
 */
import { startBullWorkers } from '../bull/bull-workers';

const [redisUrl, prefix, stalledIntervalMs] = process.argv.slice(2);
startBullWorkers({
  redisUrl,
  prefix,
  stalledIntervalMs: stalledIntervalMs === 'default' ? undefined : Number(stalledIntervalMs),
  processors: {
    ingest: () => {
      process.stdout.write('started\n');
      return new Promise(() => undefined);
    },
  },
}).then(
  () => process.stdout.write('ready\n'),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
