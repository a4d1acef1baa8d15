import path from 'node:path';

/** Everything the gateway and workers read from the environment, with the documented defaults (README "Configuration"). */
export interface AppConfig {
  port: number;
  dataDir: string;
  databaseUrl?: string;
  redisUrl?: string;
  redisPrefix: string;
  s3: { endpoint?: string; accessKey?: string; secretKey?: string; bucket: string; region?: string };
  accounts?: string;
  allowPrivateUrls: boolean;
  maxBodyBytes: number;
  maxFileBytes: number;
  /**
   * The gateway's HTTP server: a request's headers must arrive within `headersTimeoutMs` and the whole request (body
   * included) within `requestTimeoutMs`, so trickled headers or bodies (slowloris) cannot hold sockets; an idle
   * keep-alive connection is closed after `keepAliveTimeoutMs`. 0 turns a limit off.
   */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number };
  download: { timeoutMs: number; maxBytes: number; maxRedirects: number; concurrencyPerAccount: number };
  /** In embedded mode (no REDIS_URL) workers always run in the gateway process; with Redis only when asked. */
  runWorkers: boolean;
  /** Credentials of the queue dashboard at /admin/queues; without a password it is not served. */
  adminUser: string;
  adminPassword?: string;
  logRequests: boolean;
  /** Public index API: `public:private:searches[,…]` keys ensured at start (README "Public index API"). */
  apiKeys?: string;
  /** Public index API: searches per minute per API key. */
  apiRateLimitPerMinute: number;
  /**
   * Trust X-Forwarded-Proto/Host/Prefix from a reverse proxy when rebuilding the URL a client signed, and the proxy's
   * X-Forwarded-For entry as the client address that failed sign-ins are counted against.
   */
  trustProxy: boolean;
  /** Public index API: accept the private key in an `x-api-key` header over plain HTTP too (otherwise HTTPS only). */
  apiKeyHeaderOverHttp: boolean;
  /** Public index shard sets owned by separate workers, e.g. `0-7,8-15`; unset = every process holds all shards. */
  publicShardSets?: string;
  /**
   * Collection index shard sets owned by separate workers, e.g. `0-7,8-15` (images by id mod 16); unset = every
   * search worker holds whole collections. See infra/README.md, "Partitioned collections".
   */
  collectionShardSets?: string;
  /** Rendered overlays (collection and public API) are deleted this many hours after they were made. */
  overlayTtlHours: number;
  /** How often processes running workers sweep expired overlays, nonces and rate buckets; 0 = never. */
  sweepIntervalMinutes: number;
  /** Staged uploads older than this are deleted by the sweep (never under 25 h: the longest a job may wait, plus 1 h). */
  stagingMaxAgeHours: number;
  /** How often (hours) collection blobs that no image row points to are looked for and deleted; 0 = never. */
  orphanSweepHours: number;
  /** A job no worker has taken this long after it was queued (or after its worker died) is removed and fails. */
  queuePickupTimeoutMs: number;
  /** Port of the gateway's own /metrics and /health/live server, apart from the public PORT (workers read it too). */
  metricsPort: number;
  /**
   * Failed sign-ins (Basic auth) and API key checks allowed per client address, and per user or key from addresses
   * that have failed, in a window of `windowSeconds` from the first failure; 0 = no limit.
   */
  authThrottle: { perAddress: number; perSubject: number; windowSeconds: number };
  /**
   * Where snapshots of large collections' search indexes are kept (a replica starts from one instead of reading every
   * image's words), and the size from which a collection gets one. Without a folder there are none.
   */
  indexSnapshots?: { dir: string; minImages: number };
  /** Bound on the memory of the collection indexes a process keeps (INDEX_CACHE_MAX_MB); unbounded when unset. */
  indexCacheMaxBytes?: number;
  /**
   * INGEST_FAN_OUT: each image of an add is prepared (decoded, fingerprinted, analysed) by an `ingest_prepare` job that
   * any worker takes, instead of on the compute threads of the process running the add's ingest job; the commits
   * stay with that job. One account's bulk add then uses the whole fleet. Off by default.
   */
  ingestFanOut: boolean;
  /**
   * Threads for image preparation, hook analyses and verification (COMPUTE_THREADS; VERIFY_THREADS, its former name,
   * is still read); 0 keeps the work in the calling thread. Unset: `computeThreads`' default (one per core, at most 4).
   */
  computeThreads?: number;
  /** A worker process's job kinds (WORKER_QUEUES, comma-separated); empty = every kind. */
  workerQueues: string[];
  /** Jobs of each kind a worker process takes at once (WORKER_CONCURRENCY). */
  workerConcurrency: number;
  /** How often BullMQ looks for jobs whose worker died (WORKER_STALLED_INTERVAL_MS); BullMQ's own default when unset. */
  workerStalledIntervalMs?: number;
  /** pino's level (LOG_LEVEL): info, and silent under tests (NODE_ENV=test). */
  logLevel: string;
}

function intFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name}: "${raw}" is not a non-negative integer.`);
  return value;
}

function positiveIntFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = intFromEnv(env, name, fallback);
  if (value === 0) throw new Error(`${name}: must be at least 1.`);
  return value;
}

function boolFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  throw new Error(`${name}: "${raw}" is not a boolean (true or false).`);
}

const MB = 1024 * 1024;

function computeThreads(env: NodeJS.ProcessEnv): number | undefined {
  const configured = env.COMPUTE_THREADS ?? env.VERIFY_THREADS;
  if (configured === undefined || configured === '') return undefined;
  const size = Number(configured);
  if (!Number.isInteger(size) || size < 0) throw new Error(`COMPUTE_THREADS must be a whole number of threads (0 for none), got "${configured}".`);
  return size;
}

/**
 * 15 s for headers is ample for any client (they are sent at once); 120 s for the whole request lets a 20 MB upload
 * through a ~1.5 Mbit/s link. Larger bodies on slower links need a larger HTTP_REQUEST_TIMEOUT_MS.
 */
function httpLimits(env: NodeJS.ProcessEnv): AppConfig['http'] {
  const limits = {
    headersTimeoutMs: intFromEnv(env, 'HTTP_HEADERS_TIMEOUT_MS', 15_000),
    requestTimeoutMs: intFromEnv(env, 'HTTP_REQUEST_TIMEOUT_MS', 120_000),
    keepAliveTimeoutMs: intFromEnv(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000),
  };
  // The request timeout covers the headers too: a longer headers timeout could never be reached.
  if (limits.requestTimeoutMs > 0 && limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new Error(`HTTP_HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}) cannot exceed HTTP_REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs}).`);
  }
  return limits;
}

/**
 * Index snapshots: in INDEX_SNAPSHOT_DIR, or by default beside the embedded database (DATA_DIR/index-snapshots); a
 * process with a database server keeps none unless given a folder (in Kubernetes, a volume that outlives the pod).
 */
function indexSnapshots(env: NodeJS.ProcessEnv, databaseUrl: string | undefined, dataDir: string): AppConfig['indexSnapshots'] {
  const dir = env.INDEX_SNAPSHOT_DIR ? path.resolve(env.INDEX_SNAPSHOT_DIR) : databaseUrl ? undefined : path.join(dataDir, 'index-snapshots');
  return dir ? { dir, minImages: intFromEnv(env, 'INDEX_SNAPSHOT_MIN_IMAGES', 20_000) } : undefined;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const redisUrl = env.REDIS_URL || undefined;
  const databaseUrl = env.DATABASE_URL || undefined;
  const dataDir = path.resolve(env.DATA_DIR || './data');
  return {
    port: intFromEnv(env, 'PORT', 8080),
    dataDir,
    databaseUrl,
    redisUrl,
    redisPrefix: env.REDIS_PREFIX || 'loupe',
    s3: {
      endpoint: env.S3_ENDPOINT || undefined,
      accessKey: env.S3_ACCESS_KEY || undefined,
      secretKey: env.S3_SECRET_KEY || undefined,
      bucket: env.S3_BUCKET || 'loupe',
      region: env.S3_REGION || undefined,
    },
    accounts: env.ACCOUNTS || undefined,
    allowPrivateUrls: boolFromEnv(env, 'ALLOW_PRIVATE_URLS', false),
    maxBodyBytes: intFromEnv(env, 'MAX_BODY_MB', 100) * MB,
    maxFileBytes: intFromEnv(env, 'MAX_FILE_MB', 25) * MB,
    http: httpLimits(env),
    download: {
      timeoutMs: intFromEnv(env, 'DOWNLOAD_TIMEOUT_MS', 15_000),
      maxBytes: intFromEnv(env, 'DOWNLOAD_MAX_MB', 25) * MB,
      maxRedirects: intFromEnv(env, 'DOWNLOAD_MAX_REDIRECTS', 5),
      // Downloads run before the per-account job queue; this keeps one account from holding every socket.
      concurrencyPerAccount: intFromEnv(env, 'DOWNLOAD_CONCURRENCY_PER_ACCOUNT', 4),
    },
    adminUser: env.ADMIN_USER || 'admin',
    adminPassword: env.ADMIN_PASSWORD || undefined,
    runWorkers: redisUrl === undefined ? true : boolFromEnv(env, 'RUN_WORKERS', false),
    logRequests: boolFromEnv(env, 'LOG_REQUESTS', env.NODE_ENV !== 'test'),
    apiKeys: env.API_KEYS || undefined,
    // docs/protocol.md §5: 30 searches per minute by default.
    apiRateLimitPerMinute: intFromEnv(env, 'API_RATE_LIMIT_PER_MINUTE', 30),
    trustProxy: boolFromEnv(env, 'TRUST_PROXY', false),
    apiKeyHeaderOverHttp: boolFromEnv(env, 'API_KEY_HEADER_OVER_HTTP', false),
    publicShardSets: env.PUBLIC_SHARD_SETS || undefined,
    collectionShardSets: env.COLLECTION_SHARD_SETS || undefined,
    overlayTtlHours: intFromEnv(env, 'OVERLAY_TTL_HOURS', 24),
    sweepIntervalMinutes: intFromEnv(env, 'SWEEP_INTERVAL_MINUTES', 60),
    stagingMaxAgeHours: intFromEnv(env, 'STAGING_MAX_AGE_HOURS', 25),
    orphanSweepHours: intFromEnv(env, 'ORPHAN_SWEEP_HOURS', 24),
    queuePickupTimeoutMs: intFromEnv(env, 'QUEUE_PICKUP_TIMEOUT_MS', 30_000),
    metricsPort: intFromEnv(env, 'METRICS_PORT', 9464),
    authThrottle: {
      perAddress: intFromEnv(env, 'AUTH_FAILURES_PER_ADDRESS', 20),
      perSubject: intFromEnv(env, 'AUTH_FAILURES_PER_USER', 10),
      windowSeconds: positiveIntFromEnv(env, 'AUTH_FAILURE_WINDOW_SECONDS', 900),
    },
    indexSnapshots: indexSnapshots(env, databaseUrl, dataDir),
    indexCacheMaxBytes: env.INDEX_CACHE_MAX_MB ? positiveIntFromEnv(env, 'INDEX_CACHE_MAX_MB', 1) * 1024 * 1024 : undefined,
    ingestFanOut: boolFromEnv(env, 'INGEST_FAN_OUT', false),
    computeThreads: computeThreads(env),
    workerQueues: (env.WORKER_QUEUES ?? '').split(',').map((kind) => kind.trim()).filter(Boolean),
    workerConcurrency: positiveIntFromEnv(env, 'WORKER_CONCURRENCY', 1),
    workerStalledIntervalMs: env.WORKER_STALLED_INTERVAL_MS ? positiveIntFromEnv(env, 'WORKER_STALLED_INTERVAL_MS', 1) : undefined,
    logLevel: env.LOG_LEVEL || (env.NODE_ENV === 'test' ? 'silent' : 'info'),
  };
}
