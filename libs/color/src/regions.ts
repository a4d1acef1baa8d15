import { srgbToOklabInto, type Oklab } from './oklab';
import type { RgbImage } from './types';

/**
 * Points of the segmentation grid an image is reduced to: above it, the image is segmented on blocks of 2×2 or 3×3
 * pixels (a 600×400 image becomes 300×200, 800×600 becomes 267×200): fewer points to convert, filter and grow, and
 * the block means already cut the pixel noise. Region colors and areas are still measured on the pixels.
 */
const GRID_POINTS = 60_000;

/**
 * Radius, in pixels, of the box filter that measures a neighbourhood's color (7×7 pixels, 5×5 blocks of 2×2 or
 * 3×3 blocks of 3×3). Averaging 49-100 pixels cuts uniform ±16-level noise to about ΔE_OK 0.5, well under FLAT_TOLERANCE, while an
 * edge between two regions is blurred over only 3-4 pixels on each side.
 */
export const SMOOTHING_RADIUS = 3;

/**
 * A point joins a growing region when its neighbourhood color is within this ΔE_OK of the region's mean. 1.5 is
 * half of the smallest difference the palette must keep (ΔE_OK 3, "two blues of one brand"), so two flat colors 3
 * apart split at their common edge, and it is about 3 standard deviations of the smoothed noise above.
 */
export const FLAT_TOLERANCE = 1.5;

/**
 * Largest spread of a region's neighbourhood colors, in ΔE_OK, that its pixel noise does not explain, for the region
 * to count as one flat color. A region grown over a gradient or soft shading holds neighbourhood colors spread
 * evenly over ±FLAT_TOLERANCE (standard deviation 0.87); a flat color, however noisy, holds only the smoothed noise,
 * which the pixel-level noise predicts. 0.6 lies between, with room for JPEG's blocky low-frequency error.
 */
export const FLAT_EXCESS_SPREAD = 0.6;

/**
 * Regions under this share of the counted pixels are not flat colors of their own: they are fringes, text strokes,
 * specks, and the crests and troughs of soft shading (each a small patch whose color only looks flat because the
 * shading turns there), counted with the rest of the image. 1 % is also the palette's significance floor
 * (MIN_COLOR_PERCENT): a flat color the palette must keep is one area of at least that size.
 */
const MIN_REGION_SHARE = 0.01;

/** Flatness ranks of seeds, in steps of 0.05 ΔE_OK: regions start from the flattest points (centres of areas). */
const SEED_BUCKETS = 64;
const SEED_BUCKET_WIDTH = 0.05;

/**
 * OKLab of recently seen sRGB colors (direct-mapped on a hash of the 24-bit color, float32 like srgbToOklabInto's
 * output): noisy flat areas repeat the same few thousand colors, each converted once instead of at every pixel.
 */
const CACHE_BITS = 16;
const cacheKeys = new Int32Array(1 << CACHE_BITS).fill(-1);
const cacheLabs = new Float32Array(3 << CACHE_BITS);

/** Index into cacheLabs of the OKLab of sRGB color key (r << 16 | g << 8 | b), converting it on a miss. */
function cachedOklab(key: number): number {
  const slot = Math.imul(key, 0x9e3779b1) >>> (32 - CACHE_BITS);
  const o = 3 * slot;
  if (cacheKeys[slot] === key) return o;
  srgbToOklabInto(key >> 16, (key >> 8) & 255, key & 255, cacheLabs, o);
  cacheKeys[slot] = key;
  return o;
}

/** A connected region of one flat color: the mean OKLab of its inner pixels and their number. */
export interface FlatRegion {
  lab: Oklab;
  count: number;
}

export interface FlatRegions {
  regions: FlatRegion[];
  /**
   * The image is segmented on blocks of block×block pixels, gridWidth blocks a row. Per block: index into regions,
   * or -1 for blocks in no flat region (texture, gradients) and on a region's rim (its outermost blocks, which may
   * mix two colors), left for the caller to assign by color. A pixel's label is its block's, except that excluded
   * pixels are in no region.
   */
  blockLabel: Int32Array;
  block: number;
  gridWidth: number;
}

/**
 * Finds the regions of the image that are one flat color, however noisy: connected points whose neighbourhood
 * colors (box-filtered OKLab) stay within FLAT_TOLERANCE of the region's mean, grown from the flattest points first,
 * and kept when the spread of their neighbourhood colors is what pixel noise explains (spatially incoherent) rather
 * than a gradient or shading (spatially coherent change). Pixels with exclude[p] = 1 are never part of a region.
 */
export function findFlatRegions(img: RgbImage, exclude?: Uint8Array): FlatRegions {
  const { width, height } = img;
  const n = width * height;
  const block = Math.max(1, Math.min(3, Math.round(Math.sqrt(n / GRID_POINTS))));
  const grid = blockGrid(img, block, exclude);
  const { gw, gh, lab, excluded } = grid;
  const gn = gw * gh;
  const radius = Math.ceil(SMOOTHING_RADIUS / block);
  const smooth = boxFilter(lab, gw, gh, radius);
  const windowSize = (2 * radius + 1) ** 2;
  // Per block: region id, -1 unvisited, -2 visited and left to the rest of the image.
  const glabel = new Int32Array(gn).fill(-1);
  let counted = n;
  if (exclude) for (let p = 0; p < n; p++) if (exclude[p]) counted--;
  const minBlocks = Math.max(1, (MIN_REGION_SHARE * counted) / (block * block));
  const seeds = seedOrder(smooth, gw, gh, radius, excluded);
  const queue = new Int32Array(gn);
  const members = new Int32Array(gn);
  const tol2 = (FLAT_TOLERANCE / 100) ** 2;
  let regionCount = 0;
  // Joins q to the region when it is free, counted and within tolerance of the region's mean; 1 when it joined.
  const join = (q: number, regionId: number, mL: number, mA: number, mB: number): number => {
    if (glabel[q] !== -1 || excluded[q]) return 0;
    const dL = smooth[3 * q] - mL;
    const dA = smooth[3 * q + 1] - mA;
    const dB = smooth[3 * q + 2] - mB;
    if (dL * dL + dA * dA + dB * dB > tol2) return 0;
    glabel[q] = regionId;
    return 1;
  };
  for (let s = 0; s < seeds.length; s++) {
    const p0 = seeds[s];
    if (glabel[p0] !== -1) continue;
    // Grow a region from p0: breadth first over 4-neighbours (left, right, up, down) within tolerance of the running mean.
    let head = 0;
    let tail = 0;
    let size = 0;
    let sL = 0;
    let sA = 0;
    let sB = 0;
    const regionId = regionCount;
    glabel[p0] = regionId;
    queue[tail++] = p0;
    while (head < tail) {
      const p = queue[head++];
      members[size++] = p;
      sL += smooth[3 * p];
      sA += smooth[3 * p + 1];
      sB += smooth[3 * p + 2];
      const mL = sL / size;
      const mA = sA / size;
      const mB = sB / size;
      const x = p % gw;
      if (x > 0 && join(p - 1, regionId, mL, mA, mB)) queue[tail++] = p - 1;
      if (x < gw - 1 && join(p + 1, regionId, mL, mA, mB)) queue[tail++] = p + 1;
      if (p >= gw && join(p - gw, regionId, mL, mA, mB)) queue[tail++] = p - gw;
      if (p + gw < gn && join(p + gw, regionId, mL, mA, mB)) queue[tail++] = p + gw;
    }
    if (size >= minBlocks && isFlat(members, size, lab, smooth, windowSize)) regionCount++;
    else for (let i = 0; i < size; i++) glabel[members[i]] = -2;
  }
  return regionPixels(img, grid, glabel, regionCount, block, exclude);
}

interface BlockGrid {
  gw: number;
  gh: number;
  /** OKLab of each block's mean color. */
  lab: Float32Array;
  /** 1 where a block holds an excluded pixel (it never joins a region). */
  excluded: Uint8Array;
}

/** Mean color of each block×block cell, in OKLab. */
function blockGrid(img: RgbImage, block: number, exclude?: Uint8Array): BlockGrid {
  const { width, height, data } = img;
  const gw = Math.ceil(width / block);
  const gh = Math.ceil(height / block);
  const lab = new Float32Array(3 * gw * gh);
  const excluded = new Uint8Array(gw * gh);
  // Channel sums of one row of blocks, gathered pixel row by pixel row (integers: the order does not matter).
  const sums = new Int32Array(3 * gw);
  let last = -1;
  for (let gy = 0; gy < gh; gy++) {
    sums.fill(0);
    const yStart = gy * block;
    const yEnd = Math.min(height, yStart + block);
    for (let y = yStart; y < yEnd; y++) {
      for (let gx = 0, x = 0, p = y * width; gx < gw; gx++) {
        const xEnd = Math.min(width, x + block);
        let r = 0;
        let g = 0;
        let b = 0;
        for (; x < xEnd; x++, p++) {
          r += data[3 * p];
          g += data[3 * p + 1];
          b += data[3 * p + 2];
        }
        sums[3 * gx] += r;
        sums[3 * gx + 1] += g;
        sums[3 * gx + 2] += b;
      }
    }
    if (exclude) {
      for (let y = yStart; y < yEnd; y++) {
        for (let x = 0, p = y * width; x < width; x++, p++) if (exclude[p]) excluded[gy * gw + ((x / block) | 0)] = 1;
      }
    }
    const rows = yEnd - yStart;
    for (let gx = 0; gx < gw; gx++) {
      const g0 = gy * gw + gx;
      const n = rows * (Math.min(width, (gx + 1) * block) - gx * block);
      const r = Math.round(sums[3 * gx] / n);
      const g = Math.round(sums[3 * gx + 1] / n);
      const b = Math.round(sums[3 * gx + 2] / n);
      const key = (r << 16) | (g << 8) | b;
      if (key === last && gx > 0) {
        // A run of one color (flat artwork).
        lab[3 * g0] = lab[3 * g0 - 3];
        lab[3 * g0 + 1] = lab[3 * g0 - 2];
        lab[3 * g0 + 2] = lab[3 * g0 - 1];
        continue;
      }
      last = key;
      const o = cachedOklab(key);
      lab[3 * g0] = cacheLabs[o];
      lab[3 * g0 + 1] = cacheLabs[o + 1];
      lab[3 * g0 + 2] = cacheLabs[o + 2];
    }
  }
  return { gw, gh, lab, excluded };
}

/**
 * The inner blocks of each kept region, without its rim (blocks with a 4-neighbour outside the region: on the grid
 * they may hold pixels of two colors, and on a noisy image their neighbourhood color is a blend), and the region's
 * pixel count and color: the OKLab mean of its inner pixels, the weighted centre of one region, a color of the image.
 * Labels stay per block (the caller expands them to pixels in runs) rather than written once per pixel here.
 */
function regionPixels(img: RgbImage, grid: BlockGrid, glabel: Int32Array, regionCount: number, block: number, exclude?: Uint8Array): FlatRegions {
  const { width, height, data } = img;
  const { gw, gh } = grid;
  const gn = gw * gh;
  // Per block: its region when it is an inner block of one, else -1.
  const inner = new Int32Array(gn).fill(-1);
  for (let gy = 0, g0 = 0; gy < gh; gy++) {
    for (let gx = 0; gx < gw; gx++, g0++) {
      const id = glabel[g0];
      if (id < 0) continue;
      // The image border is no rim: there the region ends without meeting another color.
      if ((gx > 0 && glabel[g0 - 1] !== id) || (gx < gw - 1 && glabel[g0 + 1] !== id)) continue;
      if ((gy > 0 && glabel[g0 - gw] !== id) || (gy < gh - 1 && glabel[g0 + gw] !== id)) continue;
      inner[g0] = id;
    }
  }
  // Pixels per region: its inner blocks' pixels, but for excluded ones.
  const counts = new Float64Array(regionCount);
  for (let gy = 0, g0 = 0; gy < gh; gy++) {
    const yEnd = Math.min(height, (gy + 1) * block);
    for (let gx = 0; gx < gw; gx++, g0++) {
      const id = inner[g0];
      if (id < 0) continue;
      const xEnd = Math.min(width, (gx + 1) * block);
      if (!exclude) {
        counts[id] += (yEnd - gy * block) * (xEnd - gx * block);
        continue;
      }
      for (let y = gy * block; y < yEnd; y++) {
        for (let x = gx * block; x < xEnd; x++) if (!exclude[y * width + x]) counts[id]++;
      }
    }
  }
  // Colors are averaged in OKLab, like every other color of the palette, from one pixel in four (even x and y: a
  // region of 1 % still has hundreds), block by block.
  const sums = new Float64Array(3 * regionCount);
  const samples = new Float64Array(regionCount);
  let lastKey = -1;
  let o = 0;
  for (let gy = 0, g0 = 0; gy < gh; gy++) {
    const yStart = gy * block + ((gy * block) & 1);
    const yEnd = Math.min(height, (gy + 1) * block);
    for (let gx = 0; gx < gw; gx++, g0++) {
      const id = inner[g0];
      if (id < 0) continue;
      const xStart = gx * block + ((gx * block) & 1);
      const xEnd = Math.min(width, (gx + 1) * block);
      for (let y = yStart; y < yEnd; y += 2) {
        for (let x = xStart, p = y * width + xStart; x < xEnd; x += 2, p += 2) {
          if (exclude && exclude[p]) continue;
          const r = data[3 * p];
          const g = data[3 * p + 1];
          const b = data[3 * p + 2];
          const key = (r << 16) | (g << 8) | b;
          if (key !== lastKey) {
            o = cachedOklab(key);
            lastKey = key;
          }
          sums[3 * id] += cacheLabs[o];
          sums[3 * id + 1] += cacheLabs[o + 1];
          sums[3 * id + 2] += cacheLabs[o + 2];
          samples[id]++;
        }
      }
    }
  }
  const regions: FlatRegion[] = [];
  for (let id = 0; id < regionCount; id++) {
    const m = samples[id];
    regions.push({ lab: m > 0 ? [sums[3 * id] / m, sums[3 * id + 1] / m, sums[3 * id + 2] / m] : [0, 0, 0], count: counts[id] });
  }
  return { regions, blockLabel: inner, block, gridWidth: gw };
}

/**
 * A region is flat when the variance of its neighbourhood colors exceeds what its point noise predicts by at most
 * FLAT_EXCESS_SPREAD². With independent noise of variance σ² per point, a w-point window mean keeps σ²/w, and a
 * point differs from its window mean by σ²(w−1)/w on average, so the noise share of the smoothed variance is the
 * mean squared point-to-window difference / (w − 1). What remains is coherent change: a gradient or shading.
 */
function isFlat(members: Int32Array, size: number, lab: Float32Array, smooth: Float32Array, windowSize: number): boolean {
  let mL = 0;
  let mA = 0;
  let mB = 0;
  for (let i = 0; i < size; i++) {
    const p = members[i];
    mL += smooth[3 * p];
    mA += smooth[3 * p + 1];
    mB += smooth[3 * p + 2];
  }
  mL /= size;
  mA /= size;
  mB /= size;
  let spread = 0;
  let pixelNoise = 0;
  for (let i = 0; i < size; i++) {
    const p = members[i];
    const sL = smooth[3 * p];
    const sA = smooth[3 * p + 1];
    const sB = smooth[3 * p + 2];
    spread += (sL - mL) ** 2 + (sA - mA) ** 2 + (sB - mB) ** 2;
    pixelNoise += (lab[3 * p] - sL) ** 2 + (lab[3 * p + 1] - sA) ** 2 + (lab[3 * p + 2] - sB) ** 2;
  }
  const excess = spread / size - pixelNoise / size / (windowSize - 1);
  return excess <= (FLAT_EXCESS_SPREAD / 100) ** 2;
}

/** Mean of each pixel's (2r+1)² window, clipped at the image border, through a summed-area table. */
function boxFilter(lab: Float32Array, width: number, height: number, r: number): Float32Array {
  const stride = width + 1;
  const sat = new Float64Array(3 * stride * (height + 1));
  for (let y = 0; y < height; y++) {
    let rL = 0;
    let rA = 0;
    let rB = 0;
    for (let x = 0; x < width; x++) {
      const p = 3 * (y * width + x);
      rL += lab[p];
      rA += lab[p + 1];
      rB += lab[p + 2];
      const o = 3 * ((y + 1) * stride + x + 1);
      const above = 3 * (y * stride + x + 1);
      sat[o] = sat[above] + rL;
      sat[o + 1] = sat[above + 1] + rA;
      sat[o + 2] = sat[above + 2] + rB;
    }
  }
  const out = new Float32Array(3 * width * height);
  for (let y = 0; y < height; y++) {
    const y0 = Math.max(0, y - r);
    const y1 = Math.min(height, y + r + 1);
    for (let x = 0; x < width; x++) {
      const x0 = Math.max(0, x - r);
      const x1 = Math.min(width, x + r + 1);
      const area = (y1 - y0) * (x1 - x0);
      const a = 3 * (y1 * stride + x1);
      const b = 3 * (y0 * stride + x1);
      const c = 3 * (y1 * stride + x0);
      const d = 3 * (y0 * stride + x0);
      const o = 3 * (y * width + x);
      out[o] = (sat[a] - sat[b] - sat[c] + sat[d]) / area;
      out[o + 1] = (sat[a + 1] - sat[b + 1] - sat[c + 1] + sat[d + 1]) / area;
      out[o + 2] = (sat[a + 2] - sat[b + 2] - sat[c + 2] + sat[d + 2]) / area;
    }
  }
  return out;
}

/**
 * Counted pixels ordered flattest first (bucket sort on the change of the smoothed color across a window on either
 * side), so that regions start in the middle of flat areas rather than on an edge, where a region would straddle two
 * colors.
 */
function seedOrder(smooth: Float32Array, width: number, height: number, radius: number, exclude: Uint8Array): Int32Array {
  const n = width * height;
  const r = radius + 1;
  const bucketOf = new Uint8Array(n);
  const counts = new Int32Array(SEED_BUCKETS);
  const dist = (p: number, q: number) => {
    const dL = smooth[3 * p] - smooth[3 * q];
    const dA = smooth[3 * p + 1] - smooth[3 * q + 1];
    const dB = smooth[3 * p + 2] - smooth[3 * q + 2];
    return Math.sqrt(dL * dL + dA * dA + dB * dB);
  };
  let counted = 0;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const up = Math.max(0, y - r) * width;
    const down = Math.min(height - 1, y + r) * width;
    for (let x = 0; x < width; x++) {
      const p = row + x;
      if (exclude[p]) continue;
      const gx = dist(row + (x > r ? x - r : 0), row + (x + r < width - 1 ? x + r : width - 1));
      const gy = dist(up + x, down + x);
      const bucket = Math.min(SEED_BUCKETS - 1, Math.floor((100 * (gx + gy)) / SEED_BUCKET_WIDTH));
      bucketOf[p] = bucket;
      counts[bucket]++;
      counted++;
    }
  }
  const start = new Int32Array(SEED_BUCKETS);
  for (let b = 1; b < SEED_BUCKETS; b++) start[b] = start[b - 1] + counts[b - 1];
  const order = new Int32Array(counted);
  for (let p = 0; p < n; p++) {
    if (exclude[p]) continue;
    order[start[bucketOf[p]]++] = p;
  }
  return order;
}
