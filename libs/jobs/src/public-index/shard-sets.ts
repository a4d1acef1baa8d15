import type { JobQueue } from '@loupe/queue';
import { PUBLIC_INDEX_PARTITIONS } from '@loupe/storage';
import { askEveryShardSet, fanOutGroup, parseShardSets as parseSets, ShardOwners, ShardSet, shardSetName } from '../shard-sets';
import { CandidateSource, mergeCandidates, ShardCandidate } from './shard-index';

/**
 * The public index's shard sets (`PUBLIC_SHARD_SETS`, see ../shard-sets.ts): each set of its 16 shards is a job kind
 * (`public_candidates_0-7`, …) that only the set's owners run. Unset: one process holds all shards and searches them in
 * place.
 */
export { shardSetName };
export type { ShardSet };

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
  return parseSets(text, 'PUBLIC_SHARD_SETS', PUBLIC_INDEX_PARTITIONS);
}

export function candidateKind(set: ShardSet): string {
  return `${PUBLIC_CANDIDATES_KIND}_${shardSetName(set)}`;
}

/**
 * The remote side of `CandidateSource`: one candidate job per shard set through the job queue (in-process or BullMQ),
 * merged. `mergeCandidates` stays exact: each owner returns the exact top `limit` of its own shards.
 */
export class QueuedCandidateSource implements CandidateSource {
  private readonly owners: ShardOwners;

  constructor(sets: readonly ShardSet[], queue: () => JobQueue | null, timeoutMs = CANDIDATE_TIMEOUT_MS) {
    this.owners = { sets, kindOf: candidateKind, queue, variable: 'PUBLIC_SHARD_SETS', label: 'public index', timeoutMs };
  }

  async candidates(words: Uint32Array, limit: number): Promise<ShardCandidate[]> {
    const payload: PublicCandidatesPayload = { words: Array.from(words), limit };
    const lists = await askEveryShardSet<ShardCandidate[]>(this.owners, fanOutGroup('public candidates'), payload);
    return mergeCandidates(lists, limit);
  }
}
