/**
 * Pair-level probe of issue 13's storage target: how many edited photos still verify against their original when the
 * original stores only N of its keypoints, and which N. A collection image stores up to 1,000 keypoints of 43 bytes
 * (features-codec.ts), about 43 of the 45 KiB it takes; 16 KB an image leaves room for about 300.
 *
 *   npx tsx tools/bench/match/stored-keypoints.ts [--every 6] [--keep 300,400,1000]
 *
 * Every `--every`-th photo of the matching benchmark's dataset, normalised as ingest does (600 px, border cut), keeps
 * its 1,000 features; each of the benchmark's edits but the flip is applied to it and its features verified
 * (`verifyMatch`, as a search verifies a candidate) against the original's features cut to N by one of three orders:
 * - spread: today's order (ORB's strongest corners round-robin over an 8 × 8 grid, `selectSpread`), its first N;
 * - stable: the keypoints found again, within 4 px and 60 bits, in three copies of the original (half size, blurred by
 *   σ 2, turned 20°), most found first, ties by their rank in their grid cell and then today's order;
 * - coarse: round-robin over the grid, the coarsest pyramid level first in each cell.
 * The copies are generic edits chosen before looking at the benchmark's; they cost three more ORB extractions at
 * ingest.
 */
import { extractFeatures, loadOpenCv, seededRandom, verifyMatch, type Features, type GrayImage } from '@loupe/fingerprint';
import { cropImage, findContentBox, grayImageOf, normalizeImage } from '@loupe/imaging';
import { readFile } from 'node:fs/promises';
import { loadDataset } from './dataset';
import { EDITS } from './edits';
import { flag } from '../report';

const EVERY = Number(flag('every') ?? 6);
const KEEP = (flag('keep') ?? '300,400,1000').split(',').map(Number);
/** A keypoint is found again in a copy when one of the copy's lies this near it (px) with a descriptor this near (bits). */
const FOUND_AGAIN_PX = 4;
const FOUND_AGAIN_BITS = 60;
/** The grid of `selectSpread`. */
const GRID = 8;

const POPCOUNT = Uint8Array.from({ length: 256 }, (_, i) => i.toString(2).replace(/0/g, '').length);
function hamming(a: Uint8Array, i: number, b: Uint8Array, j: number): number {
  let d = 0;
  for (let k = 0; k < 32; k++) d += POPCOUNT[a[i * 32 + k] ^ b[j * 32 + k]];
  return d;
}

async function normalisedGrey(data: Buffer): Promise<GrayImage> {
  const rgb = await normalizeImage(data, { preferredSide: 600 });
  return grayImageOf({ ...rgb, ...cropImage(rgb, findContentBox(rgb)) });
}

/** A copy of `grey` and the map of its pixels back to `grey`'s. */
interface Copy {
  grey: GrayImage;
  back: (x: number, y: number) => [number, number];
}

async function copies(grey: GrayImage): Promise<Copy[]> {
  const { cv } = await loadOpenCv();
  const mats: Array<{ delete(): void }> = [];
  const track = <M extends { delete(): void }>(m: M) => (mats.push(m), m);
  try {
    const source = track(cv.matFromArray(grey.height, grey.width, cv.CV_8UC1, grey.data));
    const asGrey = (m: { data: Uint8Array; cols: number; rows: number }): GrayImage => ({ data: new Uint8Array(m.data), width: m.cols, height: m.rows });
    const half = track(new cv.Mat());
    cv.resize(source, half, new cv.Size(Math.round(grey.width / 2), Math.round(grey.height / 2)), 0, 0, cv.INTER_AREA);
    const [kx, ky] = [grey.width / half.cols, grey.height / half.rows];
    const blurred = track(new cv.Mat());
    cv.GaussianBlur(source, blurred, new cv.Size(0, 0), 2);
    const turn = track(cv.getRotationMatrix2D(new cv.Point(grey.width / 2, grey.height / 2), 20, 1));
    const turned = track(new cv.Mat());
    cv.warpAffine(source, turned, turn, new cv.Size(grey.width, grey.height), cv.INTER_LINEAR, cv.BORDER_REPLICATE);
    const [a, b, c, d, e, f] = Array.from(turn.data64F as Float64Array);
    const det = a * e - b * d;
    return [
      { grey: asGrey(half), back: (x, y) => [x * kx, y * ky] },
      { grey: asGrey(blurred), back: (x, y) => [x, y] },
      { grey: asGrey(turned), back: (x, y) => [(e * (x - c) - b * (y - f)) / det, (-d * (x - c) + a * (y - f)) / det] },
    ];
  } finally {
    for (const m of mats) m.delete();
  }
}

/** Per keypoint of `features`, in how many of the copies of `grey` it is found again. */
async function foundAgain(grey: GrayImage, features: Features): Promise<Int32Array> {
  const found = new Int32Array(features.count);
  const bucket = 2 * FOUND_AGAIN_PX;
  for (const copy of await copies(grey)) {
    const theirs = await extractFeatures(copy.grey);
    const near = new Map<number, Array<[number, number, number]>>();
    for (let j = 0; j < theirs.count; j++) {
      const [x, y] = copy.back(theirs.xy[2 * j], theirs.xy[2 * j + 1]);
      const key = Math.floor(x / bucket) * 100_000 + Math.floor(y / bucket);
      const bucketed = near.get(key);
      if (bucketed) bucketed.push([j, x, y]);
      else near.set(key, [[j, x, y]]);
    }
    for (let i = 0; i < features.count; i++) {
      const [x, y] = [features.xy[2 * i], features.xy[2 * i + 1]];
      const [bx, by] = [Math.floor(x / bucket), Math.floor(y / bucket)];
      let again = false;
      for (let dx = -1; dx <= 1 && !again; dx++) {
        for (let dy = -1; dy <= 1 && !again; dy++) {
          again = (near.get((bx + dx) * 100_000 + by + dy) ?? []).some(([j, jx, jy]) => (jx - x) ** 2 + (jy - y) ** 2 <= FOUND_AGAIN_PX ** 2 && hamming(features.descriptors, i, theirs.descriptors, j) <= FOUND_AGAIN_BITS);
        }
      }
      if (again) found[i]++;
    }
  }
  return found;
}

/** The keypoints of each grid cell, best by `priority` first (ties: today's order). */
function cellsBy(features: Features, priority: ArrayLike<number>): number[][] {
  const cells: number[][] = Array.from({ length: GRID * GRID }, () => []);
  for (let i = 0; i < features.count; i++) {
    const cx = Math.min(GRID - 1, Math.floor((features.xy[2 * i] / features.width) * GRID));
    const cy = Math.min(GRID - 1, Math.floor((features.xy[2 * i + 1] / features.height) * GRID));
    cells[cy * GRID + cx].push(i);
  }
  for (const cell of cells) cell.sort((a, b) => priority[b] - priority[a] || a - b);
  return cells;
}

/** Round-robin over the grid's cells, each tier by `priority`. */
function roundRobin(features: Features, priority: ArrayLike<number>): number[] {
  const cells = cellsBy(features, priority);
  const order: number[] = [];
  for (let rank = 0; order.length < features.count; rank++) {
    order.push(...cells.filter((cell) => cell.length > rank).map((cell) => cell[rank]).sort((a, b) => priority[b] - priority[a] || a - b));
  }
  return order;
}

/** Most found again first, ties by rank in their cell, then today's order. */
function stableOrder(features: Features, found: Int32Array): number[] {
  const rankInCell = new Int32Array(features.count);
  for (const cell of cellsBy(features, found)) cell.forEach((i, rank) => (rankInCell[i] = rank));
  return Array.from({ length: features.count }, (_, i) => i).sort((a, b) => found[b] - found[a] || rankInCell[a] - rankInCell[b] || a - b);
}

function keep(features: Features, order: readonly number[]): Features {
  const n = order.length;
  const xy = new Float32Array(2 * n);
  const meta = new Float32Array(4 * n);
  const descriptors = new Uint8Array(32 * n);
  order.forEach((i, k) => {
    xy.set(features.xy.subarray(2 * i, 2 * i + 2), 2 * k);
    meta.set(features.meta.subarray(4 * i, 4 * i + 4), 4 * k);
    descriptors.set(features.descriptors.subarray(32 * i, 32 * i + 32), 32 * k);
  });
  return { width: features.width, height: features.height, count: n, xy, meta, descriptors };
}

const ORDERS = ['spread', 'stable', 'coarse'] as const;
/** Edits reported one by one: those with the fewest inliers to spare. */
const SHOWN_EDITS = /crop 25|blur|contrast \+|combo/;

async function main(): Promise<void> {
  const photos = (await loadDataset()).photos.filter((_, i) => i % EVERY === 0);
  const edits = EDITS.filter((e) => !e.flip);
  const verified = new Map<string, number>();
  const count = (key: string) => verified.set(key, (verified.get(key) ?? 0) + 1);
  const foundHistogram = [0, 0, 0, 0];
  let pairs = 0;
  for (const [p, photo] of photos.entries()) {
    const data = await readFile(photo.file);
    const grey = await normalisedGrey(data);
    const features = await extractFeatures(grey);
    const found = await foundAgain(grey, features);
    for (const n of found) foundHistogram[n]++;
    const orders = {
      spread: Array.from({ length: features.count }, (_, i) => i),
      stable: stableOrder(features, found),
      coarse: roundRobin(features, Int32Array.from({ length: features.count }, (_, i) => features.meta[4 * i + 3])),
    };
    const stored = ORDERS.flatMap((order) => KEEP.map((n) => ({ key: `${order} ${n}`, features: keep(features, orders[order].slice(0, n)) })));
    for (const [e, edit] of edits.entries()) {
      const query = await extractFeatures(await normalisedGrey((await edit.apply(data, photo.width, photo.height, seededRandom(1000 + e * 100 + p))).data));
      if (query.count < 12) continue;
      pairs++;
      for (const { key, features: target } of stored) {
        if (!(await verifyMatch(query, target))) continue;
        count(key);
        count(`${key}|${edit.name}`);
      }
    }
    if (p % 10 === 9) console.error(`${p + 1} of ${photos.length} photos`);
  }
  console.log(`${photos.length} photos, ${pairs} pairs; keypoints found again in 0 / 1 / 2 / 3 copies: ${foundHistogram.join(' / ')}`, '');
  console.log(`| stored keypoints | order | pairs verified (${pairs}) | ${edits.filter((e) => SHOWN_EDITS.test(e.name)).map((e) => e.name).join(' | ')} |`);
  console.log(`|---|---|---|${edits.filter((e) => SHOWN_EDITS.test(e.name)).map(() => '---|').join('')}`);
  for (const n of KEEP) {
    for (const order of ORDERS) {
      const key = `${order} ${n}`;
      const hits = verified.get(key) ?? 0;
      console.log(`| ${n} | ${order} | ${hits} (${((hits / pairs) * 100).toFixed(1)} %) | ${edits.filter((e) => SHOWN_EDITS.test(e.name)).map((e) => verified.get(`${key}|${e.name}`) ?? 0).join(' | ')} |`);
    }
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
