import type { AppConfig } from '@loupe/runtime';
import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/** The environment that points a spawned app at the same Postgres, Redis, S3 bucket and data folder as `config`. */
export function serversEnv(config: AppConfig): Record<string, string | undefined> {
  return {
    DATABASE_URL: config.databaseUrl,
    REDIS_URL: config.redisUrl,
    REDIS_PREFIX: config.redisPrefix,
    S3_ENDPOINT: config.s3.endpoint,
    S3_ACCESS_KEY: config.s3.accessKey,
    S3_SECRET_KEY: config.s3.secretKey,
    S3_BUCKET: config.s3.bucket,
    DATA_DIR: config.dataDir,
  };
}

/** Starts one of the apps as its own process, as production runs it, with output collected for failure messages. */
export function startApp(app: 'gateway' | 'worker', env: Record<string, string | undefined>): { child: ChildProcess; output: () => string } {
  let output = '';
  // `node --import tsx` keeps the app in this one process: the tsx CLI would run it in a grandchild that a kill misses.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps', app, 'src', 'main.ts')], {
    cwd: ROOT,
    // METRICS_PORT 0 unless a test asks for one: apps started side by side must not all claim 9464.
    env: { METRICS_PORT: '0', ...process.env, ...env, NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return { child, output: () => output };
}

export async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
