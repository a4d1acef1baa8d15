import { spawn, ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { openRedis } from '../redis/connection';

/** Redis for the integration tests; the suites skip themselves when it is not set. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? '';

export function randomPrefix(): string {
  return `loupe-test-${randomBytes(6).toString('hex')}`;
}

/** Deletes every key a test run created under its prefix. */
export async function deleteKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = openRedis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}

/** Starts a TypeScript fixture in its own Node process, as a separate gateway or worker would run. */
export function spawnFixture(file: string, args: string[]): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, file), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout?.setEncoding('utf8');
  return child;
}

/** Resolves when the child prints `line` on stdout. */
export function waitForLine(child: ChildProcess, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: string) => {
      seen += chunk;
      if (seen.split('\n').includes(line)) {
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`fixture exited with ${code} before printing "${line}"`)));
  });
}

export function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
