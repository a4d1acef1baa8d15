import { defaultVocabulary, extractFeatures, Features, serializeFeatures } from '@loupe/fingerprint';
import { syntheticImage, toGray } from '@loupe/fingerprint/src/testing/synthetic-images';
import { AccountRepository, CollectionRef, Db, decodeWords, encodeWords, ImageRepository, MatchIndexRepository, migrate, MIGRATIONS, openDatabase, PublicIndexRepository, PUBLIC_INDEX_PARTITIONS } from '@loupe/storage';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalCollectionIndex } from './collection-index';
import { MatchIndexCache } from './index-cache';
import { PublicIndexShards } from '../public-index/shard-index';
import { matchVocabulary } from './vocabulary';
import { insertIndexedImage } from './testing';
import { VocabularyMigration } from './vocabulary-migration';

/** Words as an earlier release stored them: the verification tree's 10,000 words under their own id. */
const OLD_VOCABULARY = 'generated-scenes';
const oldWords = (f: Features) => defaultVocabulary().quantize(f);

describe('moving stored words to the current search vocabulary', () => {
  let db: Db;
  let images: ImageRepository;
  let index: MatchIndexRepository;
  let publicIndex: PublicIndexRepository;
  let ref: CollectionRef;
  const features: Features[] = [];
  const pks: number[] = [];
  let publicId: number;

  beforeAll(async () => {
    db = await openDatabase({});
    await migrate(db, MIGRATIONS);
    images = new ImageRepository(db);
    index = new MatchIndexRepository(db);
    publicIndex = new PublicIndexRepository(db);
    ref = { accountId: (await new AccountRepository(db).ensure('acme')).id, service: 'mobile' };
    for (let i = 0; i < 5; i++) features.push(await extractFeatures(toGray(await syntheticImage(4200 + i))));
    for (const [i, f] of features.entries()) {
      const stored = { count: f.count, data: serializeFeatures(f) };
      pks.push(await insertIndexedImage({ images, index }, ref, { filepath: `old/${i}.jpg`, words: oldWords(f), features: stored, vocabulary: OLD_VOCABULARY }));
    }
    ({ id: publicId } = await publicIndex.insertImage(
      {
        content_hash: createHash('sha256').update('public-0').digest(),
        format: 'jpeg', width: 600, height: 450, filesize: 1000, norm_width: 600, norm_height: 450, norm_blob_key: 'none',
        feature_count: features[0].count, features: serializeFeatures(features[0]), vocabulary: OLD_VOCABULARY, words: encodeWords(oldWords(features[0])),
      },
      { image_url: 'https://x.example/0.jpg', backlink: 'https://x.example/p0', domain: 'x.example', crawl_date: null },
      createHash('sha1').update('entry-0').digest(),
    ));
  }, 120_000);
  afterAll(() => db.close());

  it('hides nothing once migrated: words of the old vocabulary are re-quantised from the stored features, and caches loaded before read them', async () => {
    const { id } = matchVocabulary();
    const collection = new LocalCollectionIndex(new MatchIndexCache(index));
    const shards = new PublicIndexShards(publicIndex, id);
    const query = (i: number) => ({ wordLists: [matchVocabulary().vocabulary.quantize(features[i])], filters: {} });
    // Before: a search reads only words of its own vocabulary, so the old images are invisible.
    expect(await collection.candidates(ref, query(2))).toEqual([]);
    expect(await shards.candidates(query(0).wordLists[0], 5)).toEqual([]);

    const report = await new VocabularyMigration(index, publicIndex).run();
    expect(report).toEqual({ collectionImages: 5, publicImages: 1 });
    for (const [i, row] of (await index.indexedImages(ref, id)).sort((a, b) => a.image_pk - b.image_pk).entries()) {
      expect(row.image_pk).toBe(pks[i]);
      expect([...decodeWords(row.words)]).toEqual([...matchVocabulary().vocabulary.quantize(features[i])]);
    }
    // The caches loaded before the migration follow the change log to the new words.
    expect((await collection.candidates(ref, query(2)))[0].filepath).toBe('old/2.jpg');
    expect((await shards.candidates(query(0).wordLists[0], 5))[0].imageId).toBe(publicId);
    // The public image is logged in its shard once more.
    expect((await publicIndex.changesSince(Array.from({ length: PUBLIC_INDEX_PARTITIONS }, (_, s) => s), 0)).map((c) => c.image_id)).toEqual([publicId, publicId]);

    // A second run finds nothing left to do.
    expect(await new VocabularyMigration(index, publicIndex).run()).toEqual({ collectionImages: 0, publicImages: 0 });
  }, 60_000);

  it('stops between batches when asked', async () => {
    const abort = new AbortController();
    abort.abort();
    expect(await new VocabularyMigration(index, publicIndex, undefined, 'yet-another').run(abort.signal)).toEqual({ collectionImages: 0, publicImages: 0 });
  });
});
