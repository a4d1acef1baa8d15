import { StagingSweeper, stagingKey } from '@loupe/jobs';
import { loadConfig, openInfrastructure } from '@loupe/runtime';
import { mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ACCOUNT, call, formWith, PASSWORD, USER } from './harness';
import { sceneJpeg } from './images';
import { freePort, killHard, startApp, waitFor } from './processes';

const HOUR = 3_600_000;

async function stagedFiles(dataDir: string): Promise<string[]> {
  return (await readdir(path.join(dataDir, 'blobs', 'staging')).catch(() => [] as string[])).map((name) => `staging/${name}`);
}

describe('staged uploads of a killed gateway (embedded)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('are left behind by the kill, and the staging sweep deletes them once old, sparing fresh ones', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-staging-kill-'));
    dirs.push(dataDir);
    const port = await freePort();
    const env = { PORT: String(port), DATA_DIR: dataDir, ACCOUNTS: `${ACCOUNT}:${USER}:${PASSWORD}`, DATABASE_URL: '', REDIS_URL: '', S3_ENDPOINT: '' };
    const sys = { url: `http://127.0.0.1:${port}` };
    const gateway = startApp('gateway', env);
    try {
      await waitFor('the gateway to listen', async () => (await call(sys, 'mobile', 'ping').catch(() => null))?.status === 200, 60_000, 200);
      const files = await Promise.all(
        Array.from({ length: 8 }, (_, i) => sceneJpeg(300 + i, 2000, 1500).then((data) => ({ field: `images[${i}]`, data, filename: `staged/${i}.jpg` }))),
      );
      const pending = call(sys, 'mobile', 'add', { form: formWith(files) }).catch((error: Error) => error);
      // All eight are staged before the job starts, which deletes each one once its image is done (seconds for
      // these sizes): kill while most are still waiting.
      await waitFor('the upload to be staged', async () => (await stagedFiles(dataDir)).length >= files.length, 60_000, 5);
      await killHard(gateway.child);
      expect(await pending).toBeInstanceOf(Error);
    } finally {
      await killHard(gateway.child);
    }

    const leftBehind = await stagedFiles(dataDir);
    expect(leftBehind.length).toBeGreaterThan(0);
    const infra = await openInfrastructure(loadConfig(env));
    try {
      const fresh = stagingKey();
      await infra.blobs.put(fresh, Buffer.from('a call being served now'));
      const sweeper = new StagingSweeper(infra.blobs, { maxAgeHours: loadConfig(env).stagingMaxAgeHours });
      // Just after the crash nothing is old enough: a job may still read it.
      expect(await sweeper.sweepOnce()).toEqual({ deleted: 0, kept: leftBehind.length + 1 });
      // A day and more later (file times moved back, as the sweep reads them from the store).
      const then = new Date(Date.now() - 26 * HOUR);
      for (const key of leftBehind) await utimes(path.join(dataDir, 'blobs', ...key.split('/')), then, then);
      expect(await sweeper.sweepOnce()).toEqual({ deleted: leftBehind.length, kept: 1 });
      expect(await stagedFiles(dataDir)).toEqual([fresh]);
    } finally {
      await infra.close();
    }
  }, 180_000);
});
