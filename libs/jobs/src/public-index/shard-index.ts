import { decodeWords, PUBLIC_INDEX_PARTITIONS, PublicIndexRepository, ShardImageWords } from '@loupe/storage';
import { InvertedIndex } from '@loupe/fingerprint';

/** Rows read per page while loading a shard: bounds the transient memory of a load next to the index itself. */
const LOAD_PAGE_ROWS = 5_000;

export interface ShardCandidate {
  imageId: number;
  votes: number;
}

/** What a search needs from the index: the best-voted images for a query's words. Local, or remote (shard-sets.ts). */
export interface CandidateSource {
  candidates(words: Uint32Array, limit: number): Promise<ShardCandidate[]>;
}

/** Most votes first; equal votes by id, so merged answers agree however the shards were split. */
export function byVotes(a: ShardCandidate, b: ShardCandidate): number {
  return b.votes - a.votes || a.imageId - b.imageId;
}

/** Merges shard answers: each shard's top list is exact for that shard, so the global top `limit` is among them. */
export function mergeCandidates(lists: readonly ShardCandidate[][], limit: number): ShardCandidate[] {
  return lists.flat().sort(byVotes).slice(0, limit);
}

/**
 * The public index's search structure, split into shards that follow the table partitions (shard s = partition
 * `public_images_p<s>`, images hashed by id). This process owns `shards` (all by default); each owned shard is an
 * InvertedIndex rebuilt from its partition and kept current
 * from `public_index_log`, and a query fans out to every owned shard and merges. Each shard scores with its own idf: hashing by id makes every shard a uniform sample of
 * the index, so its document frequencies estimate the global ones, and shards need not exchange statistics.
 *
 * Past one machine's memory, processes own disjoint shard sets and the same fan-out/merge runs over the queue (one
 * candidate job per shard set: QueuedCandidateSource in shard-sets.ts).
 */
export class PublicIndexShards implements CandidateSource {
  private readonly indexes = new Map<number, InvertedIndex>();
  private seq = 0;
  private loaded: Promise<void> | null = null;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly repo: PublicIndexRepository,
    private readonly vocabularyId: string,
    readonly shards: readonly number[] = Array.from({ length: PUBLIC_INDEX_PARTITIONS }, (_, s) => s),
  ) {}

  get size(): number {
    let n = 0;
    for (const index of this.indexes.values()) n += index.size;
    return n;
  }

  /** Bytes of the loaded shards' typed arrays (for the benchmark's memory per image). */
  get typedBytes(): number {
    let n = 0;
    for (const index of this.indexes.values()) n += index.typedBytes;
    return n;
  }

  /** Loads the owned shards on first use, then applies what other importers committed since the last look. */
  async refresh(): Promise<void> {
    if (!this.loaded) this.loaded = this.load().catch((error) => {
      this.loaded = null;
      throw error;
    });
    await this.loaded;
    // Concurrent searches share one catch-up instead of each reading the same log rows.
    if (!this.refreshing) this.refreshing = this.catchUp().finally(() => (this.refreshing = null));
    await this.refreshing;
  }

  async candidates(words: Uint32Array, limit: number): Promise<ShardCandidate[]> {
    await this.refresh();
    const lists = [...this.indexes.values()].map((index) => index.candidates(words, limit).map((c) => ({ imageId: c.imageKey, votes: c.votes })));
    return mergeCandidates(lists, limit);
  }

  private async load(): Promise<void> {
    // Read the log position first: images committed while the shards load are applied again by catchUp, harmlessly.
    this.seq = await this.repo.latestSeq(this.shards);
    for (const shard of this.shards) {
      const index = new InvertedIndex();
      let afterId = 0;
      for (;;) {
        const page = await this.repo.shardWords(shard, this.vocabularyId, { afterId, limit: LOAD_PAGE_ROWS });
        this.addAll(index, page);
        if (page.length < LOAD_PAGE_ROWS) break;
        afterId = page[page.length - 1].id;
      }
      index.trim();
      this.indexes.set(shard, index);
    }
  }

  private async catchUp(): Promise<void> {
    const changes = await this.repo.changesSince(this.shards, this.seq);
    if (changes.length === 0) return;
    const byShard = new Map<number, number[]>();
    for (const c of changes) byShard.set(c.shard, [...(byShard.get(c.shard) ?? []), c.image_id]);
    for (const [shard, ids] of byShard) {
      this.addAll(this.indexes.get(shard)!, await this.repo.shardWords(shard, this.vocabularyId, { ids }));
    }
    this.seq = changes[changes.length - 1].seq;
  }

  private addAll(index: InvertedIndex, rows: readonly ShardImageWords[]): void {
    // A load and the change log can both deliver an image committed during the load; its words never change.
    index.addAll(rows.filter((row) => !index.has(row.id)).map((row) => ({ imageKey: row.id, words: decodeWords(row.words) })));
  }
}
