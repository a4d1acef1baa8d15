import type { ProcessorMap } from '@loupe/queue';
import type { BlobStore, PublicIndexRepository } from '@loupe/storage';
import { type Compute, IN_THIS_THREAD } from '../compute';
import { matchVocabulary } from '../match/vocabulary';
import { JobKind } from '../contracts';
import type { JobProcessors } from '../job-registry';
import { PublicSearchService } from './public-search.service';
import { PublicIndexShards } from './shard-index';
import type { ShardSetOptions } from '../shard-sets';
import { candidateKind, parseShardSets, PublicCandidatesPayload, QueuedCandidateSource } from './shard-sets';

/**
 * The public index's job kinds: `public_search`, and with shard sets one `public_candidates_<set>` per set. Shards
 * are loaded by the first job that needs them, so a process loads only the sets whose kinds it actually runs.
 */
export function publicIndexProcessors(
  repo: PublicIndexRepository,
  blobs: BlobStore,
  /** Verification and other CPU work of a search on compute threads; in the calling thread by default. */
  compute: Pick<Compute, 'verifyAll' | 'run'> = IN_THIS_THREAD,
  /** `PUBLIC_SHARD_SETS` and the queue to its owners; unset = this process holds every shard (see shard-sets.ts). */
  options: ShardSetOptions = {},
): Pick<JobProcessors, typeof JobKind.PublicSearch> & ProcessorMap {
  const vocabularyId = matchVocabulary().id;
  const sets = parseShardSets(options.sets) ?? [];
  const candidates = sets.length > 0 ? new QueuedCandidateSource(sets, options.queue ?? (() => null)) : new PublicIndexShards(repo, vocabularyId);
  const search = new PublicSearchService(repo, blobs, candidates, compute.verifyAll, compute.run);
  const shardOwners: ProcessorMap = {};
  for (const set of sets) {
    let shards: PublicIndexShards | null = null;
    shardOwners[candidateKind(set)] = (payload: PublicCandidatesPayload) =>
      (shards ??= new PublicIndexShards(repo, vocabularyId, set)).candidates(Uint32Array.from(payload.words), payload.limit);
  }
  return { ...shardOwners, [JobKind.PublicSearch]: (payload) => search.search(payload) };
}

/** The per-set job kinds of a `PUBLIC_SHARD_SETS` value (none when unset). */
export function publicCandidateKinds(sets: string | undefined): string[] {
  return (parseShardSets(sets) ?? []).map(candidateKind);
}
