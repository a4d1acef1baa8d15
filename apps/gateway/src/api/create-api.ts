import { AuthThrottle, NonceStore, parseApiKeysSpec, RateLimiter, RedisNonceStore, RedisRateLimiter, seedApiKey } from '@loupe/auth';
import { openRedis, type JobQueue } from '@loupe/queue';
import { startSweepers, type AppConfig, type Infrastructure } from '@loupe/runtime';
import type { PublicApiRepository } from '@loupe/storage';
import { UrlDownloader } from '../inputs/url-fetcher';
import { ApiAuthService } from './api-auth.service';
import type { ApiWiring } from './api-call';
import { KeyHeaderAuth } from './key-header-auth';
import { PublicApiService } from './public-api.service';

/** How often the Postgres nonce table is swept of expired rows (at most; by the next claim after this much time). */
const NONCE_SWEEP_INTERVAL_MS = 5 * 60_000;

/** Postgres as the nonce store when there is no Redis: shared by every replica on the database. */
class PostgresNonceStore implements NonceStore {
  private lastSweep = 0;
  constructor(private readonly repo: PublicApiRepository) {}

  async claim(publicKey: string, nonce: string, expiresAt: number): Promise<boolean> {
    if (Date.now() - this.lastSweep > NONCE_SWEEP_INTERVAL_MS) {
      this.lastSweep = Date.now();
      await this.repo.deleteExpiredNonces();
    }
    return this.repo.claimNonce(publicKey, nonce, expiresAt);
  }
}

class PostgresRateLimiter implements RateLimiter {
  constructor(private readonly repo: PublicApiRepository) {}
  take(bucket: string, perMinute: number) {
    return this.repo.takeRateToken(bucket, perMinute);
  }
}

export interface PublicApi {
  wiring: ApiWiring;
  close(): Promise<void>;
}

/**
 * Wires the public index API: API_KEYS seeded, nonces and rate buckets in Redis when REDIS_URL is set (one round
 * trip, shared by all gateways) and in Postgres otherwise, and the expiry sweeper when this process runs workers.
 */
export async function createPublicApi(
  config: AppConfig,
  infra: Infrastructure,
  queue: JobQueue,
  log: (message: string, error?: unknown) => void,
  shared: { throttle: AuthThrottle },
): Promise<PublicApi> {
  for (const seed of parseApiKeysSpec(config.apiKeys)) {
    await seedApiKey(
      {
        ensureAccount: (name) => infra.accounts.ensure(name),
        upsertKey: (id, pub, priv) => infra.publicApi.upsertKey(id, pub, priv),
        blockCount: (id) => infra.publicApi.blockCount(id),
        addBlock: (id, n, start, expire) => infra.publicApi.addBlock(id, n, start, expire),
      },
      seed,
    );
  }
  const redis = config.redisUrl ? openRedis(config.redisUrl, 'public api', (message) => log(message)) : null;
  const prefix = `${config.redisPrefix}:api`;
  const nonces: NonceStore = redis ? new RedisNonceStore(redis, prefix) : new PostgresNonceStore(infra.publicApi);
  const rateLimiter: RateLimiter = redis ? new RedisRateLimiter(redis, prefix) : new PostgresRateLimiter(infra.publicApi);
  const service = new PublicApiService(infra.publicApi, infra.publicIndex, queue, infra.blobs, rateLimiter, {
    ratePerMinute: config.apiRateLimitPerMinute,
    downloader: new UrlDownloader({ ...config.download, allowPrivate: config.allowPrivateUrls }),
  });
  const wiring: ApiWiring = {
    service,
    auth: new ApiAuthService(infra.publicApi, nonces, config.trustProxy, shared.throttle),
    keyHeader: new KeyHeaderAuth(infra.publicApi, { trustProxy: config.trustProxy, overHttp: config.apiKeyHeaderOverHttp, throttle: shared.throttle }),
    limits: { maxBodyBytes: config.maxBodyBytes, maxFileBytes: config.maxFileBytes },
  };
  // Processes running workers sweep (startSweepers): here in embedded mode or with RUN_WORKERS, otherwise the worker
  // processes do (apps/worker). The gateway's log callback reports errors; a sweep's tally is routine.
  const sweepers = config.runWorkers ? startSweepers(config, infra, (message, error) => (error ? log(message, error) : console.log(message))) : null;
  return {
    wiring,
    close: async () => {
      await sweepers?.stop();
      await redis?.quit().catch(() => undefined);
    },
  };
}
