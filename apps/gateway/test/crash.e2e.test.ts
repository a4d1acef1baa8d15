import { loadConfig, openInfrastructure, AppConfig } from '@loupe/runtime';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ACCOUNT, call, formWith, MODES, PASSWORD, startTestSystem, USER } from './harness';
import { sceneJpeg } from './images';
import { freePort, killHard, startApp, waitFor, serversEnv } from './processes';

/** Ten large images make an add that runs for seconds, so a kill lands in the middle of it. */
async function bigBatch(): Promise<FormData> {
  const files = await Promise.all(
    Array.from({ length: 10 }, (_, i) => sceneJpeg(200 + i, 2400, 1800).then((data) => ({ field: `images[${i}]`, data, filename: `crash/${i}.jpg` }))),
  );
  return formWith(files);
}

/** Every image row must have its features and both blobs: the whole image or none of it. */
async function collectionIsWhole(config: AppConfig): Promise<string[]> {
  const infra = await openInfrastructure(config);
  try {
    const { rows } = await infra.db.query<{ filepath: string; blob_key: string; norm_blob_key: string; has_features: boolean }>(
      `SELECT i.filepath, i.blob_key, i.norm_blob_key, f.image_pk IS NOT NULL AS has_features
         FROM images i LEFT JOIN image_features f ON f.image_pk = i.id ORDER BY i.id`,
    );
    for (const row of rows) {
      expect(row.has_features, `${row.filepath} has features`).toBe(true);
      expect(await infra.blobs.exists(row.blob_key), `${row.filepath} original blob`).toBe(true);
      expect(await infra.blobs.exists(row.norm_blob_key), `${row.filepath} normalized blob`).toBe(true);
    }
    return rows.map((r) => r.filepath);
  } finally {
    await infra.close();
  }
}

async function normalizedCopies(dataDir: string): Promise<number> {
  const entries = await readdir(path.join(dataDir, 'blobs', 'collections'), { recursive: true }).catch(() => [] as string[]);
  return entries.filter((e) => e.endsWith('normalized.jpg')).length;
}

describe('a crash during an add leaves whole images or none (embedded: the whole process dies)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('after SIGKILL mid-add and a restart, every image present is complete and the collection works', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-crash-'));
    dirs.push(dataDir);
    const port = await freePort();
    const env = { PORT: String(port), DATA_DIR: dataDir, ACCOUNTS: `${ACCOUNT}:${USER}:${PASSWORD}`, DATABASE_URL: '', REDIS_URL: '', S3_ENDPOINT: '' };
    const sys = { url: `http://127.0.0.1:${port}` };
    const first = startApp('gateway', env);
    await waitFor('the gateway to listen', async () => (await call(sys, 'mobile', 'ping').catch(() => null))?.status === 200, 60_000, 200);

    const pending = call(sys, 'mobile', 'add', { form: await bigBatch() }).catch((error: Error) => error);
    // The event loop of a busy embedded process answers HTTP late, so watch the blob folder instead: once the third
    // image's normalised copy is written, the add is surely in the middle of its batch.
    await waitFor('the third image to be written', async () => (await normalizedCopies(dataDir)) >= 3, 60_000, 5);
    await killHard(first.child);
    expect(await pending).toBeInstanceOf(Error);

    const present = await collectionIsWhole(loadConfig(env));
    expect(present.length).toBeLessThan(10);

    const second = startApp('gateway', env);
    try {
      await waitFor('the restarted gateway', async () => (await call(sys, 'mobile', 'ping').catch(() => null))?.status === 200, 60_000, 200);
      expect((await call(sys, 'mobile', 'list', { query: { limit: '0' } })).json.result).toEqual(present);
      const retry = await call(sys, 'mobile', 'add', { form: await bigBatch() });
      expect(retry.json.status).toBe('warn');
      expect(retry.json.error).toEqual(present.map((p) => `${p}: This file already exists in the image collection.`));
      expect((await call(sys, 'mobile', 'count')).json.result).toEqual([10]);
    } finally {
      await killHard(second.child);
    }
  }, 180_000);
});

const real = MODES.find((m) => m.name === 'real')!;

describe.skipIf(!real.enabled)('a worker crash during an add (real: BullMQ worker process killed)', () => {
  it('the restarted worker finishes the job: the caller gets ok and all ten images, each complete', async () => {
    const sys = await startTestSystem('real', { RUN_WORKERS: 'false' });
    try {
      const workerEnv = {
        ...serversEnv(sys.config),
        WORKER_STALLED_INTERVAL_MS: '1000',
        METRICS_PORT: '0',
      };
      const first = startApp('worker', workerEnv);
      await waitFor('the worker to start', () => first.output().includes('worker ready'), 60_000);
      const pending = call(sys, 'mobile', 'add', { form: await bigBatch() });
      await waitFor('the first images to be committed', async () => ((await call(sys, 'mobile', 'count')).json.result[0] ?? 0) >= 1, 60_000, 20);
      await killHard(first.child);

      const present = await collectionIsWhole(sys.config);
      expect(present.length).toBeLessThan(10);

      const second = startApp('worker', workerEnv);
      try {
        const answer = await pending;
        expect(answer.json.status, second.output()).toBe('ok');
        expect(answer.json.error).toEqual([]);
        const all = await collectionIsWhole(sys.config);
        expect(all).toHaveLength(10);
        expect(new Set(all).size).toBe(10);
      } finally {
        await killHard(second.child);
      }
    } finally {
      await sys.destroy();
    }
  }, 180_000);
});
