/**
 * Search vocabulary benchmark (issue 13): how the visual vocabulary decides the vote's cost and whether the true image
 * reaches the verified shortlist, before any verification.
 *
 *   sh tools/bench/match/setup.sh && sh tools/bench/vocabulary/setup.sh    # once: Debian picture packages
 *   npx tsx tools/bench/vocabulary/run.ts [--pool-variants 8] [--per-edit 4] [--train-only] [--write]
 *
 * --write copies the 16^4 photo vocabulary to libs/fingerprint/data/search-vocabulary.bin (the committed search
 * vocabulary: a new file means every stored word list is re-quantised, so do it only with a measured reason).
 *
 * Vocabularies compared: the committed default (trained on generated scenes, 10^4 words) and vocabularies trained on
 * photographs of Debian packages that the matching benchmark does NOT use (setup.sh here: game textures and photo
 * stamps), at 10^4 and 16^4 words. Evaluated on the matching benchmark's photos (tools/bench/match/dataset.ts): a
 * collection of the queried photos' originals plus pool variants (crops, flips, rotations, rescales and re-encodings of
 * the other photos, as tools/bench/scale builds), searched with the matching benchmark's edits. Reported per
 * vocabulary: where the true image ranks by votes (in the 60 verified candidates or not), the postings a query reads
 * per image of the collection (the vote's cost grows with it), and how skewed the words are.
 *
 * Features are cached under tools/bench/vocabulary/.cache (one file per image and variant), so a rerun only trains and
 * votes.
 */
import { defaultVocabulary, deserializeFeatures, Features, InvertedIndex, SEARCH_VOCABULARY_PATH, seededRandom, serializeFeatures, Vocabulary } from '@loupe/fingerprint';
import { prepareImage } from '@loupe/jobs/src/image-preparation';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { loadDataset, type Photo } from '../match/dataset';
import { EDITS } from '../match/edits';
import { flag, shuffle } from '../report';
import { poolVariant } from '../scale/pool-variants';

const CACHE = path.join(__dirname, '.cache');
const MATCHING_SIDE = 600;
const SHORTLIST = 60;
const POOL = 200;
const pct = (num: number, den: number) => `${((100 * num) / den).toFixed(1)} %`;

/** Folders of the training packages (setup.sh), none of which the matching benchmark reads. */
export const TRAINING_SOURCES = [
  '/usr/share/games/etr', // extremetuxracer-data: photographic snow, rock, tree and sky textures
  '/usr/share/tuxpaint/stamps', // tuxpaint-stamps-default: photographs of animals, plants, objects
];

const OPTS = { poolVariants: Number(flag('pool-variants') ?? 8), perEdit: Number(flag('per-edit') ?? 4), trainOnly: process.argv.includes('--train-only'), write: process.argv.includes('--write') };

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) out.push(...walk(file));
    else if (/\.(jpe?g|png)$/i.test(name) && !/(icon|preview|thumb|screenshot)/i.test(name)) out.push(file);
  }
  return out.sort();
}

/** Features of an image as the ingest computes them (normalised to 600 px, borders cropped), cached by content. */
export async function featuresOf(data: Buffer): Promise<Features | null> {
  const key = createHash('sha1').update(data).digest('hex');
  const file = path.join(CACHE, 'features', `${key}.lfp`);
  if (existsSync(file)) {
    const bytes = await readFile(file);
    return bytes.length === 0 ? null : deserializeFeatures(bytes);
  }
  const prepared = await prepareImage({ data, preferredSide: MATCHING_SIDE, cropBorders: true });
  const features = 'image' in prepared ? prepared.image.features : null;
  await writeFile(file, features ? serializeFeatures(features) : Buffer.alloc(0));
  return features;
}

/** Training descriptors: each training picture at full size, at half size, and blurred + JPEG q30 (as scripts/train-vocabulary.ts). */
async function trainingDescriptors(log: (s: string) => void): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let pictures = 0;
  for (const file of TRAINING_SOURCES.flatMap(walk)) {
    const meta = await sharp(file).metadata().catch(() => null);
    if (!meta?.width || !meta.height || Math.min(meta.width, meta.height) < 300) continue;
    pictures++;
    const flat = await sharp(file).flatten({ background: '#808080' }).jpeg({ quality: 92 }).toBuffer();
    const half = await sharp(flat).resize(Math.round(meta.width / 2)).jpeg({ quality: 92 }).toBuffer();
    const degraded = await sharp(flat).blur(1.2).jpeg({ quality: 30 }).toBuffer();
    for (const data of [flat, half, degraded]) {
      const f = await featuresOf(data);
      if (f) chunks.push(f.descriptors);
    }
  }
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  log(`training: ${pictures} pictures, ${all.length / 32} descriptors`);
  return all;
}

export interface Collection {
  /** Key = position; the queried photos' originals first. */
  features: Features[];
  queriedKeys: Map<string, number>;
}

export interface Query {
  edit: string;
  photoId: string;
  features: Features;
}

export async function evaluationSet(log: (s: string) => void): Promise<{ collection: Collection; queries: Query[] }> {
  const rnd = seededRandom(42);
  const photos = shuffle((await loadDataset(log)).photos, rnd);
  const queried = photos.slice(0, Math.round(photos.length / 2));
  const pool = photos.slice(queried.length);
  const features: Features[] = [];
  const queriedKeys = new Map<string, number>();
  for (const p of queried) {
    const f = await featuresOf(await readFile(p.file));
    if (!f) continue;
    queriedKeys.set(p.id, features.length);
    features.push(f);
  }
  for (let v = 0; v < OPTS.poolVariants; v++) {
    for (const p of pool) {
      const f = await featuresOf(await poolVariant(p, await readFile(p.file), seededRandom(v * 10_000 + pool.indexOf(p) + 99)));
      if (f) features.push(f);
    }
  }
  log(`collection: ${queriedKeys.size} queried originals + ${features.length - queriedKeys.size} pool variants`);
  const queries: Query[] = [];
  for (const [ei, edit] of EDITS.entries()) {
    const erand = seededRandom(1000 + ei);
    for (const p of shuffle(queried.filter((q: Photo) => queriedKeys.has(q.id)), erand).slice(0, OPTS.perEdit)) {
      const f = await featuresOf((await edit.apply(await readFile(p.file), p.width, p.height, erand)).data);
      if (f) queries.push({ edit: edit.name, photoId: p.id, features: f });
    }
  }
  log(`queries: ${queries.length} (${OPTS.perEdit} per edit, those with features)`);
  return { collection: { features, queriedKeys }, queries };
}

interface Row {
  name: string;
  words: number;
  inShortlist: number;
  firstByVotes: number;
  medianRank: number;
  postingsPerImage: number;
  topWordShare: number;
  distinctPerImage: number;
  voteMs: number;
}

/** Shares of the collection above which a word is left out of the vote (a stop list); 1 = every word votes. */
const STOP_SHARES = [1, 0.2, 0.1, 0.05, 0.02];

function evaluate(name: string, vocabulary: Vocabulary, collection: Collection, queries: Query[]): Row[] {
  const index = new InvertedIndex();
  const df = new Map<number, number>();
  let distinct = 0;
  collection.features.forEach((f, key) => {
    const words = vocabulary.quantize(f);
    index.add(key, words);
    const unique = new Set(words);
    distinct += unique.size;
    for (const w of unique) df.set(w, (df.get(w) ?? 0) + 1);
  });
  const n = collection.features.length;
  const queryWords = queries.map((q) => vocabulary.quantize(q.features));
  return STOP_SHARES.map((share) => {
    let inShortlist = 0;
    let first = 0;
    let postings = 0;
    let voteMs = 0;
    const ranks: number[] = [];
    queries.forEach((q, qi) => {
      const words = queryWords[qi];
      for (const w of new Set(words)) if ((df.get(w) ?? 0) <= share * n) postings += df.get(w) ?? 0;
      const t = performance.now();
      const ranked = index.candidates(words, POOL, undefined, { stopWordShare: share });
      voteMs += performance.now() - t;
      const rank = ranked.findIndex((c) => c.imageKey === collection.queriedKeys.get(q.photoId));
      ranks.push(rank < 0 ? POOL : rank);
      if (rank >= 0 && rank < SHORTLIST) inShortlist++;
      if (rank === 0) first++;
    });
    ranks.sort((a, b) => a - b);
    return {
      name: share === 1 ? name : `${name}, words in > ${share * 100} % of images left out`,
      words: vocabulary.size,
      inShortlist,
      firstByVotes: first,
      medianRank: ranks[Math.floor(ranks.length / 2)],
      postingsPerImage: postings / queries.length / n,
      topWordShare: Math.max(...df.values()) / n,
      distinctPerImage: distinct / n,
      voteMs: voteMs / queries.length,
    };
  });
}

export const FEATURES_CACHE = path.join(CACHE, 'features');

async function main(): Promise<void> {
  const log = (s: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${s}`);
  await mkdir(FEATURES_CACHE, { recursive: true });
  const training = await trainingDescriptors(log);
  const shapes = [
    { branching: 10, depth: 4 },
    { branching: 16, depth: 4 },
  ];
  const vocabularies: Array<{ name: string; vocabulary: Vocabulary }> = [{ name: 'default (generated scenes)', vocabulary: defaultVocabulary() }];
  for (const shape of shapes) {
    const file = path.join(CACHE, `photos-${shape.branching}x${shape.depth}.bin`);
    let vocabulary: Vocabulary;
    if (existsSync(file)) vocabulary = Vocabulary.deserialize(await readFile(file));
    else {
      const t = performance.now();
      vocabulary = Vocabulary.train(training, { seed: 7, ...shape });
      await writeFile(file, vocabulary.serialize());
      log(`trained ${shape.branching}^${shape.depth}: ${vocabulary.size} words in ${((performance.now() - t) / 1000).toFixed(0)} s`);
    }
    vocabularies.push({ name: `photos ${shape.branching}^${shape.depth}`, vocabulary });
    if (OPTS.write && shape.branching === 16) {
      await writeFile(SEARCH_VOCABULARY_PATH, vocabulary.serialize());
      log(`wrote ${SEARCH_VOCABULARY_PATH}`);
    }
  }
  if (OPTS.trainOnly) return;
  const { collection, queries } = await evaluationSet(log);
  const rows = vocabularies.flatMap(({ name, vocabulary }) => evaluate(name, vocabulary, collection, queries));
  console.log(`\n| vocabulary | words | true image in the ${SHORTLIST} verified (n=${queries.length}) | first by votes | median rank | postings read per query per image | most common word in | distinct words per image | vote (ms, ${collection.features.length} images) |`);
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.name} | ${r.words} | ${pct(r.inShortlist, queries.length)} | ${pct(r.firstByVotes, queries.length)} | ${r.medianRank} | ${r.postingsPerImage.toFixed(1)} | ${(100 * r.topWordShare).toFixed(0)} % of images | ${r.distinctPerImage.toFixed(0)} | ${r.voteMs.toFixed(2)} |`,
    );
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
