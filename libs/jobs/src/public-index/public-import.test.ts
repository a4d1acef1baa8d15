import { runInThisThread, TaskRunner, ThreadPool } from '@loupe/fingerprint';
import { flatColor, photoLike, rawSharp } from '@loupe/imaging/src/testing/test-images';
import { migrate, MIGRATIONS, openBlobStore, openDatabase, PublicIndexRepository } from '@loupe/storage';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from './import-runner';
import type { ManifestEntry } from './manifest';
import { PublicImportService } from './public-import.service';

/** A manifest's kinds of entry: photos, the same bytes found on another page, a flat image, a broken file. */
async function sources(): Promise<Record<string, Buffer>> {
  const photo = (w: number, h: number, seed: number) => photoLike(w, h, seed).then((img) => rawSharp(img).jpeg({ quality: 88 }).toBuffer());
  const first = await photo(900, 600, 21);
  return {
    'a.jpg': first,
    'b.jpg': await photo(640, 640, 22),
    'a-again.jpg': first,
    'flat.png': await rawSharp(flatColor(400, 300, [200, 40, 40], 3)).png().toBuffer(),
    'broken.jpg': first.subarray(0, 500),
  };
}

/** Imports the entries into a fresh index with `run`; gives the outcomes and the stored rows. */
async function importWith(run: TaskRunner, files: Record<string, Buffer>) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-public-import-'));
  const db = await openDatabase({});
  try {
    await migrate(db, MIGRATIONS);
    const service = new PublicImportService(new PublicIndexRepository(db), await openBlobStore({ dataDir: dir }), async (source) => files[source], run);
    const entries: ManifestEntry[] = Object.keys(files).map((source, i) => ({
      line: i + 1, source, image_url: `https://example.com/${source}`, backlink: `https://example.com/page-${i}`, domain: 'example.com', crawl_date: null,
    }));
    const failures: string[] = [];
    const progress = await runImport(service, entries, { concurrency: 4, onFailure: (entry, message) => failures.push(message) });
    const { rows } = await db.query<{ feature_count: number }>(
      `SELECT encode(content_hash, 'hex') AS hash, format, width, height, norm_width, norm_height, feature_count, encode(features, 'base64') AS features, vocabulary, encode(words, 'base64') AS words FROM public_images ORDER BY content_hash`,
    );
    return { counts: progress.counts, failures: failures.sort(), rows };
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('a public index import on compute threads', () => {
  const pool = new ThreadPool(2);
  let files: Record<string, Buffer>;
  beforeAll(async () => {
    files = await sources();
  }, 60_000);
  afterAll(() => pool.close());

  it('stores what an import in the calling thread stores, and answers the same refusals', async () => {
    const threaded = await importWith(pool.runner, files);
    expect(threaded.counts).toEqual({ added: 2, backlink: 1, skipped: 0, failed: 2 });
    expect(threaded.failures).toEqual([expect.stringMatching(/^broken\.jpg: Image cannot be identified/), expect.stringMatching(/^flat\.png: /)]);
    expect(threaded.rows).toHaveLength(2);
    expect(threaded.rows.every((r) => r.feature_count > 100)).toBe(true);
    expect(await importWith(runInThisThread, files)).toEqual(threaded);
  }, 120_000);
});
