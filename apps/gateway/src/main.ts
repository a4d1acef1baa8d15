import { loadConfig } from '@loupe/runtime';
import { startGateway } from './bootstrap';

async function main(): Promise<void> {
  const config = loadConfig();
  const gateway = await startGateway(config);
  const mode = [
    config.databaseUrl ? 'Postgres' : `PGlite in ${config.dataDir}/pg`,
    config.s3.endpoint ? `S3 at ${config.s3.endpoint}` : `blobs in ${config.dataDir}/blobs`,
    config.redisUrl ? `BullMQ on Redis${config.runWorkers ? ' with in-process workers' : ''}` : 'in-process queue and workers',
  ].join(', ');
  console.log(`Loupe gateway listening on port ${config.port} (${mode})`);
  const stop = async (signal: string) => {
    console.log(`${signal}: shutting down`);
    await gateway.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
