import type { JobQueue } from '@loupe/queue';
import { PUBLIC_INDEX_PARTITIONS } from '@loupe/storage';
import { randomUUID } from 'node:crypto';
import { CandidateSource, mergeCandidates, ShardCandidate } from './shard-index';

/**
 * Shard ownership across processes. `PUBLIC_SHARD_SETS` (the same value in every process of a deployment) splits the
 * 16 index shards into disjoint sets, e.g. `0-7,8-15` or `0-3,4-7,8-11,12-15`. Each set becomes a job kind
 * (`public_candidates_0-7`, …); a worker owns a set by naming its kind in WORKER_QUEUES, and only then loads those
 * shards. A search fans out one candidate job per set and merges the owners' top lists. Unset: one process holds all
 * shards and searches them in place, as before.
 */
export type ShardSet = readonly number[];

/** Prefix of the per-set job kinds. BullMQ queue names cannot contain ':', hence the underscore. */
export const PUBLIC_CANDIDATES_KIND = 'public_candidates';

/**
 * How long a search waits for one shard set's top list. An owner answers in tens of milliseconds once loaded; this
 * bounds a search when a set has no live owner (none deployed, all restarting), which then fails and is refunded
 * instead of hanging.
 */
export const CANDIDATE_TIMEOUT_MS = 30_000;

export interface PublicCandidatesPayload {
  /** The query's visual words (a plain array: payloads travel as JSON). Empty = only load the shards (warm-up). */
  words: number[];
  limit: number;
}

/** Parses `PUBLIC_SHARD_SETS`; null when unset. Throws unless the sets are disjoint and cover every shard. */
export function parseShardSets(text: string | undefined): ShardSet[] | null {
  if (text === undefined || text.trim() === '') return null;
  const fail = (why: string): never => {
    throw new Error(`PUBLIC_SHARD_SETS: "${text}" ${why} (expected disjoint ranges covering shards 0-${PUBLIC_INDEX_PARTITIONS - 1}, e.g. "0-7,8-15").`);
  };
  const sets: ShardSet[] = [];
  const seen = new Set<number>();
  for (const part of text.split(',').map((p) => p.trim())) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) fail(`has "${part}", which is not a shard or a range a-b`);
    const from = Number(m![1]);
    const to = m![2] === undefined ? from : Number(m![2]);
    if (to < from || to >= PUBLIC_INDEX_PARTITIONS) fail(`has the range "${part}" outside 0-${PUBLIC_INDEX_PARTITIONS - 1} or reversed`);
    const set: number[] = [];
    for (let s = from; s <= to; s++) {
      if (seen.has(s)) fail(`names shard ${s} twice`);
      seen.add(s);
      set.push(s);
    }
    sets.push(set);
  }
  // A shard no set names would hold images that no search can ever find.
  const missing = Array.from({ length: PUBLIC_INDEX_PARTITIONS }, (_, s) => s).filter((s) => !seen.has(s));
  if (missing.length > 0) fail(`leaves out shards ${missing.join(', ')}`);
  return sets;
}

export function shardSetName(set: ShardSet): string {
  return set.length === 1 ? `${set[0]}` : `${set[0]}-${set[set.length - 1]}`;
}

export function candidateKind(set: ShardSet): string {
  return `${PUBLIC_CANDIDATES_KIND}_${shardSetName(set)}`;
}

/**
 * The remote side of `CandidateSource`: one candidate job per shard set through the job queue (in-process or BullMQ),
 * merged. `mergeCandidates` stays exact: each owner returns the exact top `limit` of its own shards.
 */
export class QueuedCandidateSource implements CandidateSource {
  constructor(
    private readonly sets: readonly ShardSet[],
    /** Late-bound: the in-process queue is built from the processors that use this source. */
    private readonly queue: () => JobQueue | null,
    private readonly timeoutMs = CANDIDATE_TIMEOUT_MS,
  ) {}

  async candidates(words: Uint32Array, limit: number): Promise<ShardCandidate[]> {
    const queue = this.queue();
    if (!queue) throw new Error('PUBLIC_SHARD_SETS is set but this process has no job queue to reach the shard owners.');
    // A group of its own per search: the search itself was admitted under its API key's limit, and sub-jobs waiting
    // for slots that their parent holds could deadlock.
    const group = `public-candidates:${randomUUID()}`;
    const payload: PublicCandidatesPayload = { words: Array.from(words), limit };
    const lists = await Promise.all(
      this.sets.map((set) =>
        queue.run<ShardCandidate[]>({ kind: candidateKind(set), group, payload, timeoutMs: this.timeoutMs }).catch((error: unknown) => {
          // Said which set, so an operator sees which owner is missing or failing.
          throw new Error(`public index shard set ${shardSetName(set)}: ${error instanceof Error ? error.message : String(error)}`);
        }),
      ),
    );
    return mergeCandidates(lists, limit);
  }
}
