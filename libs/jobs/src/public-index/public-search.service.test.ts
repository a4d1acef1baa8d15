import { crop, cropBox } from '@loupe/fingerprint/src/testing/edits';
import { photoLike, rawSharp } from '@loupe/imaging/src/testing/test-images';
import { BlobStore, Db, migrate, MIGRATIONS, openBlobStore, openDatabase, PublicIndexRepository } from '@loupe/storage';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchVocabulary } from '../match/vocabulary';
import { runImport } from './import-runner';
import type { ManifestEntry } from './manifest';
import { PublicImportService } from './public-import.service';
import { PublicSearchService } from './public-search.service';
import { CandidateSource, PublicIndexShards } from './shard-index';

describe('public index search', () => {
  let dir: string;
  let db: Db;
  let repo: PublicIndexRepository;
  let blobs: BlobStore;
  const photos = new Map<string, Buffer>();

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-public-search-'));
    db = await openDatabase({});
    await migrate(db, MIGRATIONS);
    repo = new PublicIndexRepository(db);
    blobs = await openBlobStore({ dataDir: dir });
    for (let seed = 1; seed <= 6; seed++) photos.set(`p${seed}.jpg`, await rawSharp(await photoLike(512, 512, 40 + seed)).jpeg({ quality: 90 }).toBuffer());
    const entries: ManifestEntry[] = [...photos.keys()].map((source, i) => ({
      line: i + 1, source, image_url: `https://example.com/${source}`, backlink: `https://example.com/page-${i}`, domain: 'example.com', crawl_date: null,
    }));
    const importer = new PublicImportService(repo, blobs, async (source) => photos.get(source)!);
    const progress = await runImport(importer, entries, { concurrency: 2, onFailure: (_, message) => expect.fail(message) });
    expect(progress.counts.added).toBe(photos.size);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function search(service: PublicSearchService, data: Buffer) {
    await blobs.put('staging/query', data);
    return service.search({ query: { staged_key: 'staging/query', label: 'query.jpg' }, offset: 0, limit: 10, sort: 'score', order: 'desc' });
  }

  it('votes apart with a small query\'s words at its own scale: a quarter of an image outvoted at the enlarged scale is found', async () => {
    const shards = new PublicIndexShards(repo, matchVocabulary().id);
    const targetUrl = 'https://example.com/p3.jpg';
    const { rows } = await db.query<{ image_id: string }>('SELECT image_id FROM public_backlinks WHERE image_url = $1', [targetUrl]);
    const targetId = Number(rows[0].image_id);
    // The first vote of a search is with the query's words as detected (enlarged when small); it leaves the image out,
    // as a large index's vote does to a crop enlarged past its image's scale.
    const votes: number[] = [];
    const outvotedWhenEnlarged: CandidateSource = {
      candidates: async (words, limit) => {
        votes.push(words.length);
        const candidates = await shards.candidates(words, limit);
        return votes.length % 2 === 1 ? candidates.filter((c) => c.imageId !== targetId) : candidates;
      },
    };
    const service = new PublicSearchService(repo, blobs, outvotedWhenEnlarged);
    const original = await photoLike(512, 512, 43);
    const quarter = await rawSharp(await crop(original, cropBox(original, 0.25, 0.7, 0.3))).jpeg({ quality: 90 }).toBuffer();
    const found = await search(service, quarter);
    expect(votes).toHaveLength(2);
    expect(found.matches[0]?.image_url).toBe(targetUrl);
    expect(found.matches.map((m) => m.image_url)).toEqual([targetUrl]);
    // A query detected at its own scale votes once.
    votes.length = 0;
    await search(service, photos.get('p3.jpg')!);
    expect(votes).toHaveLength(1);
  }, 60_000);
});
