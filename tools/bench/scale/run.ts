/**
 * Million-image benchmark (issue 13): one collection grown from 1k to 1M images in one run, measured at each size
 * through the job processors a worker runs, against Postgres and folder blobs.
 *
 *   sh tools/bench/match/setup.sh          # once: the Debian picture packages
 *   npx tsx --expose-gc tools/bench/scale/run.ts --postgres postgres://postgres@127.0.0.1:5432 [flags]
 *
 * Flags (docs/benchmarks.md: --scale 1k,20k,100k,1m --real 20000 --per-edit 3 --fpr 24):
 *   --scale LIST   collection sizes; those up to --real are really ingested, larger ones add generated rows
 *   --real N       images really ingested (default 20000)
 *   --per-edit N   queries per edit of the matching benchmark at every size (default 3)
 *   --fpr N        held-out photos searched (with three edits each) for the false-positive rate (default 24)
 *   --write        writes the report into docs/benchmarks.md ("## Million-image collections")
 *   --keep DIR     keeps the run's data folder (stored copies, index snapshot) in DIR and its database, for --reuse
 *   --reuse DIR    searches the collection a --keep run left in DIR and the database again: no ingest, no generated
 *                  rows, the index started from its snapshot (the load from rows and the stored bytes per really
 *                  ingested image are not measured). Its --scale may not ask for more really ingested images.
 *
 * The collection, built in this order:
 *  1. queried photos: a third of the distinct photos of the dataset (tools/bench/match/dataset.ts), originals; every
 *     recall query is an edit of one of them (the matching benchmark's edits);
 *  2. pool variants: crops (45-95 % of the area), flips, rotations, rescales and re-encodings of the pool photos (a
 *     disjoint half of the photos): different images to the index, as a catalog of related pictures is; really
 *     ingested, through the ingest processor, up to --real images;
 *  3. generated distractors up to the larger sizes: collages of patches of really ingested pool variants
 *     (distractors.ts), rows and words inserted by SQL (the images trigger logs them as any add). Their features are
 *     not stored (1M × 40-56 KB would not fit this machine's disk next to the rest): they are synthesised from the
 *     distractor's number when a search verifies one, so verification costs what it would. Their normalised copies
 *     (the patches' pixels) are composed when a search first reads one; a search that composed one is timed again.
 * Held-out photos (the remaining sixth) are never in the collection: their edits measure false positives.
 */
import { colourOverlap, colourSet, colourSetOfShares, colourShares, decodeColourShares, deserializeFeatures, encodeColourShares, extractFeatures, searchVocabulary, seededRandom, serializeFeatures, verifyMatch, VoteThread, type Features, type GlobalHashIndex } from '@loupe/fingerprint';
import { cropImage, findContentBox, grayImageOf, normalizeImage } from '@loupe/imaging';
import { COLOUR_MIN_LIKENESS, COLOUR_SHORTLIST, createWorkerServices, IndexSnapshots, JobKind, LocalCollectionIndex, MatchIndexCache, MAX_VERIFIED, mergeShortlists, nativeScaleWords, rankedByColourShares, stagingKey, type IngestPayload, type IngestResult, type SearchPayload, type SearchResult, type StepTimes, type WorkerServices } from '@loupe/jobs';
import { loadConfig, openInfrastructure, type Infrastructure } from '@loupe/runtime';
import { decodeWords, encodeWords, MatchIndexRepository, type BlobInfo, type BlobStore } from '@loupe/storage';
import { readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { Client } from 'pg';
import { loadDataset } from '../match/dataset';
import { EDITS, FPR_EDITS, type Edit } from '../match/edits';
import { flag, lastStep, machine, meanSteps, pct, shuffle, writeBenchmarkSection } from '../report';
import { distractor, distractorColourShares, distractorJpeg, type SourceImage } from './distractors';
import { poolVariant } from './pool-variants';

const parseSize = (s: string) => Math.round(Number(s.replace(/[km]$/i, '')) * (/k$/i.test(s) ? 1e3 : /m$/i.test(s) ? 1e6 : 1));
const OPTS = {
  postgres: flag('postgres') ?? 'postgres://postgres@127.0.0.1:5432',
  scales: (flag('scale') ?? '1k,20k,100k,1m').split(',').map(parseSize),
  real: Number(flag('real') ?? 20_000),
  perEdit: Number(flag('per-edit') ?? 3),
  fpr: Number(flag('fpr') ?? 24),
  seed: 1,
  write: process.argv.includes('--write'),
  keep: flag('keep'),
  reuse: flag('reuse'),
};
const DATABASE = 'loupe_bench_scale';
const SERVICE = 'match';
const PREFERRED_SIDE = 600;
const BATCH = 10;
/** Ingested pool variants whose features the generated distractors are made of. */
const SOURCE_IMAGES = 3000;
const ROWS_PER_STATEMENT = 1000;
const FIRST_GENERATED = 'generated/';
/** SQL: a generated row's number, read back from its filepath (`generated/<n>.jpg`). */
const GENERATED_NUMBER = `substring(filepath from ${FIRST_GENERATED.length + 1} for length(filepath) - ${FIRST_GENERATED.length + 4})::int`;

const log = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);
const gc = () => (global as { gc?: () => void }).gc?.();
/** Collects garbage and waits for V8 to release freed array buffers, which it does after the collection, not in it. */
async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return process.memoryUsage();
}
const fmtPct = (num: number, den: number) => (den === 0 ? '–' : `${((100 * num) / den).toFixed(1)} %`);


interface Bench {
  infra: Infrastructure;
  repository: SynthesisingRepository;
  blobs: SynthesisingBlobs;
  accountId: number;
  services: WorkerServices;
  snapshotDir: string;
}

/**
 * The matching index repository of the run: generated distractors' features are synthesised from their number instead
 * of read (they are not stored); every other image's come from Postgres.
 */
class SynthesisingRepository extends MatchIndexRepository {
  sources: SourceImage[] = [];
  readonly generated = new Map<number, number>();

  override async features(imagePks: readonly number[]): Promise<Map<number, Buffer>> {
    const stored = await super.features(imagePks.filter((pk) => !this.generated.has(pk)));
    for (const pk of imagePks) {
      const seed = this.generated.get(pk);
      if (seed !== undefined) stored.set(pk, serializeFeatures(distractor(this.sources, seed).features));
    }
    return stored;
  }
}

/** A generated distractor's `norm_blob_key`: `generated/<number>/normalized.jpg`. */
const generatedBlobKey = /^generated\/(\d+)\/normalized\.jpg$/;

/**
 * The blob store of the run: a generated distractor's normalised copy is composed (`distractorJpeg`) when first read
 * and kept in memory, every other blob is the folder store's. `composed` counts compositions, so a search that had
 * to compose one can be timed again without that work, which a stored copy would not cost.
 */
class SynthesisingBlobs implements BlobStore {
  readonly kind = 'folder' as const;
  composed = 0;
  /**
   * The colour set each composed copy was given (its row's) and the one its pixels have, as ingest would compute it, and
   * how much of its pixels' colour shares its row's have (`colourOverlap`; 1 when they are the same).
   */
  readonly colourChecks: ColourCheck[] = [];
  private readonly copies = new Map<string, Buffer>();

  constructor(
    private readonly folder: BlobStore,
    private readonly repository: SynthesisingRepository,
  ) {}

  async get(key: string): Promise<Buffer | null> {
    const generated = generatedBlobKey.exec(key);
    if (!generated) return this.folder.get(key);
    let copy = this.copies.get(key);
    if (!copy) {
      copy = await distractorJpeg(this.repository.sources, Number(generated[1]), async (sourceKey) => (await this.folder.get(sourceKey))!);
      this.copies.set(key, copy);
      this.composed++;
      // What its row was given (`addGenerated`): the set of its shares, and the shares as stored.
      const givenShares = distractorColourShares(distractor(this.repository.sources, Number(generated[1])));
      const pixels = await normalizeImage(copy, { preferredSide: PREFERRED_SIDE });
      const storedShares = decodeColourShares(encodeColourShares(givenShares));
      this.colourChecks.push({ stored: colourSetOfShares(givenShares), composed: colourSet(pixels), sharesOverlap: colourOverlap(colourShares(pixels), storedShares) });
    }
    return copy;
  }

  /** Drops the composed copies, so they do not count in the memory a size's index load measures, and their checks. */
  forget(): void {
    this.copies.clear();
    this.colourChecks.length = 0;
  }

  put(key: string, data: Buffer, contentType?: string): Promise<void> {
    return this.folder.put(key, data, contentType);
  }
  exists(key: string): Promise<boolean> {
    return generatedBlobKey.test(key) ? Promise.resolve(true) : this.folder.exists(key);
  }
  delete(key: string): Promise<void> {
    return this.folder.delete(key);
  }
  deletePrefix(prefix: string): Promise<number> {
    return this.folder.deletePrefix(prefix);
  }
  list(prefix: string): AsyncIterable<BlobInfo> {
    return this.folder.list(prefix);
  }
  ping(): Promise<void> {
    return this.folder.ping();
  }
}

function services(b: Pick<Bench, 'infra' | 'repository' | 'blobs' | 'snapshotDir'>, snapshots: boolean): WorkerServices {
  return createWorkerServices({
    images: b.infra.images, blobs: b.blobs, matchIndex: b.repository, db: b.infra.db,
    indexSnapshots: snapshots ? { dir: b.snapshotDir, minImages: 1 } : undefined,
  });
}

const JOB = { kind: 'bench', group: 'bench:scale', attempt: 1 };

async function stage(b: Bench, data: Buffer): Promise<string> {
  const key = stagingKey();
  await b.blobs.put(key, data);
  return key;
}

async function ingest(b: Bench, items: Array<{ filepath: string; data: Buffer }>): Promise<{ added: number; ms: number }> {
  const staged = [];
  for (const it of items) staged.push({ filepath: it.filepath, image_id: null, staged_key: await stage(b, it.data) });
  const payload: IngestPayload = { account_id: b.accountId, account: 'bench', service: SERVICE, items: staged, on_existing: 'replace', preferred_side: PREFERRED_SIDE, crop_borders: true };
  const started = performance.now();
  const result = (await b.services.processors[JobKind.Ingest](payload, JOB)) as IngestResult;
  return { added: result.added.length, ms: performance.now() - started };
}

/**
 * The calling thread's garbage-collection pauses so far (ms): a search's share is the growth across it. At a million
 * images the heap is large, and a collection that marks it all lands on whichever step allocated last.
 */
let gcPausedMs = 0;
new PerformanceObserver((entries) => {
  for (const entry of entries.getEntries()) gcPausedMs += entry.duration;
}).observe({ entryTypes: ['gc'] });
/** GC entries reach the observer on a later turn of the event loop: wait for them before reading `gcPausedMs`. */
const gcSettled = () => new Promise<number>((resolve) => setImmediate(() => resolve(gcPausedMs)));

async function search(b: Bench, data: Buffer, flip: boolean): Promise<{ result: SearchResult; ms: number; cpuMs: number; gcMs: number }> {
  const payload: SearchPayload = {
    account_id: b.accountId, account: 'bench', service: SERVICE, query: { staged_key: await stage(b, data), label: 'query.jpg' }, preferred_side: PREFERRED_SIDE,
    options: { min_score: 0, check_horizontal_flip: flip, generate_overlay: false, offset: 0, limit: 10 },
  };
  const gcBefore = await gcSettled();
  const started = performance.now();
  // The process's CPU time (the calling thread and the verification threads): what a search costs whatever the load.
  const cpu = process.cpuUsage();
  const cpuMs = () => {
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / 1000;
  };
  const timed = async (result: SearchResult) => {
    const [ms, usedMs] = [performance.now() - started, cpuMs()];
    return { result, ms, cpuMs: usedMs, gcMs: (await gcSettled()) - gcBefore };
  };
  try {
    return await timed((await b.services.processors[JobKind.Search](payload, JOB)) as SearchResult);
  } catch (error) {
    if ((error as { code?: string }).code !== 'INPUT_REFUSED') throw error;
    return timed({ query_filepath: 'query.jpg', items: [], total_results: 0, total_filtered_results: 0, time_resize: 0, time_search: 0 });
  }
}

interface Query {
  edit: Edit;
  filepath: string;
  /** The held-out photo a false-positive query is an edit of. */
  heldOut?: string;
  data: Buffer;
  /** The query's search words (and its mirror's for flipped edits), as the search computes them; null when refused. */
  wordLists?: Uint32Array[] | null;
  /** The query's features, as the search extracts them (with the mirror's for flipped edits). */
  features?: Features;
  /** A small query's words at its own scale, with which the search votes again after an unmatched first round; null when it is detected at its own scale already. */
  nativeWords?: Uint32Array | null;
  /**
   * At the current size: the queried image's key and its ranks by votes (1 = first; null = beyond RANK_DEPTH), as the
   * query is detected (`voteRank`) and, for a small query, at its own scale and in the two votes merged, which is the
   * order the search verifies after its first round.
   */
  truth?: { imagePk: number; voteRank: number | null; nativeRank?: number | null; mergedRank?: number | null; colourRank?: ColourRank };
  /** The query's colour set and shares, as the search computes them for its colour candidates. */
  colours?: { set: bigint; shares: Float64Array };
}

/**
 * Where the colour candidates hold a query's image: its rank by colour sets among the index's images (null = beyond
 * RANK_DEPTH or under COLOUR_MIN_LIKENESS), and its rank by sets + shares among the COLOUR_SHORTLIST the index answers
 * (null = not in it), which the search places the first COLOUR_CANDIDATES of.
 */
interface ColourRank {
  bySets: number | null;
  bySetsAndShares: number | null;
}

/** How deep a miss's true image is looked for in the vote's ranking. */
const RANK_DEPTH = 5000;

/** A recall query whose true image was not first: where the vote ranked it, and whether verifying it alone matches. */
interface Miss {
  edit: string;
  /** The queried image's path (its photo). */
  filepath: string;
  voteRank: number | null;
  /** A small query's ranks at its own scale and merged (`Query.truth`); undefined for a query detected at its own scale. */
  nativeRank?: number | null;
  mergedRank?: number | null;
  colourRank?: ColourRank;
  /** The true image verified against the query on its own (no shortlist): its score, or null when it does not match. */
  aloneScore: number | null;
  /** What the search ranked first instead, if anything. */
  answered: string | null;
}

/** A query's word lists the way MatchService does it: normalise, crop borders, grey, ORB, quantise (+ mirror); also its colours. */
async function queryWords(q: Query): Promise<Uint32Array[] | null> {
  if (q.wordLists !== undefined) return q.wordLists;
  try {
    const normalized = await normalizeImage(q.data, { preferredSide: PREFERRED_SIDE });
    const rgb = cropImage(normalized, findContentBox(normalized));
    const gray = grayImageOf(rgb);
    const features = await extractFeatures(gray, { includeMirror: q.edit.flip === true });
    q.features = features;
    q.nativeWords = await nativeScaleWords(gray);
    const vocabulary = searchVocabulary();
    q.wordLists = [vocabulary.quantize(features)];
    q.colours = { set: colourSet(rgb), shares: colourShares(rgb) };
    if (q.edit.flip && features.mirrored) q.wordLists.push(vocabulary.quantize(features.mirrored));
  } catch {
    q.wordLists = null;
  }
  return q.wordLists;
}

interface SizeReport {
  size: number;
  real: number;
  hits: number;
  queries: number;
  strictHits: number;
  strictQueries: number;
  /** Held-out queries, those answered with any image, and what each was answered with. */
  fpr: { queries: number; positives: number; answers: string[] };
  wrongFirst: number;
  misses: Miss[];
  searchMs: number[];
  /** The same searches apart: of the recall queries (their image is in the collection), and of the FPR queries (it is not). */
  searchMsOf: { inCollection: number[]; outside: number[] };
  searchCpuMs: number[];
  /** Per search: the query's decode and normalisation (time_resize), and vote + verification (time_search). */
  decodeMs: number[];
  voteAndVerifyMs: number[];
  /**
   * Per search, its time, CPU time and steps as the search reported them (`SearchResult.steps`), and its edit ("outside"
   * for a held-out photo's).
   */
  stepped: Array<{ ms: number; cpuMs: number; gcMs: number; steps: StepTimes; label: string }>;
  /** The recall hits by the step of the search that found them: their edits. */
  foundBy: Map<string, string[]>;
  /** Per query, the vote alone over the loaded index (every word list of the query), outside the search. */
  voteMs: number[];
  /** The same votes shared with a VoteThread, as the search processors vote. */
  sharedVoteMs: number[];
  loadFromDatabaseS: number;
  startFromSnapshotS: number;
  /** First search of a fresh processor set: snapshot load, verification threads' start, the search. */
  firstSearchS: number;
  snapshotBytes: number;
  memory: { typedAndHeapPerImage: number; indexArraysPerImage: number; rssPerImage: number; rssAfterMB: number };
  /** Postgres bytes per image of all rows, and of the really ingested rows alone (measured before generated rows joined them). */
  storage: { bytesPerImage: number; realBytesPerImage: number; tables: string; realTables: string };
  ingestRate?: number;
  generatedRate?: number;
  /** Distractors whose normalised copies the searches read (each composed once). */
  distractorCopiesRead: number;
}

function sumOf(tables: Record<string, number>): number {
  return Object.values(tables).reduce((s, n) => s + n, 0);
}

function describeTables(tables: Record<string, number>): string {
  return Object.entries(tables).map(([k, v]) => `${k} ${(v / 1e6).toFixed(0)} MB`).join(', ');
}

async function tableBytes(b: Bench): Promise<Record<string, number>> {
  const { rows } = await b.infra.db.query<{ name: string; bytes: string }>(
    `SELECT c.relname AS name, pg_total_relation_size(c.oid)::text AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname IN ('images', 'image_words', 'image_features', 'index_log')`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)]));
}

/**
 * Loads the collection's index twice, as a new replica would: from every row (which writes the snapshot), then from
 * the snapshot, measuring the memory the second one holds; then a fresh processor set (the one the queries use) starts
 * from the snapshot too and serves a first search, which also starts its verification threads. Without `fromRows` the
 * snapshot a kept run wrote is the start (`--reuse`), and the load from rows is not measured.
 */
async function measureLoads(b: Bench, warm: Buffer, queries: Query[], report: SizeReport, fromRows = true): Promise<void> {
  await b.services.close();
  b.services = null as unknown as WorkerServices;
  const ref = { accountId: b.accountId, service: SERVICE };
  const snapshotOptions = { snapshots: new IndexSnapshots(b.snapshotDir), minImages: 1 };
  let started = performance.now();
  if (fromRows) {
    await rm(b.snapshotDir, { recursive: true, force: true });
    const loading = new MatchIndexCache(b.repository, snapshotOptions);
    await loading.get(ref);
    await loading.idle();
    report.loadFromDatabaseS = (performance.now() - started) / 1000;
  } else report.loadFromDatabaseS = NaN;
  report.snapshotBytes = readdirSync(b.snapshotDir).reduce((sum, file) => sum + statSync(path.join(b.snapshotDir, file)).size, 0);
  const before = await settledMemory();
  let replica: MatchIndexCache | null = new MatchIndexCache(b.repository, snapshotOptions);
  started = performance.now();
  const loaded = await replica.get(ref);
  report.startFromSnapshotS = (performance.now() - started) / 1000;
  const after = await settledMemory();
  report.memory = {
    typedAndHeapPerImage: (after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / loaded.index.size,
    indexArraysPerImage: loaded.index.typedBytes / loaded.index.size,
    rssPerImage: (after.rss - before.rss) / loaded.index.size,
    rssAfterMB: after.rss / 1e6,
  };
  const votes = new LocalCollectionIndex(replica);
  const voteThread = new VoteThread();
  await voteThread.warm();
  const sharedVotes = new LocalCollectionIndex(replica, voteThread);
  const pkOfPath = new Map<string, number>();
  const queriedPaths = new Set(queries.map((q) => q.filepath));
  for (const [imagePk, filepath] of loaded.paths) if (queriedPaths.has(filepath)) pkOfPath.set(filepath, imagePk);
  for (const q of queries) {
    const wordLists = await queryWords(q);
    if (!wordLists) continue;
    started = performance.now();
    const shortlist = await votes.candidates(ref, { wordLists, filters: {} });
    report.voteMs.push(performance.now() - started);
    started = performance.now();
    await sharedVotes.candidates(ref, { wordLists, filters: {} });
    report.sharedVoteMs.push(performance.now() - started);
    const imagePk = pkOfPath.get(q.filepath);
    if (imagePk === undefined) continue;
    const lists = wordLists.map((words) => loaded.index.candidates(words, RANK_DEPTH));
    q.truth = { imagePk, voteRank: bestRank(lists, imagePk) };
    if (q.colours) q.truth.colourRank = await colourRankOf(b, loaded.hashes, q.colours, imagePk);
    if (q.nativeWords) {
      // The merge the search makes: of its two shortlists (each MAX_VERIFIED long), so null = not among those verified.
      const shortlists = [shortlist, await votes.candidates(ref, { wordLists: [q.nativeWords], filters: {} })];
      const mergedAt = mergeShortlists(shortlists, undefined).findIndex((c) => c.imagePk === imagePk);
      const nativeRank = bestRank([loaded.index.candidates(q.nativeWords, RANK_DEPTH)], imagePk);
      Object.assign(q.truth, { nativeRank, mergedRank: mergedAt >= 0 ? mergedAt + 1 : null });
    }
  }
  replica = null;
  await voteThread.close();
  gc();
  b.services = services(b, true);
  started = performance.now();
  await search(b, warm, false);
  report.firstSearchS = (performance.now() - started) / 1000;
}

/** Adds a search's times to the size's report, and gives it back. */
function recordSearch<S extends { result: SearchResult; ms: number; cpuMs: number; gcMs: number }>(report: SizeReport, searched: S, label: string): S {
  report.searchMs.push(searched.ms);
  report.searchCpuMs.push(searched.cpuMs);
  report.decodeMs.push(searched.result.time_resize * 1000);
  report.voteAndVerifyMs.push(searched.result.time_search * 1000);
  report.stepped.push({ ms: searched.ms, cpuMs: searched.cpuMs, gcMs: searched.gcMs, steps: searched.result.steps ?? {}, label });
  return searched;
}

/**
 * A search timed as it runs on stored copies: when it had to compose a distractor's copy (the benchmark's work, not the
 * search's), it is run again and the second run is the one reported.
 */
async function timedSearch(b: Bench, data: Buffer, flip: boolean): Promise<{ result: SearchResult; ms: number; cpuMs: number; gcMs: number }> {
  const composed = b.blobs.composed;
  const searched = await search(b, data, flip);
  return b.blobs.composed === composed ? searched : search(b, data, flip);
}

async function runQueries(b: Bench, queries: Query[], fprQueries: Query[], report: SizeReport): Promise<void> {
  for (const q of queries) {
    const { result, ms } = recordSearch(report, await timedSearch(b, q.data, q.edit.flip === true), q.edit.name);
    report.searchMsOf.inCollection.push(ms);
    report.queries++;
    const first = result.items[0]?.filepath;
    if (first === q.filepath) {
      report.hits++;
      const step = lastStep(result.steps) ?? 'none';
      report.foundBy.set(step, [...(report.foundBy.get(step) ?? []), q.edit.name]);
    } else {
      if (first !== undefined) report.wrongFirst++;
      report.misses.push(await explainMiss(b, q, first ?? null));
    }
    if (q.edit.strict) {
      report.strictQueries++;
      if (first === q.filepath) report.strictHits++;
    }
  }
  for (const q of fprQueries) {
    const { result, ms } = recordSearch(report, await timedSearch(b, q.data, false), `${q.edit.name} (outside)`);
    report.searchMsOf.outside.push(ms);
    report.fpr.queries++;
    if (result.items.length > 0) {
      report.fpr.positives++;
      report.fpr.answers.push(`${q.edit.name} of held-out ${q.heldOut} → ${result.items[0].filepath} (score ${result.items[0].score}, ${lastStep(result.steps) ?? 'none'})`);
    }
  }
}

/** `imageKey`'s best rank in `lists` (1 = first), null when it is in none. */
function bestRank(lists: ReadonlyArray<ReadonlyArray<{ imageKey: number }>>, imageKey: number): number | null {
  const best = Math.min(...lists.map((list) => list.findIndex((c) => c.imageKey === imageKey)).filter((r) => r >= 0));
  return Number.isFinite(best) ? best + 1 : null;
}

/** `ColourRank` of `imagePk` for a query of `colours`, the way a search ranks the index's shortlist. */
async function colourRankOf(b: Bench, hashes: GlobalHashIndex, colours: NonNullable<Query['colours']>, imagePk: number): Promise<ColourRank> {
  const bySets = hashes.alikeInColour(colours.set, RANK_DEPTH, COLOUR_MIN_LIKENESS).map(({ key, likeness }) => ({ imagePk: key, likeness }));
  const at = bySets.findIndex((c) => c.imagePk === imagePk);
  const shortlist = bySets.slice(0, COLOUR_SHORTLIST);
  const reranked = rankedByColourShares(shortlist, colours.shares, await b.repository.colourSharesOf(shortlist.map((c) => c.imagePk)));
  const inShortlist = reranked.findIndex((c) => c.imagePk === imagePk);
  return { bySets: at >= 0 ? at + 1 : null, bySetsAndShares: inShortlist >= 0 ? inShortlist + 1 : null };
}

async function explainMiss(b: Bench, q: Query, answered: string | null): Promise<Miss> {
  const miss: Miss = { edit: q.edit.name, filepath: q.filepath, voteRank: q.truth?.voteRank ?? null, nativeRank: q.truth?.nativeRank, mergedRank: q.truth?.mergedRank, colourRank: q.truth?.colourRank, aloneScore: null, answered };
  if (!q.truth || !q.features) return miss;
  const stored = (await b.repository.features([q.truth.imagePk])).get(q.truth.imagePk);
  if (!stored) return miss;
  const alone = await verifyMatch(q.features, deserializeFeatures(stored), { checkHorizontalFlip: q.edit.flip === true });
  miss.aloneScore = alone ? Math.round(alone.score) : null;
  return miss;
}

const describeRank = (rank: number | null | undefined) => `${rank ?? `>${RANK_DEPTH}`}`;
const describeMiss = (m: Miss) =>
  `${m.edit} of ${m.filepath} (rank ${describeRank(m.voteRank)}${m.mergedRank !== undefined ? `; at its own scale ${describeRank(m.nativeRank)}, merged ${m.mergedRank ?? `>${MAX_VERIFIED}`}` : ''}${m.colourRank ? `; by colour sets ${describeRank(m.colourRank.bySets)}, by sets + shares ${m.colourRank.bySetsAndShares ?? `>${COLOUR_SHORTLIST}`}` : ''}${m.aloneScore === null ? ', alone: no match' : `, alone: ${m.aloneScore}`}${m.answered ? `, answered ${m.answered}` : ''})`;

/**
 * What a --keep run left (`--reuse`): its really ingested and generated rows counted, the generated rows' numbers (their
 * features are synthesised from them) and the distractors' source images read again.
 */
async function reuseCollection(b: Bench): Promise<{ real: number; generated: number }> {
  const { rows } = await b.infra.db.query<{ id: string; n: number }>(
    `SELECT id, ${GENERATED_NUMBER} AS n
       FROM images WHERE account_id = $1 AND filepath LIKE '${FIRST_GENERATED}%'`,
    [b.accountId],
  );
  for (const r of rows) b.repository.generated.set(Number(r.id), r.n);
  const real = Number((await b.infra.db.query<{ count: string }>(`SELECT count(*) FROM images WHERE account_id = $1 AND filepath NOT LIKE '${FIRST_GENERATED}%'`, [b.accountId])).rows[0].count);
  if (real === 0) throw new Error(`--reuse: no collection in ${DATABASE}; make one with --keep`);
  b.repository.sources = await loadSources(b);
  log(`reusing ${real.toLocaleString('en')} really ingested images and ${rows.length.toLocaleString('en')} generated rows`);
  return { real, generated: rows.length };
}

async function loadSources(b: Bench): Promise<SourceImage[]> {
  const { rows } = await b.infra.db.query<{ words: Buffer; features: Buffer; norm_blob_key: string }>(
    `SELECT w.words, f.features, i.norm_blob_key FROM images i JOIN image_words w ON w.image_pk = i.id JOIN image_features f ON f.image_pk = i.id
      WHERE i.account_id = $1 AND i.filepath LIKE 'pool/%' AND f.feature_count >= 100 ORDER BY i.id LIMIT $2`,
    [b.accountId, SOURCE_IMAGES],
  );
  // The colours of each stored copy, which a distractor's colour set is composed of (`distractor`).
  const colourSharesOf = async (normBlobKey: string) => colourShares(await normalizeImage((await b.blobs.get(normBlobKey))!, { preferredSide: PREFERRED_SIDE }));
  const sources: SourceImage[] = [];
  for (const r of rows) sources.push({ features: deserializeFeatures(r.features), words: decodeWords(r.words), colourShares: await colourSharesOf(r.norm_blob_key), normBlobKey: r.norm_blob_key });
  return sources;
}

/** Inserts generated distractor rows and their words, ROWS_PER_STATEMENT at a time; returns rows per second. */
async function addGenerated(b: Bench, from: number, to: number, vocabulary: string): Promise<number> {
  const started = performance.now();
  for (let done = from; done < to; ) {
    const numbers = Array.from({ length: Math.min(ROWS_PER_STATEMENT, to - done) }, (_, k) => done + k);
    const generated = numbers.map((n) => distractor(b.repository.sources, n));
    const words = generated.map((d) => encodeWords(d.words).toString('hex'));
    const shares = generated.map(distractorColourShares);
    const colourSets = shares.map((s) => BigInt.asIntN(64, colourSetOfShares(s)).toString());
    const storedShares = shares.map((s) => Buffer.from(encodeColourShares(s)).toString('hex'));
    const hashes = numbers.map((n) => BigInt.asIntN(64, BigInt(Math.floor(seededRandom(n)() * 2 ** 52)) * 4099n).toString());
    await b.infra.images.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: number; n: number }>(
        `INSERT INTO images (account_id, service, filepath, image_id, format, width, height, norm_width, norm_height,
                             blob_key, norm_blob_key, fingerprint_health, searchable, unsearchable_reason, metadata, ingest_token)
         SELECT $1, $2, '${FIRST_GENERATED}' || g || '.jpg', NULL, 'jpeg', 600, 450, 600, 450, '', 'generated/' || g || '/normalized.jpg', 1, true, NULL, '{}'::jsonb, NULL
           FROM unnest($3::int[]) AS g
         RETURNING id, ${GENERATED_NUMBER} AS n`,
        [b.accountId, SERVICE, numbers],
      );
      const pkOf = new Map(rows.map((r) => [Number(r.n), Number(r.id)]));
      const pks = numbers.map((n) => pkOf.get(n)!);
      pks.forEach((pk, i) => b.repository.generated.set(pk, numbers[i]));
      await tx.query(
        `INSERT INTO image_words (image_pk, vocabulary, words, global_hash, colour_set, colour_shares)
         SELECT x.pk, $4, decode(x.hex, 'hex'), x.hash, x.colours, decode(x.shares, 'hex')
           FROM unnest($1::bigint[], $2::text[], $3::bigint[], $5::bigint[], $6::text[]) AS x(pk, hex, hash, colours, shares)`,
        [pks, words, hashes, vocabulary, colourSets, storedShares],
      );
    });
    done += numbers.length;
    if (done % 50_000 === 0 || done === to) log(`  generated ${done.toLocaleString('en')} (${Math.round((done - from) / ((performance.now() - started) / 1000))} rows/s)`);
  }
  return (to - from) / ((performance.now() - started) / 1000);
}

const p50p95 = (xs: number[]) => `${Math.round(pct(xs, 50))} / ${Math.round(pct(xs, 95))} ms`;
/** The slowest tenth of a size's searches: their mean time per step (ms), in the order the steps come. */
function slowestTenthSteps(r: SizeReport): { searches: number; ms: number; cpuMs: number; gcMs: number; steps: Array<[string, number]>; edits: string } {
  const slowest = [...r.stepped].sort((a, b) => b.ms - a.ms).slice(0, Math.max(1, Math.round(r.stepped.length / 10)));
  const byEdit = new Map<string, number>();
  for (const s of slowest) byEdit.set(s.label, (byEdit.get(s.label) ?? 0) + 1);
  const edits = [...byEdit].sort((a, b) => b[1] - a[1]).map(([label, n]) => `${label} ×${n}`).join(', ');
  const mean = (of: (s: (typeof slowest)[number]) => number) => Math.round(slowest.reduce((t, s) => t + of(s), 0) / slowest.length);
  return { searches: slowest.length, ms: mean((s) => s.ms), cpuMs: mean((s) => s.cpuMs), gcMs: mean((s) => s.gcMs), steps: meanSteps(slowest.map((s) => s.steps)), edits };
}
/** The recall hits per step that found them; the edits of those found past the verification rounds. */
const describeFoundBy = (r: SizeReport) =>
  [...r.foundBy].map(([step, edits]) => `${step} ${edits.length}${step === 'verification' ? '' : ` (${edits.join(', ')})`}`).join('; ');
const describeSteps = (r: SizeReport) => {
  const { searches, ms, cpuMs, gcMs, steps, edits } = slowestTenthSteps(r);
  return `slowest ${searches}: ${ms} ms (CPU ${cpuMs} ms, calling thread's GC pauses ${gcMs} ms) = ${steps.map(([step, t]) => `${step} ${t}`).join(' + ')} (${edits})`;
};

const bins = (set: bigint) => set.toString(2).replace(/0/g, '').length;
/** How the colour sets given to generated rows compare with those of their composed copies' pixels. */
interface ColourCheck {
  stored: bigint;
  composed: bigint;
  sharesOverlap: number;
}

function describeColourChecks(checks: readonly ColourCheck[]): string {
  if (checks.length === 0) return 'colour sets of composed copies: none composed';
  const mean = (of: (c: (typeof checks)[number]) => number) => (checks.reduce((t, c) => t + of(c), 0) / checks.length).toFixed(1);
  const supersets = checks.filter((c) => (c.stored & c.composed) === c.composed && c.stored !== c.composed).length;
  const equal = checks.filter((c) => c.stored === c.composed).length;
  return `colour sets of ${checks.length} composed copies: ${mean((c) => bins(c.stored))} bins given to their rows against ${mean((c) => bins(c.composed))} in their pixels, ${mean((c) => bins(c.stored & c.composed))} shared; given = pixels' ${equal}, a strict superset ${supersets}; shares given against the pixels' overlap by ${mean((c) => c.sharesOverlap * 100)} %`;
}

const stages = (r: SizeReport) => `image in the collection ${p50p95(r.searchMsOf.inCollection)}, not in it ${p50p95(r.searchMsOf.outside)}; CPU ${p50p95(r.searchCpuMs)}; decode ${p50p95(r.decodeMs)}; vote + verification ${p50p95(r.voteAndVerifyMs)}; vote alone ${p50p95(r.voteMs)}, shared with a thread ${p50p95(r.sharedVoteMs)}`;

function render(reports: SizeReport[], ctx: { photos: number; queried: number; pool: number; heldOut: number; wallMinutes: number; command: string }): string {
  const L: string[] = ['## Million-image collections', ''];
  L.push(`Run: \`${ctx.command}\`, ${machine()}, Postgres + folder blobs, processors from createWorkerServices, ${ctx.wallMinutes.toFixed(0)} min wall (tools/bench/scale/run.ts; the machine was shared with other work during parts of the run).`, '');
  L.push(`Photos: ${ctx.photos} distinct Debian pictures: ${ctx.queried} queried (originals in the collection), ${ctx.pool} pool photos whose crops, flips, rotations, rescales and re-encodings are the really ingested rest, ${ctx.heldOut} held out (false-positive queries). Past the ingested images, generated distractors: collages of patches of ingested pool variants (real descriptors, words and layouts; tools/bench/scale/distractors.ts), rows and words inserted by SQL, features synthesised when verified, normalised copies (the patches' pixels on a blurred background) composed when a search first reads one, and that search timed again.`, '');
  L.push('| images | really ingested | recall@1 (n) | ★ recall@1 | wrong first | FPR (n) | search p50 | search p95 | index load from rows (+ snapshot write) | index load from snapshot | first search of a new process | snapshot | index memory / image (heap + arrays grown; posting arrays alone; RSS grown) | process RSS | stored / image (all rows; really ingested rows) | ingest |');
  L.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of reports) {
    L.push(
      `| ${r.size.toLocaleString('en')} | ${r.real.toLocaleString('en')} | ${fmtPct(r.hits, r.queries)} (${r.queries}) | ${fmtPct(r.strictHits, r.strictQueries)} | ${r.wrongFirst} | ${fmtPct(r.fpr.positives, r.fpr.queries)} (${r.fpr.queries}) | ${Math.round(pct(r.searchMs, 50))} ms | ${Math.round(pct(r.searchMs, 95))} ms | ${r.loadFromDatabaseS.toFixed(1)} s | ${r.startFromSnapshotS.toFixed(1)} s | ${r.firstSearchS.toFixed(1)} s | ${(r.snapshotBytes / 1e6).toFixed(0)} MB | ${(r.memory.typedAndHeapPerImage / 1024).toFixed(2)} KiB; ${(r.memory.indexArraysPerImage / 1024).toFixed(2)} KiB; ${(r.memory.rssPerImage / 1024).toFixed(2)} KiB | ${(r.memory.rssAfterMB / 1000).toFixed(2)} GB | ${(r.storage.bytesPerImage / 1024).toFixed(1)} KiB; ${(r.storage.realBytesPerImage / 1024).toFixed(1)} KiB | ${[r.ingestRate && `${r.ingestRate.toFixed(1)} img/s`, r.generatedRate && `generated rows ${Math.round(r.generatedRate)}/s`].filter(Boolean).join(', ')} |`,
    );
  }
  L.push('');
  L.push('Where a search\'s time goes, p50 / p95 over the same searches (the rest of a search is the query\'s ORB extraction, staging and the processor\'s own work):', '');
  L.push('| images | search | search, image in the collection (recall queries) | search, image not in it (FPR queries) | search, CPU time of the process | query decode + normalisation | vote + verification | vote alone (outside the search), calling thread only | the same, shared with a VoteThread (as searches vote) |');
  L.push('|---|---|---|---|---|---|---|---|---|');
  for (const r of reports) L.push(`| ${r.size.toLocaleString('en')} | ${p50p95(r.searchMs)} | ${p50p95(r.searchMsOf.inCollection)} | ${p50p95(r.searchMsOf.outside)} | ${p50p95(r.searchCpuMs)} | ${p50p95(r.decodeMs)} | ${p50p95(r.voteAndVerifyMs)} | ${p50p95(r.voteMs)} | ${p50p95(r.sharedVoteMs)} |`);
  L.push('');
  L.push('The slowest tenth of searches at each size: their mean time, and its steps as the searches report them (`SearchResult.steps`, means in ms; a step counts as 0 for a search that did not reach it; the upright copy\'s steps ran beside the dense, whole-image and placement steps, so the steps can add up to more than the time; the rest is staging and the processor\'s own work):', '');
  for (const r of reports) L.push(`- ${r.size.toLocaleString('en')}: ${describeSteps(r)}`);
  L.push('', 'The step of the search that found each recall hit (the last step its search reached), and the edits found past the verification rounds:', '');
  for (const r of reports) L.push(`- ${r.size.toLocaleString('en')}: ${describeFoundBy(r)}; distractors whose pixels the second chances read: ${r.distractorCopiesRead}`);
  L.push('');
  L.push(`Recall queries missed at each size: the edit, the true image's rank by votes (the search verifies the first ${MAX_VERIFIED}; for a query enlarged for detection also its rank by its words at its own scale and in the two votes merged, the order the search verifies after an unmatched first round), its score when verified alone against the query, and what was answered first instead:`, '');
  for (const r of reports) L.push(`- ${r.size.toLocaleString('en')}: ${r.misses.map(describeMiss).join('; ') || 'none'}`);
  L.push('');
  L.push(`Recall: ${OPTS.perEdit} queries per edit of the matching benchmark (${EDITS.length} edits) at every size, the same queries each time; ★ = its strict edits. "Wrong first" = another image ranked first. FPR: ${OPTS.fpr} held-out photos × ${FPR_EDITS.length} edits, any result counts. Search = the search processor call (query decode, ORB, vote, verification). Memory: heap + array buffers (and RSS) grown by loading the index from its snapshot into a new cache, per image. "First search of a new process" = a fresh processor set's first search: the snapshot load, the start of its verification threads and the search. Storage: Postgres total relation size of images, image_words, image_features and index_log, per image; the generated rows store no features, so "really ingested rows" (${reports[0]?.storage.realTables ?? ''}) is the per-image figure of a real collection.`);
  return L.join('\n') + '\n';
}

async function main(): Promise<void> {
  const keepAlive = setInterval(() => {}, 1 << 30);
  if (!(global as { gc?: unknown }).gc) throw new Error('Run with --expose-gc: the memory figures need a collection before and after each load.');
  const t0 = performance.now();
  const rnd = seededRandom(OPTS.seed);
  if (!OPTS.reuse) {
    const admin = new Client({ connectionString: `${OPTS.postgres}/postgres` });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${DATABASE}`);
    await admin.end();
  }
  const dataDir = OPTS.reuse ?? (OPTS.keep ? (await mkdir(OPTS.keep, { recursive: true }), OPTS.keep) : await mkdtemp(path.join(os.tmpdir(), 'loupe-bench-scale-')));
  const infra = await openInfrastructure(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: `${OPTS.postgres}/${DATABASE}`, NODE_ENV: 'test' }));
  const repository = new SynthesisingRepository(infra.db);
  const accountId = Number((await infra.accounts.ensure('bench')).id);
  const snapshotDir = path.join(dataDir, 'snapshots');
  const blobs = new SynthesisingBlobs(infra.blobs, repository);
  const b: Bench = { infra, repository, blobs, accountId, snapshotDir, services: services({ infra, repository, blobs, snapshotDir }, false) };

  const dataset = await loadDataset(log);
  const photos = shuffle(dataset.photos, rnd);
  const queriedCount = Math.round(photos.length / 3);
  const heldCount = Math.round(photos.length / 6);
  const queried = photos.slice(0, queriedCount);
  const heldOut = photos.slice(queriedCount, queriedCount + heldCount);
  const pool = photos.slice(queriedCount + heldCount);
  log(`photos: ${photos.length} (${queried.length} queried, ${pool.length} pool, ${heldOut.length} held out)`);

  const queries: Query[] = [];
  for (const [ei, edit] of EDITS.entries()) {
    const erand = seededRandom(1000 + ei);
    for (const p of shuffle(queried, erand).slice(0, OPTS.perEdit)) {
      queries.push({ edit, filepath: `queried/${p.id}.jpg`, data: (await edit.apply(await readFile(p.file), p.width, p.height, erand)).data });
    }
  }
  const fprQueries: Query[] = [];
  for (const p of heldOut.slice(0, OPTS.fpr)) {
    for (const name of FPR_EDITS) {
      const edit = EDITS.find((e) => e.name === name)!;
      fprQueries.push({ edit, filepath: '', heldOut: p.id, data: (await edit.apply(await readFile(p.file), p.width, p.height, seededRandom(fprQueries.length + 7))).data });
    }
  }
  log(`queries: ${queries.length} edits of queried photos, ${fprQueries.length} of held-out photos`);

  const reports: SizeReport[] = [];
  let real = 0;
  let ingestMs = 0;
  let variant = 0;
  const poolBytes = new Map<string, Buffer>();
  const add = async (items: Array<{ filepath: string; data: Buffer }>) => {
    const r = await ingest(b, items);
    real += r.added;
    ingestMs += r.ms;
  };
  let generated = 0;
  if (OPTS.reuse) ({ real, generated } = await reuseCollection(b));
  else {
    for (let i = 0; i < queried.length; i += BATCH) {
      await add(await Promise.all(queried.slice(i, i + BATCH).map(async (p) => ({ filepath: `queried/${p.id}.jpg`, data: await readFile(p.file) }))));
    }
  }
  const vocabulary = (await infra.db.query<{ vocabulary: string }>('SELECT vocabulary FROM image_words LIMIT 1')).rows[0].vocabulary;
  let realBytesPerImage = 0;
  let realTables = '';
  for (const size of OPTS.scales) {
    const target = Math.min(size, OPTS.real);
    const ingestStarted = { real, ms: ingestMs };
    if (OPTS.reuse && real < target) throw new Error(`--reuse: the kept collection has ${real} really ingested images, --scale asks for ${target}`);
    while (real < target) {
      const items = [];
      for (let k = 0; k < Math.min(BATCH, target - real); k++) {
        const photo = pool[variant % pool.length];
        if (!poolBytes.has(photo.id)) poolBytes.set(photo.id, await readFile(photo.file));
        items.push({ filepath: `pool/${photo.id}-${variant}.jpg`, data: await poolVariant(photo, poolBytes.get(photo.id)!, seededRandom(variant + 99)) });
        variant++;
      }
      await add(items);
      if (Math.floor(real / 500) !== Math.floor((real - items.length) / 500)) log(`  ingested ${real} (${(real / (ingestMs / 1000)).toFixed(1)} images/s)`);
    }
    const report: SizeReport = {
      size, real, hits: 0, queries: 0, strictHits: 0, strictQueries: 0, fpr: { queries: 0, positives: 0, answers: [] }, wrongFirst: 0, misses: [], searchMs: [], searchMsOf: { inCollection: [], outside: [] }, searchCpuMs: [], decodeMs: [], voteAndVerifyMs: [], stepped: [], foundBy: new Map(), voteMs: [], sharedVoteMs: [],
      loadFromDatabaseS: 0, startFromSnapshotS: 0, firstSearchS: 0, snapshotBytes: 0, memory: { typedAndHeapPerImage: 0, indexArraysPerImage: 0, rssPerImage: 0, rssAfterMB: 0 }, storage: { bytesPerImage: 0, realBytesPerImage: 0, tables: '', realTables: '' },
      distractorCopiesRead: 0,
    };
    if (real > ingestStarted.real) report.ingestRate = (real - ingestStarted.real) / ((ingestMs - ingestStarted.ms) / 1000);
    // Measured before generated rows join the real ones: a run of one size has no earlier stage to take it from.
    if (generated === 0) {
      const tables = await tableBytes(b);
      realBytesPerImage = sumOf(tables) / real;
      realTables = describeTables(tables);
    }
    if (size > real + generated) {
      if (b.repository.sources.length === 0) b.repository.sources = await loadSources(b);
      log(`size ${size}: generating ${(size - real - generated).toLocaleString('en')} distractors from ${b.repository.sources.length} ingested images`);
      report.generatedRate = await addGenerated(b, generated, size - real, vocabulary);
      generated = size - real;
    }
    const tables = await tableBytes(b);
    report.storage = { bytesPerImage: sumOf(tables) / size, realBytesPerImage, tables: describeTables(tables), realTables };
    b.blobs.forget();
    const composed = b.blobs.composed;
    log(`size ${size}: loading the index (${report.storage.tables})`);
    await measureLoads(b, queries[0].data, [...queries, ...fprQueries], report, !OPTS.reuse);
    log(`  load from rows ${report.loadFromDatabaseS.toFixed(1)} s, from snapshot ${report.startFromSnapshotS.toFixed(1)} s, first search ${report.firstSearchS.toFixed(1)} s (${(report.snapshotBytes / 1e6).toFixed(0)} MB), ${(report.memory.typedAndHeapPerImage / 1024).toFixed(2)} KiB/image (arrays ${(report.memory.indexArraysPerImage / 1024).toFixed(2)} KiB, RSS ${(report.memory.rssAfterMB / 1000).toFixed(2)} GB)`);
    await runQueries(b, queries, fprQueries, report);
    report.distractorCopiesRead = b.blobs.composed - composed;
    log(`  recall@1 ${fmtPct(report.hits, report.queries)}, wrong first ${report.wrongFirst}, FPR ${fmtPct(report.fpr.positives, report.fpr.queries)}, p50 ${Math.round(pct(report.searchMs, 50))} ms, p95 ${Math.round(pct(report.searchMs, 95))} ms (${stages(report)})`);
    log(`  ${describeSteps(report)}`);
    log(`  found by: ${describeFoundBy(report)}; distractor copies read by the second chances: ${report.distractorCopiesRead}`);
    log(`  misses: ${report.misses.map(describeMiss).join('; ') || 'none'}`);
    log(`  false positives: ${report.fpr.answers.join('; ') || 'none'}`);
    log(`  ${describeColourChecks(b.blobs.colourChecks)}`);
    reports.push(report);
  }
  const section = render(reports, {
    photos: photos.length, queried: queried.length, pool: pool.length, heldOut: heldOut.length, wallMinutes: (performance.now() - t0) / 60_000,
    command: `npx tsx --expose-gc tools/bench/scale/run.ts ${process.argv.slice(2).join(' ')}`,
  });
  console.log(section);
  if (OPTS.write) await writeBenchmarkSection('## Million-image collections', section);
  await b.services.close();
  await infra.close();
  if (!OPTS.keep && !OPTS.reuse) await rm(dataDir, { recursive: true, force: true });
  clearInterval(keepAlive);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
