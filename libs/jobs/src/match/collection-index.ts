import { colourOverlap, decodeColourShares, mergeVoteStatistics, VoteHelper, VoteStatistics } from '@loupe/fingerprint';
import type { JobQueue } from '@loupe/queue';
import { COLLECTION_INDEX_SHARDS, CollectionRef } from '@loupe/storage';
import { askEveryShardSet, fanOutGroup, parseShardSets, ShardOwners, ShardSet, shardSetName } from '../shard-sets';
import { MatchIndexCache } from './index-cache';
import { mergeByRelativeVotes } from './native-scale-vote';
import { PathFilters, pathPredicate } from './path-filter';
import { MAX_VERIFIED } from './verify-rounds';

/**
 * Candidates taken from the inverted index per word list before filters: enough that a name or path filter still
 * leaves a full shortlist in a large collection.
 */
export const CANDIDATE_POOL = 200;
/**
 * Whole-image hash distance (of 64 bits) within which a collection image gets the whole-image second chance. Copies
 * measured 0-2 bits (JPEG q10-30, blur) and 5 (a logo overlay); different photos within 10 bits all failed the
 * correlation that follows.
 */
export const GLOBAL_HASH_MAX_DISTANCE = 10;
/** Nearest images by whole-image hash given that second chance, per probe. */
export const GLOBAL_CANDIDATES = 3;
/**
 * Hash neighbours a search verifies by features when the vote's candidates did not match, per probe, and how far they
 * may be. On the scale benchmark's photos (3,000 images), copies that keep the whole frame were 0-14 bits from their
 * image for most edits and up to 26-33 for a few (a 0.2x thumbnail, contrast ±40 %, noise: a dark sky's cells are nearly
 * equal, and their bits flip), and often not the nearest; rotated photos turned upright were mostly 0-6 bits away.
 * Feature verification, not the distance, decides whether one matches: the bounds only limit the work.
 */
export const HASH_NEIGHBOURS = 8;
export const HASH_NEIGHBOUR_MAX_DISTANCE = 16;

/**
 * Images given the placement chance by their colours (`alikeInColour`), and how alike their colour set must be
 * (`colourLikeness`). The placement's own colour check decides; these bound its work, a decode and a template search
 * (about 20-25 ms) per image. In the benchmark families (72 images and 400 photos), 25 % and 50 % crops and their
 * rotated JPEG copies were 0.25-1 alike their own image (a quarter under 0.54-0.58 per family), and their image was
 * among the 3 most alike for 86-94 of 96 per family; the third most alike other image was 0.30-0.40 alike at the median.
 * With a floor of 0.3 instead of 0.45, the matching benchmark found one more family query (of 252), and its searches
 * at 10,000 images took 40-60 ms more at p95. Those figures are of Jaccard's likeness, which `colourLikeness` replaced;
 * it is never lower, so the floor lets through at least the images it did. With 18 images per family (756 family
 * queries), 4 and 5 instead of 3 found 2 and 3 more gradient and soft-wallpaper crops, for 10-18 ms more per query that
 * matches nothing. Once a query's templates were made once for all its placements (session 42), 5 found 4 more at the
 * same p95 at 10,000 images, but at 1,000,000 a held-out photo turned +15° was confirmed in another photo's variant by
 * its upright copy's placement: two night skies of one galaxy. Since placements compare the stars of point fields
 * (`confirmPlacedCrop`, session 43) that pair is refused and 5 gave no false positive at 1,000,000 either, but there the
 * upright copies of rotated photos outside the collection were placed in more dark skies alike in colour: the slowest
 * tenth of searches took 720 ms instead of 500-525 (upright chances 270-285 ms instead of 77-81) and p95 516-540 ms
 * instead of 460-509. Million-image latency comes before the 4 hard copies of 756 that 5 find (docs/benchmarks.md).
 */
export const COLOUR_CANDIDATES = 3;
export const COLOUR_MIN_LIKENESS = 0.45;
/**
 * Images most alike in colour placed for a query too plain to vote (`hasDistinctivePoints`), and for a query or upright
 * copy smooth throughout (`isSmoothThroughout`): the first has no best-voted images and no feature verification, and
 * the votes and fits of the second are a gradient's chance corners, so their colours are all that lead them. A quarter
 * of a smooth gradient keeps few of its image's colour bins, and among many gradients of one palette its image is not
 * always among the 3 most alike. With 18 images per family in the matching benchmark, 8 for plain queries found 2 more
 * family queries (of 756), 16 found 3, and the same 8 for every query worth placing 11, with a false positive (a flat
 * landscape's crop placed upright in another of its palette) and more placements for every query that matches nothing.
 * 8 for smooth queries and upright copies too found 4 more (quarters of gradients and a soft wallpaper, as they are
 * and upright), with no false positive; no photo's copy of the benchmark is smooth throughout (docs/benchmarks.md,
 * session 45).
 */
export const PLAIN_COLOUR_CANDIDATES = 8;
/**
 * PLAIN_COLOUR_CANDIDATES for a copy turned upright, which is placed in images ranked by their colour sets alone (see
 * `ColourOrder` in the match service): sets tie among images of one palette, so their order needs a longer list to hold
 * what sets and shares hold in 8. Over the matching benchmark's large sample of family queries (756, ranked as they are
 * by `tools/bench/match/colour-candidates.ts`), the image was among the first 8 by sets for 721, the first 12 for 736,
 * and the first 8 by sets and shares for 749; a quarter of a gradient turned -20° and back was 11th by sets among 1,000
 * images (docs/benchmarks.md, session 60).
 */
export const PLAIN_COLOUR_CANDIDATES_BY_SETS = 12;
/**
 * Images most alike in colour by their sets an index answers (`alikeInColour`), which a search ranks again by their
 * sets' likeness plus how much of each colour they have (`colourOverlap` of their stored shares) before placing the
 * first COLOUR_CANDIDATES or PLAIN_COLOUR_CANDIDATES. A set keeps every bin of at least 1 %, so among many images of
 * one palette it ties or misranks an image against others holding the query's bins in other amounts; shares alone
 * misrank crops, which hold their image's colours in other amounts too. Over the large sample of the matching
 * benchmark's family queries (756) and 92 photos with a logo overlay, in a collection of those 108 family images, 368
 * photos and 598 drawn scenes, an image was among the 3 first for 660 family queries by sets, 710 by shares and 715 by
 * both, and for 57 / 72 / 72 of the overlays (`tools/bench/match/colour-candidates.ts`; docs/benchmarks.md, session 35).
 * The shortlist is long because sets tie more as a collection grows: at 1,000,000 images a logo overlay's image was
 * 94th by sets (and 1st to 3rd by shares at 1,000). Ranked again from the first 128, 256 or 512 by sets, 716 family
 * queries and 74 overlays had their image among the 3 first at 1,000 images, against 715 and 72 from the first 32
 * (docs/benchmarks.md, session 36); reading 256 rows of shares is one indexed query.
 */
export const COLOUR_SHORTLIST = 256;

export interface CandidateRequest {
  /** The query's visual words, and its mirror's with flip checks: an image's votes are its best over the lists. */
  wordLists: Uint32Array[];
  filters: PathFilters;
  /** A search by a collection filepath: that image is ranked first, so the first round verifies it. */
  queriedPath?: string;
}

export interface Candidate {
  imagePk: number;
  filepath: string;
  votes: number;
}

export interface HashProbe {
  /** A whole-image difference hash (64 bits). */
  hash: bigint;
  /** Whether the hash is of the mirrored query. */
  flipped: boolean;
}

/**
 * `shortlist` (images by their colour sets' `likeness`, `alikeInColour`'s answer) ranked again by that likeness plus how
 * much of the query's colour each image has in the same bins (`colourOverlap` of `queryShares` with its stored shares,
 * `encodeColourShares`), most alike first (equal by key). An image indexed before shares were stored counts its set's
 * likeness twice, the nearest measure it has.
 */
export function rankedByColourShares<T extends { imagePk: number; likeness: number }>(shortlist: readonly T[], queryShares: Float64Array, storedShares: ReadonlyMap<number, Uint8Array>): T[] {
  const alikeness = (candidate: T) => {
    const shares = storedShares.get(candidate.imagePk);
    return candidate.likeness + (shares ? colourOverlap(queryShares, decodeColourShares(shares)) : candidate.likeness);
  };
  return shortlist
    .map((candidate) => ({ candidate, alikeness: alikeness(candidate) }))
    .sort((a, b) => b.alikeness - a.alikeness || a.candidate.imagePk - b.candidate.imagePk)
    .map(({ candidate }) => candidate);
}

export interface HashCandidate {
  imagePk: number;
  filepath: string;
  distance: number;
}

export interface ColourCandidate {
  imagePk: number;
  filepath: string;
  /** `colourLikeness` of its colour set to the query's. */
  likeness: number;
}

/**
 * What a search needs from a collection's index: vote-ranked candidates and whole-image hash neighbours, each with its
 * path. Held by this process (`LocalCollectionIndex`) or by the owners of a partitioned collection's shard sets
 * (`QueuedCollectionIndex`), which answer exactly what one index holding every image would.
 */
export interface CollectionSearchIndex {
  /** At most MAX_VERIFIED candidates allowed by the filters, in the order to verify them. */
  candidates(ref: CollectionRef, request: CandidateRequest): Promise<Candidate[]>;
  /** Per probe, at most HASH_NEIGHBOURS images within HASH_NEIGHBOUR_MAX_DISTANCE allowed by the filters, nearest first. */
  nearestByHash(ref: CollectionRef, probes: HashProbe[], filters: PathFilters): Promise<HashCandidate[][]>;
  /**
   * At most COLOUR_SHORTLIST images allowed by the filters whose colour sets are at least COLOUR_MIN_LIKENESS alike
   * `colours`, most alike first (equal likeness by id), which a search ranks again by their colour shares.
   */
  alikeInColour(ref: CollectionRef, colours: bigint, filters: PathFilters): Promise<ColourCandidate[]>;
}

/** The verification order: the queried image first, then by votes; equal votes by id, so merged shards agree. */
function byVerificationOrder(queriedPath: string | undefined) {
  const isQueried = (c: Candidate) => Number(queriedPath !== undefined && c.filepath === queriedPath);
  return (a: Candidate, b: Candidate) => isQueried(b) - isQueried(a) || b.votes - a.votes || a.imagePk - b.imagePk;
}

/**
 * One verification order of the candidates of several word lists of a query voted with apart, by relative votes
 * (`mergeByRelativeVotes`), at most MAX_VERIFIED. The queried image stays first.
 */
export function mergeShortlists(shortlists: readonly Candidate[][], queriedPath: string | undefined): Candidate[] {
  return mergeByRelativeVotes(shortlists, (c) => c.imagePk).sort(byVerificationOrder(queriedPath)).slice(0, MAX_VERIFIED);
}

function byDistance(a: HashCandidate, b: HashCandidate): number {
  return a.distance - b.distance || a.imagePk - b.imagePk;
}

function byLikeness(a: ColourCandidate, b: ColourCandidate): number {
  return b.likeness - a.likeness || a.imagePk - b.imagePk;
}

/** A collection index held in this process: all of every collection, or the shards of one set (`MatchIndexCache`). */
export class LocalCollectionIndex implements CollectionSearchIndex {
  constructor(
    private readonly cache: MatchIndexCache,
    /** Shares the reading of large votes with the calling thread (`VoteThread`); without it, votes run here alone. */
    private readonly voteHelper: VoteHelper | null = null,
  ) {}

  /** The idf counts of this process's part of the collection, one per word list (for `QueuedCollectionIndex`). */
  async voteStatistics(ref: CollectionRef, wordLists: Uint32Array[]): Promise<VoteStatistics[]> {
    const { index } = await this.cache.get(ref);
    return wordLists.map((words) => index.voteStatistics(words));
  }

  /** With `statistics` (one per word list, of the whole collection), votes are those of the whole collection. */
  async candidates(ref: CollectionRef, request: CandidateRequest, statistics?: VoteStatistics[]): Promise<Candidate[]> {
    const collection = await this.cache.get(ref);
    const votes = new Map<number, number>();
    request.wordLists.forEach((words, i) => {
      for (const c of collection.index.candidates(words, CANDIDATE_POOL, statistics?.[i], { helper: this.voteHelper })) votes.set(c.imageKey, Math.max(votes.get(c.imageKey) ?? 0, c.votes));
    });
    const allowed = pathPredicate(request.filters);
    const candidates: Candidate[] = [];
    for (const [imagePk, imageVotes] of votes) {
      const filepath = collection.paths.get(imagePk) ?? '';
      if (!allowed || allowed(filepath)) candidates.push({ imagePk, filepath, votes: imageVotes });
    }
    return candidates.sort(byVerificationOrder(request.queriedPath)).slice(0, MAX_VERIFIED);
  }

  async nearestByHash(ref: CollectionRef, probes: HashProbe[], filters: PathFilters): Promise<HashCandidate[][]> {
    const collection = await this.cache.get(ref);
    const allowed = pathPredicate(filters);
    const pathOf = (imagePk: number) => collection.paths.get(imagePk) ?? '';
    return probes.map(({ hash }) =>
      collection.hashes
        .nearest(hash, HASH_NEIGHBOUR_MAX_DISTANCE, HASH_NEIGHBOURS, allowed ? (imagePk) => allowed(pathOf(imagePk)) : undefined)
        .map(({ key, distance }) => ({ imagePk: key, filepath: pathOf(key), distance })),
    );
  }

  async alikeInColour(ref: CollectionRef, colours: bigint, filters: PathFilters): Promise<ColourCandidate[]> {
    const collection = await this.cache.get(ref);
    const allowed = pathPredicate(filters);
    const pathOf = (imagePk: number) => collection.paths.get(imagePk) ?? '';
    return collection.hashes
      .alikeInColour(colours, COLOUR_SHORTLIST, COLOUR_MIN_LIKENESS, allowed ? (imagePk) => allowed(pathOf(imagePk)) : undefined)
      .map(({ key, likeness }) => ({ imagePk: key, filepath: pathOf(key), likeness }));
  }

  /** Loads the collection (a shard owner's warm-up). */
  async load(ref: CollectionRef): Promise<void> {
    await this.cache.get(ref);
  }
}

/** Prefix of the per-set job kinds of partitioned collections. BullMQ queue names cannot contain ':'. */
export const COLLECTION_CANDIDATES_KIND = 'collection_candidates';

/**
 * How long a search waits for one shard set's answer. An owner answers in milliseconds once the collection is loaded,
 * and loads a collection of a million images from its snapshot in about 10 s; this bounds a search when a set has no
 * live owner, which then fails instead of hanging.
 */
export const COLLECTION_CANDIDATE_TIMEOUT_MS = 60_000;

interface SerializedStatistics {
  images: number;
  /** [word, images containing it] pairs. */
  documentFrequency: Array<[number, number]>;
}

/** A job of a shard set's owner; words and signatures travel as JSON (numbers, and hashes and colour sets as decimal strings). */
export type CollectionCandidatesPayload = { account_id: number; service: string } & (
  | { op: 'load' }
  | { op: 'statistics'; word_lists: number[][] }
  | { op: 'candidates'; word_lists: number[][]; statistics: SerializedStatistics[]; filters: PathFilters; queried_path?: string }
  | { op: 'hashes'; probes: Array<{ hash: string; flipped: boolean }>; filters: PathFilters }
  | { op: 'colours'; colours: string; filters: PathFilters }
);

/** Parses `COLLECTION_SHARD_SETS`; null when unset. Throws unless the sets are disjoint and cover every shard. */
export function parseCollectionShardSets(text: string | undefined): ShardSet[] | null {
  return parseShardSets(text, 'COLLECTION_SHARD_SETS', COLLECTION_INDEX_SHARDS);
}

export function collectionCandidateKind(set: ShardSet): string {
  return `${COLLECTION_CANDIDATES_KIND}_${shardSetName(set)}`;
}

/** The per-set job kinds of a `COLLECTION_SHARD_SETS` value (none when unset). */
export function collectionCandidateKinds(sets: string | undefined): string[] {
  return (parseCollectionShardSets(sets) ?? []).map(collectionCandidateKind);
}

/** Runs a shard set owner's job on its part of the collection. */
export async function answerCandidateJob(owner: LocalCollectionIndex, payload: CollectionCandidatesPayload): Promise<unknown> {
  const ref: CollectionRef = { accountId: payload.account_id, service: payload.service };
  switch (payload.op) {
    case 'load':
      return owner.load(ref);
    case 'statistics':
      return (await owner.voteStatistics(ref, payload.word_lists.map((w) => Uint32Array.from(w)))).map(
        (s): SerializedStatistics => ({ images: s.images, documentFrequency: [...s.documentFrequency] }),
      );
    case 'candidates':
      return owner.candidates(
        ref,
        { wordLists: payload.word_lists.map((w) => Uint32Array.from(w)), filters: payload.filters, queriedPath: payload.queried_path },
        payload.statistics.map((s) => ({ images: s.images, documentFrequency: new Map(s.documentFrequency) })),
      );
    case 'hashes':
      return owner.nearestByHash(ref, payload.probes.map((p) => ({ hash: BigInt(p.hash), flipped: p.flipped })), payload.filters);
    case 'colours':
      return owner.alikeInColour(ref, BigInt(payload.colours), payload.filters);
  }
}

/**
 * A partitioned collection (`COLLECTION_SHARD_SETS`): each shard set's owners hold their shards of every collection,
 * and a search asks every set through the job queue, the way the public index's shards are searched. Votes are exact:
 * the owners first report their idf counts for the query's words, and then all vote with the sums, so the merged top
 * list is the one a single index would give.
 */
export class QueuedCollectionIndex implements CollectionSearchIndex {
  private readonly owners: ShardOwners;

  constructor(sets: readonly ShardSet[], queue: () => JobQueue | null, timeoutMs = COLLECTION_CANDIDATE_TIMEOUT_MS) {
    this.owners = { sets, kindOf: collectionCandidateKind, queue, variable: 'COLLECTION_SHARD_SETS', label: 'collection', timeoutMs };
  }

  async candidates(ref: CollectionRef, request: CandidateRequest): Promise<Candidate[]> {
    const group = fanOutGroup('collection candidates');
    const word_lists = request.wordLists.map((words) => Array.from(words));
    const base = { account_id: ref.accountId, service: ref.service };
    const parts = await this.ask<SerializedStatistics[]>(group, { ...base, op: 'statistics', word_lists });
    const statistics = word_lists.map((_, i) =>
      mergeVoteStatistics(parts.map((part) => ({ images: part[i].images, documentFrequency: new Map(part[i].documentFrequency) }))),
    );
    const lists = await this.ask<Candidate[]>(group, {
      ...base,
      op: 'candidates',
      word_lists,
      statistics: statistics.map((s) => ({ images: s.images, documentFrequency: [...s.documentFrequency] })),
      filters: request.filters,
      queried_path: request.queriedPath,
    });
    return lists.flat().sort(byVerificationOrder(request.queriedPath)).slice(0, MAX_VERIFIED);
  }

  async nearestByHash(ref: CollectionRef, probes: HashProbe[], filters: PathFilters): Promise<HashCandidate[][]> {
    const answers = await this.ask<HashCandidate[][]>(fanOutGroup('collection candidates'), {
      account_id: ref.accountId,
      service: ref.service,
      op: 'hashes',
      probes: probes.map((p) => ({ hash: p.hash.toString(), flipped: p.flipped })),
      filters,
    });
    return probes.map((_, i) => answers.flatMap((answer) => answer[i]).sort(byDistance).slice(0, HASH_NEIGHBOURS));
  }

  async alikeInColour(ref: CollectionRef, colours: bigint, filters: PathFilters): Promise<ColourCandidate[]> {
    const answers = await this.ask<ColourCandidate[]>(fanOutGroup('collection candidates'), {
      account_id: ref.accountId,
      service: ref.service,
      op: 'colours',
      colours: colours.toString(),
      filters,
    });
    return answers.flat().sort(byLikeness).slice(0, COLOUR_SHORTLIST);
  }

  private ask<T>(group: string, payload: CollectionCandidatesPayload): Promise<T[]> {
    return askEveryShardSet<T>(this.owners, group, payload);
  }
}
