/**
 * How far the true image stands out of the vote's noise, and what a shortlist cut there would save (issue 13: search
 * p95 at 1M is the verification of all 60 candidates by queries whose image is not found).
 *
 *   npx tsx tools/bench/vocabulary/shortlist.ts [--pool-variants 8] [--per-edit 4]
 *
 * Same collection and queries as tools/bench/vocabulary/run.ts, the committed search vocabulary and stop list. For each
 * query: the votes of the best 200 candidates; the true image's votes over the votes of the candidate ranked REF
 * (the noise floor of that query); whether the true image verifies (verifyMatch against its stored features). For a
 * cut "verify only candidates with votes ≥ t × votes at rank REF", reported per t: the true images in the 60 verified
 * that verify and would still be verified, and how many of the 60 a query whose image is not in the collection
 * verifies (the other candidates of every query).
 *
 * Then the same measures for a vote with weak geometric consistency (Jégou et al. 2008), re-ranking the best
 * WGC_POOL of the plain vote: every pair of keypoints sharing a word votes in a histogram of angle differences (16
 * bins) and one of log-scale differences (bins of a factor 1.2), and an image scores the smaller of its two peaks. A
 * true copy's pairs agree on one rotation and one scale; chance sharers of words do not. It needs each posting's
 * keypoint angle and size, which the index does not store today: this measures whether storing them would pay.
 */
import { Features, InvertedIndex, STOP_WORD_SHARE, verifyMatch } from '@loupe/fingerprint';
import { matchVocabulary } from '@loupe/jobs/src/match/vocabulary';
import { mkdir } from 'node:fs/promises';
import { evaluationSet, FEATURES_CACHE } from './run';

const POOL = 200;
const SHORTLIST = 60;
const REFS = [60, 100, 200];
const CUTS = [1, 1.05, 1.1, 1.15, 1.2, 1.3, 1.4, 1.5, 1.75, 2];
const WGC_POOL = 1000;
const ANGLE_BINS = 16;
const SCALE_STEP = Math.log(1.2);
const SCALE_BINS = 21;

interface KeypointPostings {
  images: number[];
  angles: number[];
  sizes: number[];
}

/** Word → every keypoint of the collection with that word (image, angle, size); stop words left out. */
function keypointIndex(words: Uint32Array[], features: Features[]): { postings: Map<number, KeypointPostings>; df: Map<number, number> } {
  const df = new Map<number, number>();
  for (const w of words) for (const word of new Set(w)) df.set(word, (df.get(word) ?? 0) + 1);
  const postings = new Map<number, KeypointPostings>();
  words.forEach((w, image) => {
    const f = features[image];
    for (let k = 0; k < w.length; k++) {
      if (df.get(w[k])! > STOP_WORD_SHARE * words.length) continue;
      let p = postings.get(w[k]);
      if (!p) postings.set(w[k], (p = { images: [], angles: [], sizes: [] }));
      p.images.push(image);
      p.angles.push(f.meta[4 * k + 1]);
      p.sizes.push(f.meta[4 * k]);
    }
  });
  return { postings, df };
}

/** WGC scores of `shortlist` (image keys) for a query, best first. */
function wgcRanking(query: Features, queryWords: Uint32Array, shortlist: number[], index: ReturnType<typeof keypointIndex>, wordCounts: number[]): Array<{ imageKey: number; votes: number }> {
  const n = wordCounts.length;
  const slot = new Map(shortlist.map((key, i) => [key, i]));
  const angle = new Float64Array(shortlist.length * ANGLE_BINS);
  const scale = new Float64Array(shortlist.length * SCALE_BINS);
  const tfQuery = new Map<number, number>();
  for (const w of queryWords) tfQuery.set(w, (tfQuery.get(w) ?? 0) + 1);
  for (let k = 0; k < queryWords.length; k++) {
    const p = index.postings.get(queryWords[k]);
    if (!p) continue;
    const df = index.df.get(queryWords[k])!;
    // Each word weighs its idf once per image, however many of its keypoints pair up (burstiness).
    const weight = Math.log(1 + n / df) / tfQuery.get(queryWords[k])!;
    const qa = query.meta[4 * k + 1];
    const qs = query.meta[4 * k];
    for (let i = 0; i < p.images.length; i++) {
      const s = slot.get(p.images[i]);
      if (s === undefined) continue;
      const da = (((p.angles[i] - qa) % 360) + 360) % 360;
      angle[s * ANGLE_BINS + (Math.floor(da / (360 / ANGLE_BINS)) % ANGLE_BINS)] += weight;
      const ds = Math.round(Math.log(p.sizes[i] / qs) / SCALE_STEP) + (SCALE_BINS >> 1);
      scale[s * SCALE_BINS + Math.max(0, Math.min(SCALE_BINS - 1, ds))] += weight;
    }
  }
  return shortlist
    .map((imageKey, s) => {
      let a = 0;
      let b = 0;
      for (let j = 0; j < ANGLE_BINS; j++) a = Math.max(a, angle[s * ANGLE_BINS + j]);
      for (let j = 0; j < SCALE_BINS; j++) b = Math.max(b, scale[s * SCALE_BINS + j]);
      return { imageKey, votes: Math.min(a, b) / Math.sqrt(Math.max(1, wordCounts[imageKey])) };
    })
    .sort((x, y) => y.votes - x.votes);
}

async function main(): Promise<void> {
  const log = (s: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${s}`);
  await mkdir(FEATURES_CACHE, { recursive: true });
  const { collection, queries } = await evaluationSet(log);
  const vocabulary = matchVocabulary().vocabulary;
  const index = new InvertedIndex();
  const collectionWords = collection.features.map((f) => vocabulary.quantize(f));
  collectionWords.forEach((words, key) => index.add(key, words));
  const keypoints = keypointIndex(collectionWords, collection.features);
  log(`index: ${index.size} images`);

  const trueRanks = new Map<string, number[]>();
  const verifies = await Promise.all(queries.map(async (q) => (await verifyMatch(q.features, collection.features[collection.queriedKeys.get(q.photoId)!])) !== null));
  for (const mode of ['plain vote', `WGC re-ranking of the best ${WGC_POOL}`]) {
    const rows: Array<{ edit: string; trueRank: number; verifies: boolean; votes: number[] }> = [];
    queries.forEach((q, qi) => {
      const words = vocabulary.quantize(q.features);
      let ranked = index.candidates(words, mode === 'plain vote' ? POOL : WGC_POOL);
      if (mode !== 'plain vote') {
        ranked = wgcRanking(q.features, words, ranked.map((c) => c.imageKey), keypoints, collectionWords.map((w) => w.length)).slice(0, POOL);
      }
      const trueKey = collection.queriedKeys.get(q.photoId)!;
      const trueRank = ranked.findIndex((c) => c.imageKey === trueKey);
      rows.push({ edit: q.edit, trueRank, verifies: verifies[qi], votes: ranked.map((c) => c.votes) });
    });
    trueRanks.set(mode, rows.map((r) => r.trueRank));
    report(mode, rows, queries.length, log);
  }
  const [plain, wgc] = [...trueRanks.values()];
  const moved = queries.map((q, i) => ({ edit: q.edit, plain: plain[i], wgc: wgc[i], verifies: verifies[i] })).filter((r) => r.verifies && (r.plain >= 0 && r.plain < SHORTLIST) !== (r.wgc >= 0 && r.wgc < SHORTLIST));
  console.log(`\nverifying true images in the ${SHORTLIST} by one ranking only (rank by plain vote → by WGC; -1 = not in the best ${POOL}):`);
  for (const r of moved) console.log(`  ${r.edit}: ${r.plain} → ${r.wgc}`);
}

function report(mode: string, rows: Array<{ edit: string; trueRank: number; verifies: boolean; votes: number[] }>, queries: number, log: (s: string) => void): void {
  const found = rows.filter((r) => r.trueRank >= 0 && r.trueRank < SHORTLIST && r.verifies);
  const first = rows.filter((r) => r.trueRank === 0 && r.verifies).length;
  const verifying = rows.filter((r) => r.verifies).length;
  log(`${mode}: of ${queries} queries, ${verifying} verify against their true image; it is in the ${SHORTLIST} verified for ${found.length}, first for ${first}`);

  for (const ref of REFS) {
    const floor = (votes: number[]) => votes[Math.min(ref, votes.length) - 1];
    const ratios = found.map((r) => r.votes[r.trueRank] / floor(r.votes)).sort((a, b) => a - b);
    const pct = (p: number) => ratios[Math.min(ratios.length - 1, Math.floor(p * ratios.length))].toFixed(2);
    console.log(`\nnoise floor = votes at rank ${ref}; true/floor for the ${found.length} found: min ${ratios[0].toFixed(2)}, p1 ${pct(0.01)}, p5 ${pct(0.05)}, median ${pct(0.5)}`);
    console.log('| cut t | found still verified | lost (edits) | candidates verified by a query without its image (mean of 60) |');
    console.log('|---|---|---|---|');
    for (const t of CUTS) {
      const lost = found.filter((r) => r.votes[r.trueRank] < t * floor(r.votes));
      let verified = 0;
      for (const r of rows) {
        const others = r.votes.filter((_, i) => i !== r.trueRank).slice(0, SHORTLIST);
        verified += others.filter((v) => v >= t * floor(r.votes)).length;
      }
      console.log(`| ${t} | ${found.length - lost.length} / ${found.length} | ${lost.map((r) => r.edit).join(', ') || '–'} | ${(verified / rows.length).toFixed(1)} |`);
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
