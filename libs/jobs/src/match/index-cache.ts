import { GlobalHashIndex, InvertedIndex } from '@loupe/fingerprint';
import { CollectionRef, decodeWords, IndexedImage, MatchIndexRepository } from '@loupe/storage';
import { matchVocabulary } from './vocabulary';

/** One collection's in-memory search structure, rebuilt from Postgres and kept current from the change log. */
export interface CollectionIndex {
  index: InvertedIndex;
  /** Whole-image difference hashes of the images indexed with one. */
  hashes: GlobalHashIndex;
  paths: Map<number, string>;
  seq: number;
}


/**
 * Per-process cache of collection indexes. Every lookup asks Postgres for changes since the cached sequence number
 * (one indexed query, usually empty), so adds and deletes made by any worker or replica are seen by the next search.
 */
export class MatchIndexCache {
  private readonly collections = new Map<string, CollectionIndex>();
  private readonly refreshing = new Map<string, Promise<CollectionIndex>>();

  constructor(private readonly repo: MatchIndexRepository) {}

  async get(ref: CollectionRef): Promise<CollectionIndex> {
    const key = `${ref.accountId}:${ref.service}`;
    // Concurrent searches of one collection share a refresh instead of each loading the same rows.
    const pending = this.refreshing.get(key);
    if (pending) return pending;
    const work = this.refresh(key, ref).finally(() => this.refreshing.delete(key));
    this.refreshing.set(key, work);
    return work;
  }

  /** Forgets every cached collection (tests, and after a vocabulary change). */
  clear(): void {
    this.collections.clear();
  }

  private async refresh(key: string, ref: CollectionRef): Promise<CollectionIndex> {
    const vocabularyId = matchVocabulary().id;
    let cached = this.collections.get(key);
    if (!cached) {
      // Read the log position first: changes committed while the rows load are applied again below, harmlessly.
      const seq = await this.repo.latestSeq(ref);
      cached = { index: new InvertedIndex(), hashes: new GlobalHashIndex(), paths: new Map(), seq };
      this.addAll(cached, await this.repo.indexedImages(ref, vocabularyId));
      this.collections.set(key, cached);
    }
    const changes = await this.repo.changesSince(ref, cached.seq);
    if (changes.length === 0) return cached;
    const added = new Set<number>();
    for (const change of changes) {
      if (change.op === 'remove') {
        added.delete(change.image_pk);
        this.remove(cached, change.image_pk);
      } else {
        added.add(change.image_pk);
      }
    }
    if (added.size > 0) this.addAll(cached, await this.repo.indexedImages(ref, vocabularyId, [...added]));
    cached.seq = changes[changes.length - 1].seq;
    return cached;
  }

  private addAll(target: CollectionIndex, images: IndexedImage[]): void {
    for (const image of images) {
      if (target.paths.has(image.image_pk)) continue;
      target.index.add(image.image_pk, decodeWords(image.words));
      if (image.global_hash !== null) target.hashes.add(image.image_pk, BigInt(image.global_hash));
      target.paths.set(image.image_pk, image.filepath);
    }
  }

  private remove(target: CollectionIndex, imagePk: number): void {
    if (!target.paths.has(imagePk)) return;
    target.index.remove(imagePk);
    target.hashes.remove(imagePk);
    target.paths.delete(imagePk);
  }
}
