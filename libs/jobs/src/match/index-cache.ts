import { GlobalHashIndex, InvertedIndex } from '@loupe/fingerprint';
import { CollectionRef, collectionShardOf, decodeWords, IndexedImage, MatchIndexRepository } from '@loupe/storage';
import { ShardSet, shardSetName } from '../shard-sets';
import { CollectionState, IndexSnapshots, SnapshotIdentity } from './index-snapshot';
import { matchVocabulary } from './vocabulary';

/** One collection's in-memory search structure, rebuilt from Postgres and kept current from the change log. */
export type CollectionIndex = CollectionState;

/** Rows read per page while loading a collection: bounds what sits in memory next to the index being built. */
const LOAD_PAGE_ROWS = 5_000;

export interface IndexSnapshotOptions {
  snapshots: IndexSnapshots;
  /** Collections smaller than this load from the database quickly enough and get no snapshot. */
  minImages: number;
}

/**
 * Share of a collection's size that the change log may grow past its snapshot before the snapshot is written again:
 * a start then replays at most this much of the log, and a busy collection is not rewritten after every add.
 */
const SNAPSHOT_STALE_SHARE = 0.1;

interface Cached {
  state: CollectionState;
  /** Change log position of the collection's snapshot on disk; -1 for none. */
  snapshotSeq: number;
  /** After a failed snapshot write, no other is tried before this time (ms since the epoch). */
  snapshotRetryAt?: number;
}

/**
 * Memory of a collection's search structures beyond its inverted index, per image: its path (a string of ~40
 * characters and its map entry) and its whole-image hash.
 */
const BYTES_PER_IMAGE_BESIDES_INDEX = 150;

/** What a cached collection holds in memory, for the cache's bound. */
export function collectionBytes(state: CollectionState): number {
  return state.index.memoryBytes + state.paths.size * BYTES_PER_IMAGE_BESIDES_INDEX;
}

/** How long after a failed snapshot write (a full disk, a read-only folder) the next is tried. */
const SNAPSHOT_RETRY_MS = 10 * 60_000;

/**
 * Per-process cache of collection indexes (or of the shards of them this process owns). Every lookup asks Postgres for changes since the cached sequence number
 * (one indexed query, usually empty), so adds and deletes made by any worker or replica are seen by the next search.
 * Large collections start from a snapshot when one exists (`IndexSnapshots`) and write one after a full load or
 * once their log has moved on by a tenth of their size.
 */
export class MatchIndexCache {
  private readonly collections = new Map<string, Cached>();
  /** One refresh at a time per collection; concurrent searches share it. */
  private readonly refreshing = new Map<string, Promise<CollectionIndex>>();
  /**
   * Snapshot writes under way. The search that triggered one does not wait for it; the collection's next refresh
   * does, so that no change is applied to an index while it is being written.
   */
  private readonly writing = new Map<string, Promise<void>>();
  private databaseIdentity: Promise<number> | undefined;

  private readonly owned: ReadonlySet<number> | null;

  constructor(
    private readonly repo: MatchIndexRepository,
    private readonly snapshotOptions?: IndexSnapshotOptions,
    /** Only these shards of every collection (`collectionShardOf`), for an owner of a shard set; all by default. */
    private readonly shards?: ShardSet,
    /**
     * Bound on the collections kept (`collectionBytes`, summed): past it, the least recently searched are dropped and
     * load again (from their snapshots, if large) when next searched. The collection just searched is always kept.
     */
    private readonly maxBytes = Infinity,
  ) {
    this.owned = shards ? new Set(shards) : null;
  }

  async get(ref: CollectionRef): Promise<CollectionIndex> {
    const key = `${ref.accountId}:${ref.service}`;
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

  /** Resolves once no snapshot is being written (tests, and before a process exits). */
  async idle(): Promise<void> {
    await Promise.all(this.writing.values());
  }

  /** Collections held, least recently searched first. */
  get heldCollections(): string[] {
    return [...this.collections.keys()];
  }

  private async refresh(key: string, ref: CollectionRef): Promise<CollectionIndex> {
    await this.writing.get(key);
    let cached = this.collections.get(key);
    if (cached) {
      // Re-inserted: the map's order is the order of last use.
      this.collections.delete(key);
      this.collections.set(key, cached);
    } else {
      cached = await this.load(ref);
      this.collections.set(key, cached);
      this.evictBeyondBound(key);
    }
    const { state } = cached;
    const changes = await this.repo.changesSince(ref, state.seq);
    if (changes.length > 0) {
      const added = new Set<number>();
      for (const change of changes) {
        if (this.owned && !this.owned.has(collectionShardOf(change.image_pk))) continue;
        if (change.op === 'remove') {
          added.delete(change.image_pk);
          remove(state, change.image_pk);
        } else {
          added.add(change.image_pk);
        }
      }
      if (added.size > 0) addAll(state, await this.repo.indexedImages(ref, matchVocabulary().id, [...added]));
      state.seq = changes[changes.length - 1].seq;
    }
    if (this.snapshotDue(cached)) this.startSnapshot(key, ref, cached);
    return state;
  }

  /** Drops the least recently searched collections while the bound is passed, never `keep` nor one being written. */
  private evictBeyondBound(keep: string): void {
    if (this.maxBytes === Infinity) return;
    let total = 0;
    for (const { state } of this.collections.values()) total += collectionBytes(state);
    for (const [key, cached] of this.collections) {
      if (total <= this.maxBytes) break;
      if (key === keep || this.writing.has(key) || this.refreshing.has(key)) continue;
      this.collections.delete(key);
      total -= collectionBytes(cached.state);
    }
  }

  /** The collection as of now: from its snapshot plus the log after it, or from every row when there is none. */
  private async load(ref: CollectionRef): Promise<Cached> {
    const fromSnapshot = this.snapshotOptions && (await this.snapshotOptions.snapshots.read(await this.identity(ref)));
    if (fromSnapshot) return { state: fromSnapshot, snapshotSeq: fromSnapshot.seq };
    // Read the log position first: changes committed while the rows load are applied again by refresh, harmlessly.
    const state: CollectionState = { index: new InvertedIndex(), hashes: new GlobalHashIndex(), paths: new Map(), seq: await this.repo.latestSeq(ref) };
    for (let afterPk = 0; ; ) {
      const page = await this.repo.indexedImagesPage(ref, matchVocabulary().id, afterPk, LOAD_PAGE_ROWS, this.shards);
      addAll(state, page);
      if (page.length < LOAD_PAGE_ROWS) break;
      afterPk = page[page.length - 1].image_pk;
    }
    state.index.trim();
    return { state, snapshotSeq: -1 };
  }

  private snapshotDue({ state, snapshotSeq, snapshotRetryAt }: Cached): boolean {
    if (!this.snapshotOptions || state.paths.size < this.snapshotOptions.minImages) return false;
    if (snapshotRetryAt !== undefined && Date.now() < snapshotRetryAt) return false;
    // Sequence numbers are shared by every collection, so the gap over-counts this one's changes: a bound, not a count.
    return snapshotSeq < 0 || state.seq - snapshotSeq > state.paths.size * SNAPSHOT_STALE_SHARE;
  }

  /** Writes the snapshot in the background; a failure (a full disk) costs only the faster start it would give. */
  private startSnapshot(key: string, ref: CollectionRef, cached: Cached): void {
    const seq = cached.state.seq;
    const write = this.identity(ref)
      .then((identity) => this.snapshotOptions!.snapshots.write(identity, cached.state))
      .then(
        () => {
          cached.snapshotSeq = seq;
        },
        (error: Error) => {
          cached.snapshotRetryAt = Date.now() + SNAPSHOT_RETRY_MS;
          process.emitWarning(`The index snapshot of collection ${key} could not be written (${error.message}); the next try is in ${SNAPSHOT_RETRY_MS / 60_000} minutes.`);
        },
      )
      .finally(() => this.writing.delete(key));
    this.writing.set(key, write);
  }

  private async identity(ref: CollectionRef): Promise<SnapshotIdentity> {
    this.databaseIdentity ??= this.repo.databaseIdentity().catch((error) => {
      this.databaseIdentity = undefined;
      throw error;
    });
    const identity: SnapshotIdentity = { databaseIdentity: await this.databaseIdentity, vocabularyId: matchVocabulary().id, accountId: ref.accountId, service: ref.service };
    if (this.shards) identity.shards = shardSetName(this.shards);
    return identity;
  }
}

function addAll(target: CollectionState, images: IndexedImage[]): void {
  // The load and the log can both deliver an image committed during the load; a re-fingerprint is logged as a
  // remove before its add, so an image still present here has the same words.
  const fresh = images.filter((image) => !target.paths.has(image.image_pk));
  // One call for the page: its appends go list by list (InvertedIndex.addAll), 2.2 times less CPU than image by image.
  // An image without words (no corner: found by its hash alone) stays out of the vote, whose idf and stop list count
  // the images that can share a word.
  const voting = fresh.map((image) => ({ imageKey: image.image_pk, words: decodeWords(image.words) })).filter(({ words }) => words.length > 0);
  target.index.addAll(voting);
  for (const image of fresh) {
    if (image.global_hash !== null) target.hashes.add(image.image_pk, BigInt(image.global_hash), BigInt(image.colour_set ?? 0));
    target.paths.set(image.image_pk, image.filepath);
  }
}

function remove(target: CollectionState, imagePk: number): void {
  target.index.remove(imagePk);
  target.hashes.remove(imagePk);
  target.paths.delete(imagePk);
}
