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

/** A connected region of one flat color: the mean OKLab of its inner pixels and their number. */
export interface FlatRegion {
  lab: Oklab;
  count: number;
}

export interface FlatRegions {
  regions: FlatRegion[];
  /**
   * Per pixel: index into regions, or -1 for pixels in no flat region (texture, gradients, excluded pixels) and on a
   * region's rim (its outermost points, which may mix two colors), left for the caller to assign by color.
   */
  label: Int32Array;
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
  for (const p0 of seeds) {
    if (glabel[p0] !== -1) continue;
    // Grow a region from p0: breadth first over 4-neighbours within tolerance of the running mean.
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
      for (let k = 0; k < 4; k++) {
        let q: number;
        if (k === 0) q = x > 0 ? p - 1 : -1;
        else if (k === 1) q = x < gw - 1 ? p + 1 : -1;
        else if (k === 2) q = p >= gw ? p - gw : -1;
        else q = p + gw < gn ? p + gw : -1;
        if (q < 0 || glabel[q] !== -1 || excluded[q]) continue;
        const dL = smooth[3 * q] - mL;
        const dA = smooth[3 * q + 1] - mA;
        const dB = smooth[3 * q + 2] - mB;
        if (dL * dL + dA * dA + dB * dB > tol2) continue;
        glabel[q] = regionId;
        queue[tail++] = q;
      }
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

/** Mean color of each block×block cell, in OKLab; runs of one color (flat artwork) are converted once. */
function blockGrid(img: RgbImage, block: number, exclude?: Uint8Array): BlockGrid {
  const { width, height, data } = img;
  const gw = Math.ceil(width / block);
  const gh = Math.ceil(height / block);
  const lab = new Float32Array(3 * gw * gh);
  const excluded = new Uint8Array(gw * gh);
  let last = -1;
  for (let gy = 0; gy < gh; gy++) {
    for (let gx = 0; gx < gw; gx++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let n = 0;
      const g0 = gy * gw + gx;
      const yEnd = Math.min(height, (gy + 1) * block);
      const xEnd = Math.min(width, (gx + 1) * block);
      for (let y = gy * block; y < yEnd; y++) {
        for (let x = gx * block; x < xEnd; x++) {
          const p = y * width + x;
          if (exclude && exclude[p]) excluded[g0] = 1;
          r += data[3 * p];
          g += data[3 * p + 1];
          b += data[3 * p + 2];
          n++;
        }
      }
      r = Math.round(r / n);
      g = Math.round(g / n);
      b = Math.round(b / n);
      const key = (r << 16) | (g << 8) | b;
      if (key === last && g0 > 0) {
        lab[3 * g0] = lab[3 * g0 - 3];
        lab[3 * g0 + 1] = lab[3 * g0 - 2];
        lab[3 * g0 + 2] = lab[3 * g0 - 1];
      } else {
        srgbToOklabInto(r, g, b, lab, 3 * g0);
        last = key;
      }
    }
  }
  return { gw, gh, lab, excluded };
}

/**
 * Pixels of each kept region, without its rim (blocks with a 4-neighbour outside the region: on the grid they may
 * hold pixels of two colors, and on a noisy image their neighbourhood color is a blend). A region's color is the
 * OKLab mean of its inner pixels: the weighted centre of one region, a color of the image.
 */
function regionPixels(img: RgbImage, grid: BlockGrid, glabel: Int32Array, regionCount: number, block: number, exclude?: Uint8Array): FlatRegions {
  const { width, height, data } = img;
  const { gw, gh } = grid;
  const label = new Int32Array(width * height).fill(-1);
  const sums = new Float64Array(3 * regionCount);
  const counts = new Float64Array(regionCount);
  const samples = new Float64Array(regionCount);
  // Colors are averaged in OKLab, like every other color of the palette; a flat run converts once.
  const lab = new Float32Array(3);
  let lastKey = -1;
  for (let gy = 0; gy < gh; gy++) {
    for (let gx = 0; gx < gw; gx++) {
      const g0 = gy * gw + gx;
      const id = glabel[g0];
      if (id < 0) continue;
      // The image border is no rim: there the region ends without meeting another color.
      if ((gx > 0 && glabel[g0 - 1] !== id) || (gx < gw - 1 && glabel[g0 + 1] !== id)) continue;
      if ((gy > 0 && glabel[g0 - gw] !== id) || (gy < gh - 1 && glabel[g0 + gw] !== id)) continue;
      for (let y = gy * block; y < Math.min(height, (gy + 1) * block); y++) {
        for (let x = gx * block; x < Math.min(width, (gx + 1) * block); x++) {
          const p = y * width + x;
          if (exclude && exclude[p]) continue;
          label[p] = id;
          counts[id]++;
          if ((x | y) & 1) continue; // the color from one pixel in four: a region of 1 % still has hundreds
          const key = (data[3 * p] << 16) | (data[3 * p + 1] << 8) | data[3 * p + 2];
          if (key !== lastKey) {
            srgbToOklabInto(data[3 * p], data[3 * p + 1], data[3 * p + 2], lab, 0);
            lastKey = key;
          }
          sums[3 * id] += lab[0];
          sums[3 * id + 1] += lab[1];
          sums[3 * id + 2] += lab[2];
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
  return { regions, label };
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
      for (let k = 0; k < 3; k++) out[o + k] = (sat[a + k] - sat[b + k] - sat[c + k] + sat[d + k]) / area;
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
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      if (exclude[p]) continue;
      const gx = dist(y * width + Math.max(0, x - r), y * width + Math.min(width - 1, x + r));
      const gy = dist(Math.max(0, y - r) * width + x, Math.min(height - 1, y + r) * width + x);
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
