import type { CollectionRef, ImageRepository, MatchIndexRepository } from '@loupe/storage';
import { matchVocabulary } from './vocabulary';

/**
 * For the search index's tests: commits a searchable image row and its visual words, as an ingest does, without blobs.
 * Features are empty unless given; words are of the current search vocabulary unless another is named.
 */
export async function insertIndexedImage(
  repositories: { images: ImageRepository; index: MatchIndexRepository },
  ref: CollectionRef,
  image: {
    filepath: string;
    words: Uint32Array;
    /** The whole-image hash, given the new row's id (none by default). */
    globalHash?: (imagePk: number) => bigint;
    /** The colour set (none by default). */
    colourSet?: bigint;
    /** The colour shares as stored (`encodeColourShares`; none by default). */
    colourShares?: Uint8Array;
    features?: { count: number; data: Buffer };
    vocabulary?: string;
  },
): Promise<number> {
  return repositories.images.transaction(async (tx) => {
    const row = {
      filepath: image.filepath, image_id: null, format: 'jpeg', width: 600, height: 400, norm_width: 600, norm_height: 400, blob_key: '', norm_blob_key: '',
      fingerprint_health: 1, searchable: true, unsearchable_reason: null, metadata: {}, ingest_token: null,
    };
    const pk = await repositories.images.insert(ref, row, image.features ?? { count: 0, data: Buffer.alloc(0) }, tx);
    await repositories.index.saveWords(pk, image.vocabulary ?? matchVocabulary().id, image.words, tx, { globalHash: image.globalHash?.(pk), colourSet: image.colourSet, colourShares: image.colourShares });
    return pk;
  });
}
