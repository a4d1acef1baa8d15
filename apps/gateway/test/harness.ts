import { AppConfig, loadConfig } from '@loupe/runtime';
import { createTestDatabase, startS3Server } from '@loupe/storage/src/testing';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Gateway, startGateway } from '../src/bootstrap';

/**
 * Integration suites run in two modes: embedded (PGlite, folder blobs, in-process queue: always) and real (Postgres,
 * Redis, and an S3 server: when TEST_DATABASE_URL and TEST_REDIS_URL are set). `.ci/run` sets them and sets
 * REQUIRE_REAL_SERVERS=1, which turns a missing variable into a failure instead of a skip.
 */
export interface Mode {
  name: 'embedded' | 'real';
  enabled: boolean;
  skipReason?: string;
}

const missing = ['TEST_DATABASE_URL', 'TEST_REDIS_URL'].filter((name) => !process.env[name]);

export const REAL_SKIP_REASON = missing.length > 0 ? `real-server suite skipped: ${missing.join(' and ')} not set` : undefined;

if (REAL_SKIP_REASON && process.env.REQUIRE_REAL_SERVERS === '1') {
  throw new Error(`REQUIRE_REAL_SERVERS=1 but ${missing.join(' and ')} not set: the real-server suites cannot run.`);
}

export const MODES: Mode[] = [
  { name: 'embedded', enabled: true },
  { name: 'real', enabled: REAL_SKIP_REASON === undefined, skipReason: REAL_SKIP_REASON },
];

if (REAL_SKIP_REASON) {
  console.warn(`\n*** ${REAL_SKIP_REASON} (set them to run against Postgres and Redis; .ci/run does) ***\n`);
}

export const ACCOUNT = 'acme';
export const USER = 'alice';
export const PASSWORD = 'wonderland';
export const AUTH = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

export interface TestSystem {
  gateway: Gateway;
  url: string;
  config: AppConfig;
  /** Stops the gateway but keeps its data, so a new one can be started on the same state. */
  stop(): Promise<void>;
  restart(): Promise<TestSystem>;
  /** Stops everything and deletes the data. */
  destroy(): Promise<void>;
}

interface Backing {
  config: AppConfig;
  cleanup(): Promise<void>;
}

async function backingFor(mode: Mode['name'], overrides: Record<string, string>): Promise<Backing> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-test-'));
  const env: NodeJS.ProcessEnv = {
    PORT: '0',
    METRICS_PORT: '0',
    DATA_DIR: dataDir,
    ACCOUNTS: `${ACCOUNT}:${USER}:${PASSWORD},beta:bob:builder`,
    NODE_ENV: 'test',
    ...overrides,
  };
  if (mode === 'embedded') {
    return { config: loadConfig(env), cleanup: () => rm(dataDir, { recursive: true, force: true }) };
  }
  const database = await createTestDatabase(process.env.TEST_DATABASE_URL!);
  const s3 = process.env.TEST_S3_ENDPOINT
    ? { endpoint: process.env.TEST_S3_ENDPOINT, accessKey: process.env.TEST_S3_ACCESS_KEY ?? 'S3RVER', secretKey: process.env.TEST_S3_SECRET_KEY ?? 'S3RVER', close: async () => undefined }
    : await startS3Server(path.join(dataDir, 's3'));
  const config = loadConfig({
    ...env,
    DATABASE_URL: database.url,
    REDIS_URL: process.env.TEST_REDIS_URL,
    REDIS_PREFIX: `loupe-test-${randomUUID().slice(0, 8)}`,
    RUN_WORKERS: 'true',
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY: s3.accessKey,
    S3_SECRET_KEY: s3.secretKey,
    S3_BUCKET: `loupe-test-${randomUUID().slice(0, 8)}`,
    ...overrides,
  });
  return {
    config,
    cleanup: async () => {
      await s3.close();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function system(gateway: Gateway, backing: Backing): TestSystem {
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await gateway.close();
  };
  return {
    gateway,
    url: gateway.url,
    config: backing.config,
    stop,
    restart: async () => {
      await stop();
      return system(await startGateway(backing.config, { host: '127.0.0.1' }), backing);
    },
    destroy: async () => {
      await stop();
      await backing.cleanup();
    },
  };
}

export async function startTestSystem(mode: Mode['name'], overrides: Record<string, string> = {}): Promise<TestSystem> {
  const backing = await backingFor(mode, overrides);
  try {
    return system(await startGateway(backing.config, { host: '127.0.0.1' }), backing);
  } catch (error) {
    await backing.cleanup();
    throw error;
  }
}

/** Calls an operation with Basic auth; `form` becomes a multipart body. */
export async function call(
  sys: { url: string },
  service: string,
  operation: string,
  options: { method?: string; query?: Record<string, string>; form?: FormData; auth?: string | null; account?: string } = {},
): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const query = options.query ? `?${new URLSearchParams(options.query)}` : '';
  const headers: Record<string, string> = {};
  if (options.auth !== null) headers.authorization = options.auth ?? AUTH;
  const res = await fetch(`${sys.url}/${service}/${options.account ?? ACCOUNT}/rest/${operation}/${query}`, {
    method: options.method ?? (options.form ? 'POST' : 'GET'),
    headers,
    body: options.form,
  });
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

export function formWith(files: Array<{ field: string; data: Buffer; filename: string }>, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) form.append(f.field, new Blob([f.data]), f.filename);
  return form;
}
