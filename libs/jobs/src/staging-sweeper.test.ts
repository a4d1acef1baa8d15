import { BlobStore, openBlobStore } from '@loupe/storage';
import { startS3Server } from '@loupe/storage/src/testing';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stagingKey } from './blob-keys';
import { MIN_STAGING_AGE_HOURS, StagingSweeper } from './staging-sweeper';

const HOUR = 3_600_000;

describe('the staging sweeper on the folder store', () => {
  let dir: string;
  let blobs: BlobStore;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-staging-'));
    blobs = await openBlobStore({ dataDir: dir });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** Sets a staged blob's modification time, as if it had been staged `hoursAgo` hours ago. */
  const age = async (key: string, hoursAgo: number) => {
    const when = new Date(Date.now() - hoursAgo * HOUR);
    await utimes(path.join(dir, 'blobs', ...key.split('/')), when, when);
  };

  it('deletes staged uploads older than the age limit and keeps younger ones and everything outside staging/', async () => {
    const [old1, old2, young, fresh] = [stagingKey(), stagingKey(), stagingKey(), stagingKey()];
    for (const key of [old1, old2, young, fresh, 'collections/acme/mobile/x/original']) await blobs.put(key, Buffer.from(key));
    await age(old1, 30);
    await age(old2, 26);
    await age(young, 24);
    await age('collections/acme/mobile/x/original', 1000);

    expect(await new StagingSweeper(blobs, { maxAgeHours: 25 }).sweepOnce()).toEqual({ deleted: 2, kept: 2 });
    expect(await blobs.exists(old1)).toBe(false);
    expect(await blobs.exists(old2)).toBe(false);
    expect(await blobs.exists(young)).toBe(true);
    expect(await blobs.exists(fresh)).toBe(true);
    expect(await blobs.exists('collections/acme/mobile/x/original')).toBe(true);
    for (const key of [young, fresh, 'collections/acme/mobile/x/original']) await blobs.delete(key);
  });

  it('never sweeps a staged upload that a job may still read, whatever the configured age', async () => {
    const waiting = stagingKey();
    await blobs.put(waiting, Buffer.from('queued for a day'));
    await age(waiting, MIN_STAGING_AGE_HOURS - 0.5);
    expect(await new StagingSweeper(blobs, { maxAgeHours: 1 }).sweepOnce()).toEqual({ deleted: 0, kept: 1 });
    expect(await blobs.exists(waiting)).toBe(true);
    // A later sweep (the clock injected) finds it past the limit.
    expect(await new StagingSweeper(blobs, { maxAgeHours: 1 }).sweepOnce(Date.now() + HOUR)).toEqual({ deleted: 1, kept: 0 });
    expect(await blobs.exists(waiting)).toBe(false);
  });

  it('sweeps on its interval and logs what it deleted', async () => {
    const left = stagingKey();
    await blobs.put(left, Buffer.from('left behind'));
    await age(left, 48);
    const logged: string[] = [];
    // 0.001 minutes: the first sweep comes within 60 ms.
    const sweeping = new StagingSweeper(blobs, { maxAgeHours: 25 }).start(0.001, (message) => logged.push(message));
    try {
      const giveUpAt = Date.now() + 10_000;
      while ((await blobs.exists(left)) && Date.now() < giveUpAt) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await sweeping.stop();
    }
    expect(await blobs.exists(left)).toBe(false);
    expect(logged[0]).toBe('staging sweep: deleted 1 staged uploads older than 25 h left by stopped processes');
  });
});

describe('the staging sweeper on S3', () => {
  let server: Awaited<ReturnType<typeof startS3Server>>;
  beforeAll(async () => {
    server = await startS3Server();
  });
  afterAll(() => server.close());

  it('finds staged uploads by listing the prefix and deletes them once past the age limit', async () => {
    const blobs = await openBlobStore({ ...server, bucket: 'staging-sweep' });
    const keys = [stagingKey(), stagingKey(), stagingKey()];
    for (const key of keys) await blobs.put(key, Buffer.from(key));
    await blobs.put('collections/acme/match/y/original', Buffer.from('kept'));
    const sweeper = new StagingSweeper(blobs, { maxAgeHours: 25 });
    // S3 keeps its own modification times, so the sweep's clock is moved instead.
    expect(await sweeper.sweepOnce(Date.now() + 24 * HOUR)).toEqual({ deleted: 0, kept: 3 });
    expect(await sweeper.sweepOnce(Date.now() + 26 * HOUR)).toEqual({ deleted: 3, kept: 0 });
    for (const key of keys) expect(await blobs.exists(key)).toBe(false);
    expect(await blobs.exists('collections/acme/match/y/original')).toBe(true);
  });
});
