import { createProcessors, JobKind, stagingKey, type FingerprintResult, type IngestResult, type SearchResult } from '@loupe/jobs';
import { ensureAccountUser, Infrastructure, loadConfig, openInfrastructure } from '@loupe/runtime';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sceneJpeg } from './images';

const JOB = { kind: 'test', group: 'acme', attempt: 1 };

describe('reindex (re-fingerprint) of a matching collection (embedded)', () => {
  let work: string;
  let infra: Infrastructure;
  let processors: ReturnType<typeof createProcessors>;
  let accountId: number;

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'loupe-reindex-test-'));
    infra = await openInfrastructure(loadConfig({ DATA_DIR: path.join(work, 'data'), NODE_ENV: 'test' }));
    await ensureAccountUser(infra.accounts, { account: 'acme', username: 'u', password: 'p' });
    accountId = Number((await infra.accounts.find('acme'))!.id);
    processors = createProcessors({ images: infra.images, blobs: infra.blobs, matchIndex: infra.matchIndex, db: infra.db });
  }, 60_000);

  afterAll(async () => {
    await infra?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const stage = async (data: Buffer) => {
    const key = stagingKey();
    await infra.blobs.put(key, data);
    return key;
  };

  const search = async (data: Buffer) =>
    (await processors[JobKind.Search](
      {
        account_id: accountId, account: 'acme', service: 'match', query: { staged_key: await stage(data), label: 'q.jpg' }, preferred_side: 600,
        options: { min_score: 0, check_horizontal_flip: false, generate_overlay: false, offset: 0, limit: 10 },
      },
      JOB,
    )) as SearchResult;

  it('puts an image that was stored unsearchable into the search index, and every cached index sees it', async () => {
    const scenes = await Promise.all([1, 2, 3].map((seed) => sceneJpeg(seed, 640, 480)));
    const items = await Promise.all(scenes.map(async (data, i) => ({ filepath: `scenes/${i}.jpg`, image_id: null, staged_key: await stage(data) })));
    const added = (await processors[JobKind.Ingest](
      { account_id: accountId, account: 'acme', service: 'match', items, on_existing: 'replace', preferred_side: 600, crop_borders: true },
      JOB,
    )) as IngestResult;
    expect(added.added).toHaveLength(3);
    // As an image refused by an older, stricter check was stored: unsearchable, without words.
    const row = (await infra.images.findByPaths({ accountId, service: 'match' }, ['scenes/0.jpg'])).get('scenes/0.jpg')!;
    await infra.db.query("UPDATE images SET searchable = false, unsearchable_reason = 'refused before' WHERE id = $1", [row.id]);
    await infra.db.query('DELETE FROM image_words WHERE image_pk = $1', [row.id]);

    const copy = await sharp(scenes[0]).resize(500).jpeg({ quality: 70 }).toBuffer();
    expect((await search(copy)).items).toEqual([]);
    // The cache of this processor set is warm now: only the change log can tell it about the new words.
    const result = (await processors[JobKind.Fingerprint]({ account_id: accountId, service: 'match', filepaths: ['scenes/0.jpg'] }, JOB)) as FingerprintResult;
    expect(result).toEqual({ updated: 1, failed: [] });
    expect((await search(copy)).items[0]).toMatchObject({ filepath: 'scenes/0.jpg' });
    expect((await search(scenes[1])).items[0]).toMatchObject({ filepath: 'scenes/1.jpg' });
  }, 120_000);
});
