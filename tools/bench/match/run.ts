/**
 * Matching-engine benchmark (issue 3): recall per query edit, false-positive rate, rectangle IoU, search / compare
 * latency, add throughput and index memory, on real photographs from Debian packages (setup.sh, dataset.ts) plus
 * generated distractors, in embedded mode (PGlite + folder blobs), through the job processors the workers run.
 * A 64-bit dHash baseline runs on the same collection and queries.
 *
 *   sh tools/bench/match/setup.sh                       # once: installs the picture packages
 *   npx tsx --expose-gc tools/bench/match/run.ts [flags]
 *
 * Flags (docs/benchmarks.md was made with --per-edit 12 --recheck 3 --fpr 40 --scale 1k,10k,100k: ~30 min on 2 cores):
 *   --photos N       use at most N distinct photos (default: all)
 *   --holdout F      share of photos held out of the collection for the false-positive rate (default 0.2)
 *   --per-edit N     queries per edit at the first scale (default 20)
 *   --recheck N      queries per edit re-checked at the larger scales (default 5)
 *   --fpr N          held-out photos used as non-collection queries, each with every FPR edit (default: all held out)
 *   --scale LIST     collection sizes, e.g. 1k,10k,100k (default); the first is ingested, the rest are added rows
 *   --seed N         seed of every random choice (default 1)
 *   --families N     images per hard-copy family (patterns, smooth, logos; families.ts) and split indexed (default 12)
 *   --family-per-edit N  queries per family, split and family edit at the first scale (default 12)
 *   --family-split S tune | holdout | all: which split's images are queried (default all; tune while tuning)
 *   --family-outside N   non-collection images per family and split, for the families' false-positive rate (default 4)
 *   --query-times F  write every search's time and first answer to F (JSON lines), for `paired-times.ts`
 *   --concurrency N  after each scale's searches, search them all again N at a time (the per-account limit is 4):
 *                    throughput, latency and CPU under load, and any first answer that differs from the one-at-a-time run
 *   --write          write the report into docs/benchmarks.md (section "## Matching engine")
 * Quick run (~3 min): --photos 80 --per-edit 4 --recheck 2 --fpr 12 --scale 300,2k
 */
import { createWorkerServices, JobKind, type WorkerServices, stagingKey, type ComparePayload, type IngestPayload, type SearchPayload, type SearchResult, type CompareResult, type IngestResult, type SearchTrace, type StepTimes, type TracedQuery } from '@loupe/jobs';
import { DENSE_CANDIDATES } from '@loupe/jobs/src/match/match.service';
import { loadConfig, openInfrastructure, type Infrastructure } from '@loupe/runtime';
import { decodeWords, encodeWords } from '@loupe/storage';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { sceneSvg } from '../../../apps/gateway/test/images';
import type { QueryTime } from './paired-times';
import { CACHE_DIR, dHash, hamming64, loadDataset, type Photo } from './dataset';
import { EDITS, FAMILY_EDITS, FAMILY_FPR_EDITS, FPR_EDITS, mulberry32, type Edit, type Rect } from './edits';
import { FAMILIES, familyImages, type FamilyImage, type Split } from './families';
import { flag, lastStep, machine, meanSteps, pct, shuffle, writeBenchmarkSection } from '../report';

// ---------- flags ----------
const parseSize = (s: string) => Math.round(Number(s.replace(/k$/i, '')) * (/k$/i.test(s) ? 1000 : 1));
const OPTS = {
  photos: flag('photos') ? Number(flag('photos')) : Infinity,
  holdout: Number(flag('holdout') ?? 0.2),
  perEdit: Number(flag('per-edit') ?? 20),
  recheck: Number(flag('recheck') ?? 5),
  fpr: flag('fpr') ? Number(flag('fpr')) : Infinity,
  scales: (flag('scale') ?? '1k,10k,100k').split(',').map(parseSize),
  seed: Number(flag('seed') ?? 1),
  write: process.argv.includes('--write'),
  families: Number(flag('families') ?? 12),
  familyPerEdit: Number(flag('family-per-edit') ?? 12),
  familySplits: (flag('family-split') ?? 'all') === 'all' ? (['tune', 'holdout'] as Split[]) : [flag('family-split') as Split],
  familyOutside: Number(flag('family-outside') ?? 4),
  queryTimes: flag('query-times'),
  concurrency: Number(flag('concurrency') ?? 0),
};
/** dHash baseline: a query matches its nearest collection hash when within this many bits (of 64). */
const DHASH_THRESHOLD = 10;
const SERVICE = 'match';
const PREFERRED_SIDE = 600; // the match service's preferred side (docs/protocol.md §9)
const SYNTHETIC_PREFIX = 'synthetic/';
/** Share of a distractor row's words replaced by words drawn from the collection's word-frequency distribution. */
const DISTRACTOR_RESAMPLE = 0.5;
const ROWS_PER_TX = 1000;

const log = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);
const gc = () => (global as { gc?: () => void }).gc?.();

// ---------- helpers ----------
const fmtPct = (num: number, den: number) => (den === 0 ? '–' : `${((100 * num) / den).toFixed(1)} %`);
const fmtMs = (v: number) => (Number.isFinite(v) ? `${Math.round(v)} ms` : '–');


function iou(a: Rect, b: Rect): number {
  const w = Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left));
  const h = Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const inter = w * h;
  const area = (r: Rect) => Math.max(0, r.right - r.left) * Math.max(0, r.bottom - r.top);
  const union = area(a) + area(b) - inter;
  return union > 0 ? inter / union : 0;
}

async function hashOf(data: Buffer): Promise<bigint> {
  return dHash(sharp(data).rotate().flatten({ background: '#808080' }));
}

// ---------- the system under test ----------
interface Bench {
  infra: Infrastructure;
  accountId: number;
  dataDir: string;
  processors: WorkerServices['processors'];
  /** What a worker process runs: processors plus the verification threads (VERIFY_THREADS, one per core by default). */
  services: WorkerServices;
}

const JOB = { kind: 'bench', group: 'bench:match', attempt: 1 };

/** Where a missed query's image stood among the candidates its search chose, and whether the pair alone matches. */
interface MissExplained {
  /** 0-based rank of the image in the vote of the query as it is, and of its upright copy; -1 outside it, absent without that vote. */
  voteRank?: number;
  uprightVoteRank?: number;
  /** Its 0-based rank in the colour shortlist of the query as it is and of its upright copy (-1 outside it), and whether it was placed. */
  colour: Partial<Record<TracedQuery, { rank: number; placed: boolean }>>;
  /** The score `compare` gives the query and its image alone; null when the pair does not match. */
  pairScore?: number | null;
}

/** The candidates the running search chose (`SearchTrace`), cleared before each search. */
class SearchRecord implements SearchTrace {
  private votes: Partial<Record<TracedQuery, readonly string[]>> = {};
  private colours: Partial<Record<TracedQuery, { shortlist: readonly string[]; placed: Set<string> }>> = {};

  clear(): void {
    this.votes = {};
    this.colours = {};
  }

  /** A widened vote (the query's own-scale words) replaces the first: it is what the later rounds verified. */
  voted(by: TracedQuery, filepaths: readonly string[]): void {
    this.votes[by] = filepaths;
  }

  /** A query placed twice (by colour shares, then beside its upright copy by sets) was placed in both lists' images. */
  alikeInColour(by: TracedQuery, shortlist: readonly string[], placed: readonly string[]): void {
    const seen = this.colours[by] ?? { shortlist, placed: new Set<string>() };
    for (const filepath of placed) seen.placed.add(filepath);
    this.colours[by] = seen;
  }

  explain(filepath: string): MissExplained {
    const colour: MissExplained['colour'] = {};
    for (const [by, seen] of Object.entries(this.colours) as Array<[TracedQuery, { shortlist: readonly string[]; placed: Set<string> }]>) {
      colour[by] = { rank: seen.shortlist.indexOf(filepath), placed: seen.placed.has(filepath) };
    }
    return { voteRank: this.votes.query?.indexOf(filepath), uprightVoteRank: this.votes.upright?.indexOf(filepath), colour };
  }
}
const searchRecord = new SearchRecord();

/** What a worker process runs, its searches recorded in `searchRecord`. */
const workerServices = (infra: Infrastructure) => createWorkerServices({ images: infra.images, blobs: infra.blobs, matchIndex: infra.matchIndex, db: infra.db, searchTrace: searchRecord });
/** Queries the service refused as too plain to search (counted as misses / negatives), one-at-a-time searches only (`recordSearch`). */
let refusals = 0;

async function stage(b: Bench, data: Buffer): Promise<string> {
  const key = stagingKey();
  await b.infra.blobs.put(key, data);
  return key;
}

async function search(b: Bench, data: Buffer, flip: boolean): Promise<{ result: SearchResult; ms: number; refused: boolean }> {
  const key = await stage(b, data);
  const payload: SearchPayload = {
    account_id: b.accountId,
    account: 'bench',
    service: SERVICE,
    query: { staged_key: key, label: 'query.jpg' },
    preferred_side: PREFERRED_SIDE,
    // The gateway's defaults: min_score 0, limit 10.
    options: { min_score: 0, check_horizontal_flip: flip, generate_overlay: false, offset: 0, limit: 10 },
  };
  const started = performance.now();
  searchRecord.clear();
  try {
    const result = (await b.processors[JobKind.Search](payload, JOB)) as SearchResult;
    return { result, ms: performance.now() - started, refused: false };
  } catch (error) {
    // A refused query (too plain after the edit: fewer than 12 ORB points, and no whole copy found) is a miss, as the
    // caller gets no result.
    if ((error as { code?: string }).code !== 'INPUT_REFUSED') throw error;
    const ms = performance.now() - started;
    return { result: { query_filepath: 'query.jpg', items: [], total_results: 0, total_filtered_results: 0, time_resize: 0, time_search: 0 }, ms, refused: true };
  }
}

async function compare(b: Bench, first: Buffer, second: Buffer): Promise<{ result: CompareResult; ms: number }> {
  const [k1, k2] = [await stage(b, first), await stage(b, second)];
  const payload: ComparePayload = {
    account_id: b.accountId,
    account: 'bench',
    service: SERVICE,
    first: { staged_key: k1, label: 'first.jpg' },
    second: { staged_key: k2, label: 'second.jpg' },
    preferred_side: PREFERRED_SIDE,
    options: { min_score: 0, check_horizontal_flip: false, generate_overlay: false, compute_enhanced_score: false, compare_color: false },
  };
  const started = performance.now();
  const result = (await b.processors[JobKind.Compare](payload, JOB)) as CompareResult;
  return { result, ms: performance.now() - started };
}

/** What `compare` answers for a query and its image alone: the score, or null when the pair does not match (or is refused as too plain). */
async function pairScore(b: Bench, query: Buffer, image: Buffer): Promise<number | null> {
  try {
    return (await compare(b, query, image)).result.items[0]?.score ?? null;
  } catch (error) {
    if ((error as { code?: string }).code !== 'INPUT_REFUSED') throw error;
    return null;
  }
}

async function ingest(b: Bench, items: Array<{ filepath: string; data: Buffer }>): Promise<{ added: number; ms: number; errors: string[] }> {
  const staged = [];
  for (const it of items) staged.push({ filepath: it.filepath, image_id: null, staged_key: await stage(b, it.data) });
  const payload: IngestPayload = {
    account_id: b.accountId,
    account: 'bench',
    service: SERVICE,
    items: staged,
    on_existing: 'replace',
    preferred_side: PREFERRED_SIDE,
    crop_borders: true,
  };
  const started = performance.now();
  const result = (await b.processors[JobKind.Ingest](payload, JOB)) as IngestResult;
  return { added: result.added.length, ms: performance.now() - started, errors: result.errors };
}

// ---------- queries ----------
interface Query {
  edit: Edit;
  photo: Photo;
  filepath: string;
  data: Buffer;
  truth?: Rect;
  /** Hard-copy family queries: the split their image belongs to. */
  split?: Split;
}

/**
 * Every result of every query with whether it is the right image and the step of the search that found it (`foundBy`),
 * for the score distributions of true and false fits.
 */
const scoreLog: Array<{ size: number; kind: 'collection' | 'outside'; family: string; split?: string; edit: string; rank: number; score: number; right: boolean; step: string }> = [];

/**
 * Every search's time and first answer, by query (`--query-times`): two runs of the same command searched the same
 * queries, so `paired-times.ts` compares them query by query and names the searches whose answer changed.
 */
const queryTimes: QueryTime[] = [];

/** A one-at-a-time search of `q`: its time and first answer (`queryTimes`, `ScaleReport.searched`), and its refusal. */
function recordSearch(report: ScaleReport, kind: QueryTime['kind'], q: Query, { result, ms, refused }: Awaited<ReturnType<typeof search>>) {
  if (refused) refusals++;
  const first = result.items[0]?.filepath ?? null;
  queryTimes.push({ size: report.size, kind, family: q.photo.family, source: q.photo.source, edit: q.edit.name, ms: Math.round(ms * 10) / 10, first, steps: result.steps });
  report.searched.push({ query: q, first });
}

interface Outcome {
  rank: number; // 1-based rank of the right image, 0 when absent from the (10) results
  top: string | null;
  topScore: number;
  iou?: number;
  ms: number;
  baseline: boolean;
  family: string;
  split?: Split;
  /** A different image came first. */
  wrongFirst: boolean;
  /** For a hit, the step of the search that found it (`foundBy`). */
  foundBy?: string;
}

interface ScaleReport {
  size: number;
  realImages: number;
  how: string;
  searchMs: number[];
  /** Latency of the non-collection (FPR) queries alone: they verify every round and take the dense second chance. */
  missMs: number[];
  /** Latency of the edited collection photos' queries alone. */
  hitMs: number[];
  /** Per search: seconds the service reports for decode/resize and for vote + verification. */
  parts: Array<{ resize: number; search: number }>;
  cacheBuildMs: number;
  memoryPerImage: { heap: number; total: number };
  outcomes: Map<string, Outcome[]>;
  fpr: { queries: number; positives: number; examples: string[] };
  /** Non-collection images of the hard-copy families (families.ts). */
  familyFpr: { queries: number; positives: number; examples: string[] };
  /** Edited hard-copy family images: outcomes per family, split and edit. */
  familyOutcomes: Array<Outcome & { edit: string }>;
  insertRowsPerSec?: number;
  /** Per step of the search (`SearchResult.steps`): the hits it found (the last step their search reached), photos and family images apart. */
  foundBy: Map<string, { photos: number; families: number }>;
  /** The steps of every query outside the collection (photos and families), for their mean time per step. */
  outsideSteps: StepTimes[];
  /** Every edited hard-copy query that missed, with where its image stood (`SearchRecord`). */
  familyMisses: Array<{ query: Query; explained: MissExplained }>;
  /** Every query searched at this scale, in order, with its first answer: searched again under load (`--concurrency`). */
  searched: Array<{ query: Query; first: string | null }>;
}

/** The step of a search that found what it answered (`lastStep`); 'refused' for a query refused as too plain. */
const foundBy = (result: SearchResult) => lastStep(result.steps) ?? 'refused';

const pathOf = (p: Photo) => `photos/${p.family}/${p.id}.jpg`;

/** The mean time (ms) per step over `all` searches, in the order the steps come. */
const describeMeanSteps = (all: StepTimes[]) => meanSteps(all).map(([step, ms]) => `${step} ${ms}`).join(' + ');

async function runQueries(b: Bench, queries: Query[], baseline: Array<{ filepath: string; hash: bigint }> | null, report: ScaleReport, failures: unknown[], families = false): Promise<void> {
  for (const q of queries) {
    const answer = await search(b, q.data, q.edit.flip === true);
    const { result, ms } = answer;
    const step = foundBy(result);
    recordSearch(report, 'collection', q, answer);
    report.searchMs.push(ms);
    report.hitMs.push(ms);
    report.parts.push({ resize: result.time_resize, search: result.time_search });
    const rank = result.items.findIndex((i) => i.filepath === q.filepath) + 1;
    const hit = rank > 0 ? result.items[rank - 1] : undefined;
    let baseHit = false;
    if (baseline) {
      const hashes = [await hashOf(q.data)];
      if (q.edit.flip) hashes.push(await hashOf(await sharp(q.data).flop().toBuffer()));
      let best = { d: 65, filepath: '' };
      for (const c of baseline) for (const h of hashes) {
        const d = hamming64(h, c.hash);
        if (d < best.d) best = { d, filepath: c.filepath };
      }
      baseHit = best.d <= DHASH_THRESHOLD && best.filepath === q.filepath;
    }
    const outcome: Outcome = {
      rank,
      top: result.items[0]?.filepath ?? null,
      topScore: result.items[0]?.score ?? 0,
      iou: q.truth && hit ? iou(hit.target_match_rect, q.truth) : q.truth ? 0 : undefined,
      ms,
      baseline: baseHit,
      family: q.photo.family,
      split: q.split,
      wrongFirst: result.items.length > 0 && rank !== 1,
      foundBy: rank === 1 ? step : undefined,
    };
    result.items.forEach((item, i) =>
      scoreLog.push({ size: report.size, kind: 'collection', family: q.photo.family, split: q.split, edit: q.edit.name, rank: i + 1, score: item.score, right: item.filepath === q.filepath, step }),
    );
    if (rank === 1) {
      const counts = report.foundBy.get(step) ?? { photos: 0, families: 0 };
      counts[families ? 'families' : 'photos']++;
      report.foundBy.set(step, counts);
    }
    if (rank !== 1) {
      const explained = searchRecord.explain(q.filepath);
      // By reference: a family miss's pair score is added after its search (`pairScore`), before failures.json is written.
      failures.push({ size: report.size, edit: q.edit.name, photo: q.photo.source, family: q.photo.family, split: q.split, rank, top: outcome.top, topScore: outcome.topScore, results: result.items.length, where: explained });
      if (families) report.familyMisses.push({ query: q, explained });
    }
    if (families) {
      report.familyOutcomes.push(Object.assign(outcome, { edit: q.edit.name }));
      continue;
    }
    const list = report.outcomes.get(q.edit.name) ?? [];
    list.push(outcome);
    report.outcomes.set(q.edit.name, list);
  }
}

async function runFpr(b: Bench, queries: Query[], baseline: Array<{ filepath: string; hash: bigint }> | null, report: ScaleReport, baseFpr?: { positives: number }, families = false): Promise<void> {
  const fpr = families ? report.familyFpr : report.fpr;
  for (const q of queries) {
    const answer = await search(b, q.data, false);
    const { result, ms } = answer;
    recordSearch(report, 'outside', q, answer);
    report.searchMs.push(ms);
    report.missMs.push(ms);
    report.parts.push({ resize: result.time_resize, search: result.time_search });
    report.outsideSteps.push(result.steps ?? {});
    fpr.queries++;
    result.items.forEach((item, i) => scoreLog.push({ size: report.size, kind: 'outside', family: q.photo.family, split: q.split, edit: q.edit.name, rank: i + 1, score: item.score, right: false, step: foundBy(result) }));
    if (result.items.length > 0) {
      fpr.positives++;
      if (fpr.examples.length < 5) fpr.examples.push(`${q.edit.name} of ${path.basename(q.photo.source)} → ${result.items[0].filepath} (score ${result.items[0].score})`);
    }
    if (baseline && baseFpr) {
      const h = await hashOf(q.data);
      if (baseline.some((c) => hamming64(h, c.hash) <= DHASH_THRESHOLD)) baseFpr.positives++;
    }
  }
}

/** The process's CPU (every thread's, ms) since `since`, per one of `searches` searches. */
function cpuMsPerSearch(since: NodeJS.CpuUsage, searches: number): number {
  const cpu = process.cpuUsage(since);
  return Math.round((cpu.user + cpu.system) / 1000 / searches);
}

/**
 * `--concurrency N`: the scale's searches again, N in flight at once and started in the order they were searched, as
 * a worker runs an account's queued searches under its limit. The process's CPU threads (the compute pool, the vote
 * thread) are shared, so this is what a busy account sees: searches per second, each search's time from its start
 * (waits for a pool thread included), the CPU per search, and the searches whose first answer is not the one-at-a-time
 * run's (concurrent searches share caches and threads, never answers).
 */
async function searchUnderLoad(b: Bench, report: ScaleReport, concurrency: number): Promise<void> {
  const { searched } = report;
  const times: number[] = [];
  const changed: string[] = [];
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const inFlight = async () => {
    while (next < searched.length) {
      const { query, first } = searched[next++];
      const { result, ms } = await search(b, query.data, query.edit.flip === true);
      times.push(ms);
      const now = result.items[0]?.filepath ?? null;
      if (now !== first) changed.push(`${query.edit.name} of ${query.photo.source}: ${first ?? 'nothing'} one at a time, ${now ?? 'nothing'} under load`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, inFlight));
  const wallSeconds = (performance.now() - started) / 1000;
  const cpuPerSearch = cpuMsPerSearch(cpuBefore, searched.length);
  const oneAtATimeSeconds = report.searchMs.reduce((sum, ms) => sum + ms, 0) / 1000;
  log(
    `  under load (${concurrency} in flight): ${(searched.length / wallSeconds).toFixed(2)} searches/s over ${searched.length} (one at a time: ${(searched.length / oneAtATimeSeconds).toFixed(2)}), ` +
      `search p50 ${Math.round(pct(times, 50))} ms, p95 ${Math.round(pct(times, 95))} ms, process CPU ${cpuPerSearch} ms per search; ` +
      `first answers changed: ${changed.length}`,
  );
  for (const line of changed) log(`    ${line}`);
}

// ---------- scales ----------
/** Builds a fresh processor set (fresh index cache), loads the index with one search and measures the memory it took. */
async function freshCache(b: Bench, warm: Buffer, report: ScaleReport): Promise<void> {
  await b.services.close();
  b.services = workerServices(b.infra);
  b.processors = b.services.processors;
  gc();
  gc();
  const before = process.memoryUsage();
  const { ms } = await search(b, warm, false);
  report.cacheBuildMs = ms;
  gc();
  gc();
  const after = process.memoryUsage();
  report.memoryPerImage = {
    heap: (after.heapUsed - before.heapUsed) / report.size,
    total: (after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / report.size,
  };
}

/**
 * Adds `count` distractor rows straight into images, image_features and image_words with set-based SQL (ROWS_PER_TX
 * rows per statement): each row's features are copied (server side) from one ingested synthetic scene, so verifying
 * it costs what a real candidate costs; its words are that scene's words with DISTRACTOR_RESAMPLE of them replaced by
 * words drawn from the word-frequency distribution of the whole ingested collection. The images trigger writes the
 * index log as for any add.
 */
async function addDistractorRows(b: Bench, count: number, startAt: number, rnd: () => number): Promise<number> {
  const { rows: pool } = await b.infra.db.query<{ id: number; filepath: string; vocabulary: string; words: Buffer }>(
    `SELECT i.id, i.filepath, w.vocabulary, w.words
       FROM images i JOIN image_words w ON w.image_pk = i.id
      WHERE i.account_id = $1 AND i.service = $2 AND i.ingest_token IS NOT NULL ORDER BY i.id`,
    [b.accountId, SERVICE],
  );
  const all: number[] = [];
  for (const r of pool) for (const w of decodeWords(r.words)) all.push(w);
  const bases = pool.filter((r) => r.filepath.startsWith(SYNTHETIC_PREFIX));
  const started = performance.now();
  for (let done = 0; done < count; ) {
    const n = Math.min(ROWS_PER_TX, count - done);
    const numbers = Array.from({ length: n }, (_, k) => startAt + done + k);
    const chosen = numbers.map((i) => bases[i % bases.length]);
    const hex = chosen.map((base) => {
      const words = decodeWords(base.words).map((w) => (rnd() < DISTRACTOR_RESAMPLE ? all[Math.floor(rnd() * all.length)] : w));
      return encodeWords(words).toString('hex');
    });
    await b.infra.images.transaction(async (tx) => {
      const { rows: inserted } = await tx.query<{ id: number; n: number }>(
        `INSERT INTO images (account_id, service, filepath, image_id, format, width, height, norm_width, norm_height,
                             blob_key, norm_blob_key, fingerprint_health, searchable, unsearchable_reason, metadata, ingest_token)
         SELECT $1, $2, 'distractors/' || g || '.jpg', NULL, 'jpeg', 800, 600, 800, 600, '', '', 1, true, NULL, '{}'::jsonb, NULL
           FROM unnest($3::int[]) AS g
         RETURNING id, substring(filepath from 13 for length(filepath) - 16)::int AS n`,
        [b.accountId, SERVICE, numbers],
      );
      const pkOf = new Map(inserted.map((r) => [Number(r.n), Number(r.id)]));
      const pks = numbers.map((i) => pkOf.get(i)!);
      await tx.query(
        `INSERT INTO image_features (image_pk, feature_count, features)
         SELECT x.pk, f.feature_count, f.features FROM unnest($1::bigint[], $2::bigint[]) AS x(pk, base)
           JOIN image_features f ON f.image_pk = x.base`,
        [pks, chosen.map((c) => c.id)],
      );
      await tx.query(
        `INSERT INTO image_words (image_pk, vocabulary, words)
         SELECT x.pk, $3, decode(x.hex, 'hex') FROM unnest($1::bigint[], $2::text[]) AS x(pk, hex)`,
        [pks, hex, chosen[0].vocabulary],
      );
    });
    done += n;
    if (done % 10000 === 0 || done === count) log(`  distractor rows ${done}/${count} (${Math.round(done / ((performance.now() - started) / 1000))} rows/s)`);
  }
  return count / ((performance.now() - started) / 1000);
}

// ---------- report ----------
function renderReport(ctx: {
  command: string; photos: number; wallpapers: number; astronomy: number; collectionPhotos: number; heldOut: number; dropped: string; familyIndexed: number; familyOutside: number;
  scales: ScaleReport[]; baseFpr: { queries: number; positives: number }; addRate: number; addDetail: string; compareMs: number[]; compareHits: number;
  wallSeconds: number; perEdit: number; recheck: number;
}): string {
  const [first, ...larger] = ctx.scales;
  const L: string[] = [];
  L.push('## Matching engine', '');
  L.push(`Run: \`${ctx.command}\` — ${machine()}, embedded mode (PGlite + folder blobs), processors from createWorkerServices with VERIFY_THREADS=${process.env.VERIFY_THREADS ?? `default (${Math.min(4, os.availableParallelism())})`}, ${(ctx.wallSeconds / 60).toFixed(1)} min wall.`, '');
  L.push(`Photos: ${ctx.photos} distinct pictures from Debian packages (tools/bench/match/setup.sh): ${ctx.wallpapers} desktop wallpapers, ${ctx.astronomy} astronomy images (Stellarium nebulae, xplanet maps); ${ctx.dropped}. ${ctx.collectionPhotos} are indexed, ${ctx.heldOut} held out as non-collection queries. The ${first.size.toLocaleString('en')}-image collection adds ${ctx.familyIndexed} hard-copy family images (families.ts) and ${first.size - ctx.collectionPhotos - ctx.familyIndexed} synthetic scenes (sceneSvg), all through the ingest processor.`, '');
  L.push(`Queries: ${ctx.perEdit} per edit at ${first.size.toLocaleString('en')} (photos sampled per edit), searched through the search processor with the gateway defaults (min_score 0, limit 10); recall@k = the edited photo's own image within the first k results. Baseline: 64-bit dHash of the whole image, nearest collection hash within ${DHASH_THRESHOLD} bits (flip edit: query and its mirror).`, '');
  const header = ['Edit', 'n', 'recall@1', 'recall@10', 'dHash r@1', ...larger.map((s) => `r@1 @${s.size / 1000}k (n)`), 'IoU median'];
  L.push(`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`);
  const sum = { all: [0, 0, 0, 0], strict: [0, 0, 0, 0] };
  const largeSums = larger.map(() => [0, 0]);
  for (const edit of EDITS) {
    const o = first.outcomes.get(edit.name) ?? [];
    const r1 = o.filter((x) => x.rank === 1).length;
    const r10 = o.filter((x) => x.rank >= 1).length;
    const base = o.filter((x) => x.baseline).length;
    for (const k of edit.strict ? (['all', 'strict'] as const) : (['all'] as const)) {
      sum[k][0] += r1; sum[k][1] += r10; sum[k][2] += base; sum[k][3] += o.length;
    }
    const ious = o.filter((x) => x.iou !== undefined).map((x) => x.iou!);
    const cells = larger.map((s, i) => {
      const lo = s.outcomes.get(edit.name) ?? [];
      const hits = lo.filter((x) => x.rank === 1).length;
      largeSums[i][0] += hits; largeSums[i][1] += lo.length;
      return `${fmtPct(hits, lo.length)} (${lo.length})`;
    });
    L.push(`| ${edit.name}${edit.strict ? ' ★' : ''} | ${o.length} | ${fmtPct(r1, o.length)} | ${fmtPct(r10, o.length)} | ${fmtPct(base, o.length)} | ${cells.join(' | ')}${cells.length ? ' | ' : ''}${ious.length ? pct(ious, 50).toFixed(2) : ''} |`);
  }
  L.push(`| **all edits** | ${sum.all[3]} | **${fmtPct(sum.all[0], sum.all[3])}** | ${fmtPct(sum.all[1], sum.all[3])} | ${fmtPct(sum.all[2], sum.all[3])} | ${largeSums.map(([h, n]) => `${fmtPct(h, n)} (${n})`).join(' | ')}${larger.length ? ' | ' : ''} |`);
  L.push(`| **★ crops ≥ 50 %, scaling, JPEG, flip, ±15°** | ${sum.strict[3]} | **${fmtPct(sum.strict[0], sum.strict[3])}** | ${fmtPct(sum.strict[1], sum.strict[3])} | ${fmtPct(sum.strict[2], sum.strict[3])} | ${larger.map(() => '').join(' | ')}${larger.length ? ' | ' : ''} |`, '');
  const fam = (f: string) => {
    let h = 0, n = 0;
    for (const o of first.outcomes.values()) for (const x of o) if ((x as Outcome & { family?: string }).family === f) { n++; if (x.rank === 1) h++; }
    return fmtPct(h, n);
  };
  L.push(`Queries refused as too plain (under 12 ORB points after the edit and not found as a whole copy; counted as misses, or as negatives in the FPR): ${refusals}.`, '');
  L.push(`Recall@1 by picture family at ${first.size.toLocaleString('en')}: wallpapers ${fam('wallpaper')}, astronomy ${fam('astronomy')}. IoU: target_match_rect of the right result against the known crop box (crop and combo rows; a miss counts 0).`, '');
  L.push(`False positives (held-out photos, edits: ${FPR_EDITS.join(', ')}; any result at min_score 0 counts): engine ${ctx.scales.map((s) => `${fmtPct(s.fpr.positives, s.fpr.queries)} of ${s.fpr.queries} at ${s.size.toLocaleString('en')}`).join(', ')}; dHash ${fmtPct(ctx.baseFpr.positives, ctx.baseFpr.queries)} at ${first.size.toLocaleString('en')}.`);
  const ex = ctx.scales.flatMap((s) => s.fpr.examples.map((e) => `${s.size}: ${e}`));
  if (ex.length) L.push(`Examples: ${ex.slice(0, 4).join('; ')}.`);
  L.push('');
  L.push('| Indexed images | real photos indexed | search p50 | search p95 | p50 / p95, image in the collection | p50 / p95, not in the collection | searches | index load | index memory / image (heap; heap+typed arrays) | how the collection was built |', '|---|---|---|---|---|---|---|---|---|---|');
  for (const s of ctx.scales) {
    L.push(`| ${s.size.toLocaleString('en')} | ${s.realImages} | ${fmtMs(pct(s.searchMs, 50))} | ${fmtMs(pct(s.searchMs, 95))} | ${fmtMs(pct(s.hitMs, 50))} / ${fmtMs(pct(s.hitMs, 95))} | ${fmtMs(pct(s.missMs, 50))} / ${fmtMs(pct(s.missMs, 95))} | ${s.searchMs.length} | ${(s.cacheBuildMs / 1000).toFixed(1)} s | ${(s.memoryPerImage.heap / 1024).toFixed(1)} kB; ${(s.memoryPerImage.total / 1024).toFixed(1)} kB | ${s.how} |`);
  }
  L.push('');
  L.push(`Where search time goes (medians; time_resize / time_search as the service reports them, the rest is the query's ORB extraction and job overhead): ${ctx.scales.map((s) => { const r = pct(s.parts.map((p) => p.resize * 1000), 50); const v = pct(s.parts.map((p) => p.search * 1000), 50); return `${s.size.toLocaleString('en')}: decode/resize ${Math.round(r)} ms, vote + verify ${Math.round(v)} ms, total ${Math.round(pct(s.searchMs, 50))} ms`; }).join('; ')}.`, '');
  L.push(`Which step of the search found the right image first (the last step its search reached; photos + family images): ${ctx.scales.map((s) => `${s.size.toLocaleString('en')}: ${[...s.foundBy].map(([step, n]) => `${step} ${n.photos} + ${n.families}`).join(', ')}`).join('; ')}.`, '');
  L.push(`Queries outside the collection (photos and families), mean ms per step (0 for a step not reached; the upright copy's steps ran beside the dense, whole-image and placement steps, and overlap them): ${ctx.scales.map((s) => `${s.size.toLocaleString('en')}: ${describeMeanSteps(s.outsideSteps)}`).join('; ')}.`, '');
  L.push(`Search latency is the search processor call (decode + normalise + ORB of the query, word voting, verification of the shortlist), measured after the index is loaded; "index load" is the first search of a fresh processor set, which reads all word lists from PGlite. Compare (edited 50 % crop vs its original, both uploads): p50 ${fmtMs(pct(ctx.compareMs, 50))}, p95 ${fmtMs(pct(ctx.compareMs, 95))} over ${ctx.compareMs.length} pairs (${ctx.compareHits} matched). Add throughput through the ingest processor (batches of 10, ≤1600 px JPEGs): ${ctx.addRate.toFixed(1)} images/s (${ctx.addDetail}).`, '');
  L.push(...renderFamilies(ctx.scales, ctx.familyIndexed, ctx.familyOutside));
  const allR1 = sum.all[0] / Math.max(1, sum.all[3]);
  const strictR1 = sum.strict[0] / Math.max(1, sum.strict[3]);
  const fprMax = Math.max(...ctx.scales.map((s) => s.fpr.positives / Math.max(1, s.fpr.queries)));
  const at10k = ctx.scales.find((s) => s.size === 10000);
  const p95at10k = at10k ? pct(at10k.searchMs, 95) : NaN;
  L.push('Targets (2 cores, embedded):', '');
  L.push(`- recall@1 ≥ 95 % over all edits: ${(100 * allR1).toFixed(1)} % — ${target(allR1 >= 0.95)}${allR1 < 0.95 ? ` by ${(95 - 100 * allR1).toFixed(1)} points` : ''}`);
  L.push(`- recall@1 ≥ 99 % on ★ edits: ${(100 * strictR1).toFixed(1)} % — ${target(strictR1 >= 0.99)}${strictR1 < 0.99 ? ` by ${(99 - 100 * strictR1).toFixed(1)} points` : ''}`);
  L.push(`- FPR ≤ 1 %: worst ${(100 * fprMax).toFixed(1)} % — ${target(fprMax <= 0.01)}`);
  L.push(`- search p95 ≤ 250 ms at 10k: ${at10k ? `${Math.round(p95at10k)} ms — ${target(p95at10k <= 250)}` : 'not measured in this run'}`);
  L.push(`- 100k measured: ${ctx.scales.some((s) => s.size === 100000) ? 'yes' : 'not in this run'}`);
  L.push(...familyTargets(ctx.scales).map((line) => `- ${line}`));
  return L.join('\n') + '\n';
}

/** How a report marks a target. */
const target = (ok: boolean) => (ok ? 'met' : '**missed**');

/** The families' edit that issue 15 holds to a lower bar (90 %) than their other edits (98 %). */
const QUARTER_CROP = 'crop 25 %';

/**
 * Issue 15's targets for the hard-copy families, as measured at the first scale (both splits together): the quarter
 * crop ≥ 90 % and every other edit ≥ 98 % in every family, all edits ≥ 98.5 %; no false positive and no wrong image
 * first at any scale. A missed cell is named with its count, so that a run says which family and edit hold a target up.
 */
function familyTargets(scales: ScaleReport[]): string[] {
  const outcomes = scales[0].familyOutcomes;
  if (outcomes.length === 0) return [];
  const hits = (xs: Outcome[]) => xs.filter((x) => x.rank === 1).length;
  const cells = FAMILIES.flatMap((family) =>
    FAMILY_EDITS.map((edit) => {
      const xs = outcomes.filter((x) => x.family === family && x.edit === edit.name);
      return { family, edit: edit.name, hits: hits(xs), n: xs.length, bar: edit.name === QUARTER_CROP ? 0.9 : 0.98 };
    }).filter((c) => c.n > 0),
  );
  const below = (quarter: boolean) => cells.filter((c) => (c.edit === QUARTER_CROP) === quarter && c.hits < c.bar * c.n);
  const named = (cs: typeof cells) => cs.map((c) => `${c.family} / ${c.edit} ${fmtPct(c.hits, c.n)} (${c.n - c.hits} of ${c.n} missed)`).join('; ');
  const worst = (quarter: boolean) => {
    const cs = cells.filter((c) => (c.edit === QUARTER_CROP) === quarter);
    return cs.length === 0 ? '–' : `${(100 * Math.min(...cs.map((c) => c.hits / c.n))).toFixed(1)} %`;
  };
  const all = hits(outcomes) / outcomes.length;
  const falsePositives = scales.reduce((n, s) => n + s.familyFpr.positives, 0);
  const wrongFirst = scales.reduce((n, s) => n + s.familyOutcomes.filter((x) => x.wrongFirst).length, 0);
  const line = (what: string, worstValue: string, missed: typeof cells) => `families, ${what}: worst cell ${worstValue} — ${target(missed.length === 0)}${missed.length ? `: ${named(missed)}` : ''}`;
  return [
    line(`${QUARTER_CROP} ≥ 90 % in every family`, worst(true), below(true)),
    line('every other edit ≥ 98 % in every family', worst(false), below(false)),
    `families, all edits ≥ 98.5 %: ${(100 * all).toFixed(1)} % — ${target(all >= 0.985)}`,
    `families, false positives 0: ${falsePositives} over ${scales.length} scale${scales.length > 1 ? 's' : ''} — ${target(falsePositives === 0)}`,
    `families, wrong image first 0: ${wrongFirst} — ${target(wrongFirst === 0)}`,
  ];
}

/** The hard-copy families' section: recall@1 per family, split and edit, wrong-first answers and false positives. */
function renderFamilies(scales: ScaleReport[], indexed: number, outside: number): string[] {
  const [first, ...larger] = scales;
  const L: string[] = [];
  const o = first.familyOutcomes;
  if (o.length === 0) return L;
  L.push(`### Hard copies: patterns, smooth artwork, logos (issue 15)`, '');
  L.push(`Images generated by tools/bench/match/families.ts (SVG rendered by sharp, one image per generator and seed), ${indexed} indexed (per family and split ${indexed / 6}), ${outside} more kept out of the collection for the false-positive rate. Tuning split: seeds and generators used while tuning; held-out split: other seeds, and every third image from a generator never used while tuning (herringbone, aurora, emblem). Cells: recall@1 (n) at ${first.size.toLocaleString('en')}.`, '');
  const splits = [...new Set(o.map((x) => x.split!))];
  const cols = FAMILIES.flatMap((f) => splits.map((s) => ({ f, s })));
  const header = ['Edit', ...cols.map(({ f, s }) => `${f} ${s === 'tune' ? 'tuning' : 'held out'}`), 'all'];
  L.push(`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`);
  const cell = (xs: Outcome[]) => `${fmtPct(xs.filter((x) => x.rank === 1).length, xs.length)} (${xs.length})`;
  for (const edit of FAMILY_EDITS) {
    const row = o.filter((x) => x.edit === edit.name);
    L.push(`| ${edit.name} | ${cols.map(({ f, s }) => cell(row.filter((x) => x.family === f && x.split === s))).join(' | ')} | ${cell(row)} |`);
  }
  L.push(`| **all edits** | ${cols.map(({ f, s }) => cell(o.filter((x) => x.family === f && x.split === s))).join(' | ')} | **${cell(o)}** |`, '');
  const photoOutcomes = [...first.outcomes.values()].flat();
  const wrong = (xs: Outcome[]) => xs.filter((x) => x.wrongFirst);
  const wrongAll = scales.flatMap((s) => [...wrong(s.familyOutcomes), ...wrong([...s.outcomes.values()].flat())].map((x) => `${x.family}${x.split ? ` (${x.split})` : ''} → ${x.top} at ${x.topScore} (${s.size})`));
  L.push(`Wrong image first (a different image ranked above the right one, or returned when the right one was not): ${wrongAll.length} of ${scales.reduce((n, s) => n + s.familyOutcomes.length + [...s.outcomes.values()].flat().length, 0)} edited queries over all scales (families ${wrong(o).length} of ${o.length} at ${first.size.toLocaleString('en')}, photos ${wrong(photoOutcomes).length} of ${photoOutcomes.length})${wrongAll.length ? `: ${wrongAll.slice(0, 6).join('; ')}` : ''}.`, '');
  L.push(`False positives of the families' non-collection images (edits: ${FAMILY_FPR_EDITS.join(', ')}): ${scales.map((s) => `${fmtPct(s.familyFpr.positives, s.familyFpr.queries)} of ${s.familyFpr.queries} at ${s.size.toLocaleString('en')}`).join(', ')}${scales.some((s) => s.familyFpr.examples.length) ? `; ${scales.flatMap((s) => s.familyFpr.examples).slice(0, 4).join('; ')}` : ''}.`, '');
  L.push(...renderFamilyMisses(first));
  if (larger.length) L.push(`Families at larger scales (recall@1, queries re-checked per family, split and edit): ${larger.map((s) => `${s.size.toLocaleString('en')}: ${cell(s.familyOutcomes)}`).join(', ')}.`, '');
  return L;
}

/**
 * The families' misses at the first scale, each with where its image stood among the candidates the search chose, and
 * whether `compare` matches the query and its image alone: a miss whose image got no pixel chance (outside the
 * best-voted DENSE_CANDIDATES and not placed by colour) is the candidates' choice; one that got a chance which the pair
 * alone passes is lost in the search's way of giving it.
 */
function renderFamilyMisses(first: ScaleReport): string[] {
  const misses = first.familyMisses;
  if (misses.length === 0) return [];
  const rank = (r: number | undefined) => (r === undefined ? '–' : r < 0 ? 'out' : String(r + 1));
  const placedAt = (c: { rank: number; placed: boolean } | undefined) => (c ? `${rank(c.rank)}${c.placed ? ' (placed)' : ''}` : '–');
  const votedAmongDense = (e: MissExplained) => e.voteRank !== undefined && e.voteRank >= 0 && e.voteRank < DENSE_CANDIDATES;
  const givenAChance = ({ explained: e }: (typeof misses)[number]) => votedAmongDense(e) || Object.values(e.colour).some((c) => c.placed);
  const given = misses.filter(givenAChance);
  const pairMatches = (xs: typeof misses) => xs.filter(({ explained }) => explained.pairScore != null).length;
  const L = [
    `Family misses at ${first.size.toLocaleString('en')}, and where their image stood (ranks from 1; "out": not among the candidates; "placed": placed by its pixels; the pair alone: \`compare\` of the query and its image): ${misses.length} misses; ${given.length} got a pixel chance at their image (among the best-voted ${DENSE_CANDIDATES} or placed), of which the pair alone matches ${pairMatches(given)}; ${misses.length - given.length} got none, of which the pair alone matches ${pairMatches(misses.filter((m) => !givenAChance(m)))}.`,
    '',
    '| image | edit | vote rank, as it is / upright | colour shortlist rank, as it is | upright | the pair alone |',
    '|---|---|---|---|---|---|',
  ];
  for (const { query, explained: e } of misses) {
    L.push(`| ${path.basename(query.filepath)} | ${query.edit.name} | ${rank(e.voteRank)} / ${rank(e.uprightVoteRank)} | ${placedAt(e.colour.query)} | ${placedAt(e.colour.upright)} | ${e.pairScore ?? 'no match'} |`);
  }
  L.push('');
  return L;
}

// ---------- main ----------
async function main(): Promise<void> {
  // The verification threads are unref'd (they must not keep a server alive): while a search waits on them, nothing
  // else would keep this script's event loop alive, and Node would exit mid-search with code 0.
  const keepAlive = setInterval(() => {}, 1 << 30);
  const t0 = performance.now();
  const rnd = mulberry32(OPTS.seed);
  const dataset = await loadDataset(log);
  const photos = shuffle(dataset.photos, rnd).slice(0, OPTS.photos);
  const heldCount = Math.max(1, Math.round(photos.length * OPTS.holdout));
  const heldOut = photos.slice(0, heldCount);
  const collection = photos.slice(heldCount).sort((a, b) => a.id.localeCompare(b.id));
  log(`photos: ${photos.length} (${collection.length} indexed, ${heldOut.length} held out)`);

  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-bench-match-'));
  const infra = await openInfrastructure(loadConfig({ DATA_DIR: dataDir, NODE_ENV: 'test' }));
  const accountId = Number((await infra.accounts.ensure('bench')).id);
  const services = workerServices(infra);
  const b: Bench = { infra, accountId, dataDir, processors: services.processors, services };
  const failures: unknown[] = [];
  try {
    // 1. Ingest the collection photos and synthetic scenes up to the first scale.
    const firstSize = OPTS.scales[0];
    const baseline: Array<{ filepath: string; hash: bigint }> = [];
    const photoBytes = new Map<string, Buffer>();
    let addMs = 0;
    let added = 0;
    const addErrors: string[] = [];
    const batch: Array<{ filepath: string; data: Buffer }> = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const r = await ingest(b, batch);
      addMs += r.ms;
      added += r.added;
      addErrors.push(...r.errors);
      batch.length = 0;
    };
    for (const p of collection) {
      const data = await readFile(p.file);
      photoBytes.set(p.id, data);
      batch.push({ filepath: pathOf(p), data });
      baseline.push({ filepath: pathOf(p), hash: await hashOf(data) });
      if (batch.length === 10) await flush();
    }
    await flush();
    const realAdded = added;
    const realRate = added / (addMs / 1000);
    // The hard-copy families (both splits are indexed, whichever is queried), and their non-collection images.
    const familyIndexed: FamilyImage[] = [];
    const familyOutside: FamilyImage[] = [];
    for (const family of FAMILIES) {
      for (const split of ['tune', 'holdout'] as Split[]) {
        familyIndexed.push(...(await familyImages(family, split, OPTS.families)));
        familyOutside.push(...(await familyImages(family, split, OPTS.familyOutside, true)));
      }
    }
    for (const img of familyIndexed) {
      batch.push({ filepath: `families/${img.id}`, data: img.data });
      baseline.push({ filepath: `families/${img.id}`, hash: await hashOf(img.data) });
      if (batch.length === 10) await flush();
    }
    await flush();
    log(`ingested ${realAdded} photos at ${realRate.toFixed(1)} images/s and ${added - realAdded} hard-copy family images; errors: ${addErrors.length}`);
    const familyAdded = added - realAdded;
    const synthetic = Math.max(0, firstSize - added);
    for (let i = 0; i < synthetic; i++) {
      const w = 1200 + Math.floor(rnd() * 400);
      const h = Math.round(w * (0.56 + rnd() * 0.3));
      const data = await sharp(Buffer.from(sceneSvg(10_000 + i, w, h))).jpeg({ quality: 88 }).toBuffer();
      batch.push({ filepath: `${SYNTHETIC_PREFIX}${i}.jpg`, data });
      baseline.push({ filepath: `${SYNTHETIC_PREFIX}${i}.jpg`, hash: await hashOf(data) });
      if (batch.length === 10) await flush();
      if ((i + 1) % 200 === 0) log(`  synthetic ${i + 1}/${synthetic}`);
    }
    await flush();
    const addRate = added / (addMs / 1000);
    log(`ingested ${added} images in total at ${addRate.toFixed(1)} images/s`);

    // 2. Queries: per edit a seeded sample of collection photos.
    const queries: Query[] = [];
    const searchable = collection.filter((p) => !addErrors.some((e) => e.startsWith(pathOf(p))));
    for (const [ei, edit] of EDITS.entries()) {
      const erand = mulberry32(OPTS.seed * 1000 + ei);
      for (const p of shuffle(searchable, erand).slice(0, OPTS.perEdit)) {
        const out = await edit.apply(photoBytes.get(p.id)!, p.width, p.height, erand);
        queries.push({ edit, photo: p, filepath: pathOf(p), data: out.data, truth: out.truth });
      }
    }
    const fprQueries: Query[] = [];
    for (const p of heldOut.slice(0, OPTS.fpr)) {
      const data = await readFile(p.file);
      const frand = mulberry32(OPTS.seed * 7919 + fprQueries.length);
      for (const name of FPR_EDITS) {
        const edit = EDITS.find((e) => e.name === name)!;
        fprQueries.push({ edit, photo: p, filepath: '', data: (await edit.apply(data, p.width, p.height, frand)).data });
      }
    }
    // Family queries: per family, split and edit, a seeded sample of that family's indexed images.
    const asPhoto = (img: FamilyImage): Photo => ({ id: img.id, source: img.id, family: img.family, file: '', width: img.width, height: img.height });
    const familyQueries: Query[] = [];
    const familyFprQueries: Query[] = [];
    for (const family of FAMILIES) {
      for (const split of OPTS.familySplits) {
        const own = familyIndexed.filter((img) => img.family === family && img.split === split && !addErrors.some((e) => e.startsWith(`families/${img.id}`)));
        for (const [ei, edit] of FAMILY_EDITS.entries()) {
          const erand = mulberry32(OPTS.seed * 3000 + FAMILIES.indexOf(family) * 100 + ei + (split === 'holdout' ? 50 : 0));
          const picked = shuffle(own, erand);
          for (let k = 0; k < Math.min(OPTS.familyPerEdit, picked.length * 2); k++) {
            // With fewer images than queries, an image is edited twice (another crop box, same rotation).
            const img = picked[k % picked.length];
            const out = await edit.apply(img.data, img.width, img.height, erand);
            familyQueries.push({ edit, photo: asPhoto(img), filepath: `families/${img.id}`, data: out.data, truth: out.truth, split });
          }
        }
        for (const img of familyOutside.filter((x) => x.family === family && x.split === split)) {
          const frand = mulberry32(OPTS.seed * 4001 + img.seed);
          for (const name of FAMILY_FPR_EDITS) {
            const edit = FAMILY_EDITS.find((e) => e.name === name)!;
            familyFprQueries.push({ edit, photo: asPhoto(img), filepath: '', data: (await edit.apply(img.data, img.width, img.height, frand)).data, split });
          }
        }
      }
    }
    log(`queries: ${queries.length} edited collection photos, ${fprQueries.length} non-collection; families: ${familyQueries.length} edited, ${familyFprQueries.length} non-collection`);

    // 3. Scales.
    const reports: ScaleReport[] = [];
    const baseFpr = { queries: 0, positives: 0 };
    const compareMs: number[] = [];
    let compareHits = 0;
    let rows = added;
    for (const [si, size] of OPTS.scales.entries()) {
      const report: ScaleReport = {
        size: si === 0 ? added : size, realImages: realAdded, how: '', searchMs: [], missMs: [], hitMs: [], parts: [], foundBy: new Map(), outsideSteps: [], familyMisses: [], searched: [], cacheBuildMs: 0, memoryPerImage: { heap: 0, total: 0 },
        outcomes: new Map(), fpr: { queries: 0, positives: 0, examples: [] }, familyFpr: { queries: 0, positives: 0, examples: [] }, familyOutcomes: [],
      };
      if (si === 0) {
        report.how = `${realAdded} photos + ${familyAdded} hard-copy family images + ${added - realAdded - familyAdded} synthetic scenes, all through the ingest processor`;
      } else {
        const extra = size - rows;
        log(`scale ${size}: adding ${extra} distractor rows`);
        report.insertRowsPerSec = await addDistractorRows(b, extra, rows, rnd);
        rows = size;
        report.how = `the ${reports[0].size.toLocaleString('en')} above + ${(size - reports[0].size).toLocaleString('en')} distractor rows added by SQL (images + image_features + image_words, 1000 per statement): features copied from an ingested synthetic scene, its words with ${DISTRACTOR_RESAMPLE * 100} % replaced by draws from the collection's word frequencies`;
      }
      log(`scale ${report.size}: loading index`);
      await freshCache(b, queries[0]?.data ?? fprQueries[0]?.data ?? familyQueries[0].data, report);
      log(`  index load ${(report.cacheBuildMs / 1000).toFixed(1)} s, ${(report.memoryPerImage.total / 1024).toFixed(1)} kB/image`);
      const perEdit = si === 0 ? OPTS.perEdit : OPTS.recheck;
      const subset = queries.filter((q) => queries.filter((x) => x.edit === q.edit).indexOf(q) < perEdit);
      // The process's CPU (every thread's) over the searches: what a search costs a shared server, work it leaves
      // running after its answer included (and the few pair scores of the families' misses).
      const cpuBefore = process.cpuUsage();
      await runQueries(b, subset, si === 0 ? baseline : null, report, failures);
      const fprSubset = si === 0 ? fprQueries : fprQueries.slice(0, FPR_EDITS.length * 15);
      await runFpr(b, fprSubset, si === 0 ? baseline : null, report, si === 0 ? baseFpr : undefined);
      if (si === 0) baseFpr.queries = fprQueries.length;
      const familyPerEdit = si === 0 ? OPTS.familyPerEdit : OPTS.recheck;
      const familySubset = familyQueries.filter((q) => familyQueries.filter((x) => x.edit === q.edit && x.photo.family === q.photo.family && x.split === q.split).indexOf(q) < familyPerEdit);
      await runQueries(b, familySubset, null, report, failures, true);
      if (si === 0) {
        const originals = new Map(familyIndexed.map((img) => [`families/${img.id}`, img.data]));
        for (const { query, explained } of report.familyMisses) explained.pairScore = await pairScore(b, query.data, originals.get(query.filepath)!);
      }
      await runFpr(b, si === 0 ? familyFprQueries : familyFprQueries.filter((_, i) => i % 2 === 0), null, report, undefined, true);
      log(`  families: recall@1 ${fmtPct(report.familyOutcomes.filter((o) => o.rank === 1).length, report.familyOutcomes.length)}, wrong first ${report.familyOutcomes.filter((o) => o.wrongFirst).length}, fpr ${report.familyFpr.positives}/${report.familyFpr.queries}`);
      log(`  process CPU over the searches: ${cpuMsPerSearch(cpuBefore, report.searchMs.length)} ms per search (${report.searchMs.length} searches)`);
      if (si === 0) {
        for (const q of queries.filter((x) => x.edit.name === 'crop 50 %').slice(0, 30)) {
          try {
            const r = await compare(b, q.data, photoBytes.get(q.photo.id)!);
            compareMs.push(r.ms);
            if (r.result.items.length > 0) compareHits++;
          } catch (error) {
            if ((error as { code?: string }).code !== 'INPUT_REFUSED') throw error;
          }
        }
      }
      log(`  found by: ${[...report.foundBy].map(([step, n]) => `${step} ${n.photos} + ${n.families}`).join(', ')}; outside, mean ms per step: ${describeMeanSteps(report.outsideSteps)}`);
      const familyHitsBy = new Map<string, Map<string, number>>();
      for (const o of report.familyOutcomes.filter((x) => x.foundBy && x.foundBy !== 'verification')) {
        const byEdit = familyHitsBy.get(o.foundBy!) ?? new Map<string, number>();
        byEdit.set(`${o.family}/${o.edit}`, (byEdit.get(`${o.family}/${o.edit}`) ?? 0) + 1);
        familyHitsBy.set(o.foundBy!, byEdit);
      }
      for (const [step, byEdit] of familyHitsBy) log(`  family hits found by ${step}: ${[...byEdit].map(([k, n]) => `${k} ${n}`).join(', ')}`);
      log(`  scale ${report.size}: search p50 ${Math.round(pct(report.searchMs, 50))} ms, p95 ${Math.round(pct(report.searchMs, 95))} ms; fpr ${report.fpr.positives}/${report.fpr.queries}`);
      if (OPTS.concurrency > 0) await searchUnderLoad(b, report, OPTS.concurrency);
      reports.push(report);
      await emit(false);
    }
    await emit(true);
    async function emit(final: boolean): Promise<void> {
    await mkdir(CACHE_DIR, { recursive: true });
    await writeFile(path.join(CACHE_DIR, 'failures.json'), JSON.stringify(failures, null, 1));
    await writeFile(path.join(CACHE_DIR, 'scores.json'), JSON.stringify(scoreLog));
    if (OPTS.queryTimes) await writeFile(OPTS.queryTimes, queryTimes.map((t) => JSON.stringify(t)).join('\n') + '\n');
    const command = `npx tsx --expose-gc tools/bench/match/run.ts ${process.argv.slice(2).join(' ')}`.trim();
    const report = renderReport({
      command,
      photos: dataset.photos.length,
      wallpapers: dataset.photos.filter((p) => p.family === 'wallpaper').length,
      astronomy: dataset.photos.filter((p) => p.family === 'astronomy').length,
      collectionPhotos: realAdded,
      familyIndexed: familyAdded,
      familyOutside: familyOutside.length,
      heldOut: heldOut.length,
      dropped: `${dataset.scanned} files scanned, ${dataset.dropped.small} too small (< 400 px) or unreadable, ${dataset.dropped.identical} identical, ${dataset.dropped.variants} size/variant copies, ${dataset.dropped.nearDuplicates} dHash near-duplicates${photos.length < dataset.photos.length ? `; this run uses ${photos.length}` : ''}${addErrors.length ? `; ${addErrors.length} refused at ingest` : ''}`,
      scales: reports,
      baseFpr,
      addRate,
      addDetail: `photos alone ${realRate.toFixed(1)} images/s`,
      compareMs,
      compareHits,
      wallSeconds: (performance.now() - t0) / 1000,
      perEdit: OPTS.perEdit,
      recheck: OPTS.recheck,
    });
    if (final) process.stdout.write(report);
    if (OPTS.write) await writeBenchmarkSection('## Matching engine', report);
    }
  } finally {
    await b.services.close();
    await infra.close();
    await rm(dataDir, { recursive: true, force: true });
    clearInterval(keepAlive);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
