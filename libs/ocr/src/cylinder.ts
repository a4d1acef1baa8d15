import { histogram, otsuThreshold, type GrayImage } from './grey';
import { findTextBands } from './text-bands';

/**
 * A label wrapped round a bottle and photographed from the front: a column at angle θ round the cylinder's axis
 * lands at x = centreX + radius·sin θ, so print is squeezed horizontally by cos θ towards the sides (by 0.36 at
 * 1.2 rad) while its height is kept. radius Infinity: flat.
 */
export interface Cylinder {
  centreX: number;
  radius: number;
  /** Horizontal squeeze (cos θ) of the print at the ink's far side: 1 flat, 0.36 at 1.2 rad. */
  edgeSqueeze: number;
}

/** Columns are grouped into this many bins across the ink's extent for the squeeze profile. */
const PROFILE_BINS = 10;
/** Bins with fewer row crossings than this carry no usable ratio (a lone speck, a serif). */
const MIN_BIN_CROSSINGS = 12;
/** Bins with ink needed for a fit: the curve's shape needs the sides and the middle. */
const MIN_PROFILE_BINS = 6;
/** Ink columns outside these percentiles are the bottle's edge, a border's corner, a speck. */
const EXTENT_PERCENTILE = 0.02;
/** Ink runs longer than this share of the height are a bottle's edge, a border or a rule, not print. */
const MAX_RUN_SHARE = 0.25;
/** Squeezes tried at the ink's far side, from flat to 1.45 rad round the bottle. */
const EDGE_ANGLES = Array.from({ length: 30 }, (_, i) => (i * 1.45) / 29);
/** Beyond this angle a column is so squeezed that unwrapping it only magnifies blur. */
const MAX_UNWRAP_ANGLE = 1.45;

/**
 * How much the print is squeezed towards the sides, from the print itself. Squeezing a glyph horizontally by c
 * keeps the number of rows crossing each stroke but leaves c times as many columns crossing it, so the number of
 * vertical ink runs over the number of horizontal ones, per column bin, is proportional to the local squeeze
 * whatever the face and size (area = crossings × mean run length both ways). The profile is fitted by
 * k·cos(asin((x − centre)/radius)), the centre being the middle of the ink (labels centre their print on the
 * bottle's front). Null when there is too little print to tell.
 */
export function estimateCylinder(g: GrayImage): Cylinder | null {
  const { width, height, data } = g;
  if (width < PROFILE_BINS || height < 8) return null;
  const threshold = otsuThreshold(histogram(g));
  let bright = 0;
  for (let i = 0; i < data.length; i++) if (data[i] > threshold) bright++;
  // Ink is the minority side of the split, so light print on dark stock counts as well.
  const lightInk = bright * 2 < data.length;
  const ink = new Uint8Array(width * height);
  for (let i = 0; i < ink.length; i++) ink[i] = (lightInk ? data[i] > threshold : data[i] <= threshold) ? 1 : 0;
  const maxRun = Math.max(4, Math.round(MAX_RUN_SHARE * height));
  // Long straight lines are borders, rules and the bottle's edges, not print: they are taken out before counting.
  const line = new Uint8Array(width * height);
  // Row by row (memory order), each column's current vertical run carried along.
  const run = new Uint32Array(width);
  for (let y = 0; y <= height; y++) {
    for (let x = 0; x < width; x++) {
      if (y < height && ink[y * width + x]) run[x]++;
      else if (run[x] > 0) {
        if (run[x] > maxRun) for (let k = y - run[x]; k < y; k++) line[k * width + x] = 1;
        run[x] = 0;
      }
    }
  }
  for (let y = 0; y < height; y++) {
    const o = y * width;
    for (let x = 0; x < width; ) {
      if (!ink[o + x]) {
        x++;
        continue;
      }
      const start = x;
      while (x < width && ink[o + x]) x++;
      if (x - start > maxRun) for (let k = start; k < x; k++) line[o + k] = 1;
    }
  }
  for (let i = 0; i < ink.length; i++) if (line[i]) ink[i] = 0;

  // Vertical and horizontal runs (the latter counted at their middle) within the lines of print only: a printed
  // border's sides, tilted a little, cross every row beside the print and would pass for squeezed print.
  const vertical = new Uint32Array(width);
  const horizontal = new Uint32Array(width);
  for (const { box } of findTextBands(g)) {
    for (let y = box.y0; y <= box.y1; y++) {
      for (let x = box.x0; x < box.x1; x++) {
        if (y < box.y1 && ink[y * width + x]) run[x]++;
        else if (run[x] > 0) {
          vertical[x]++;
          run[x] = 0;
        }
      }
    }
    for (let y = box.y0; y < box.y1; y++) {
      let start = -1;
      for (let x = box.x0; x <= box.x1; x++) {
        const on = x < box.x1 && ink[y * width + x] === 1;
        if (on && start < 0) start = x;
        else if (!on && start >= 0) {
          horizontal[(start + x) >> 1]++;
          start = -1;
        }
      }
    }
  }
  const total = horizontal.reduce((s, v) => s + v, 0);
  if (total < MIN_BIN_CROSSINGS * MIN_PROFILE_BINS) return null;
  let acc = 0;
  let x0 = 0;
  while (x0 < width - 1 && (acc += horizontal[x0]) < EXTENT_PERCENTILE * total) x0++;
  acc = 0;
  let x1 = width - 1;
  while (x1 > x0 && (acc += horizontal[x1]) < EXTENT_PERCENTILE * total) x1--;
  x1++;
  if (x1 - x0 < PROFILE_BINS) return null;
  const centreX = (x0 + x1) / 2;
  const half = (x1 - x0) / 2;

  const bins: Array<{ d: number; ratio: number; weight: number }> = [];
  for (let b = 0; b < PROFILE_BINS; b++) {
    const a = Math.round(x0 + (b * (x1 - x0)) / PROFILE_BINS);
    const e = Math.round(x0 + ((b + 1) * (x1 - x0)) / PROFILE_BINS);
    let h = 0;
    let v = 0;
    for (let x = a; x < e; x++) {
      h += horizontal[x];
      v += vertical[x];
    }
    if (h < MIN_BIN_CROSSINGS) continue;
    bins.push({ d: Math.abs((a + e) / 2 - centreX) / half, ratio: v / h, weight: h });
  }
  if (bins.length < MIN_PROFILE_BINS) return null;
  // The sides must hold print too, or nothing tells a squeeze from a layout that is just sparser at the sides.
  if (!bins.some((b) => b.d > 0.6) || !bins.some((b) => b.d < 0.3)) return null;

  let best = { err: Infinity, angle: 0 };
  for (const angle of EDGE_ANGLES) {
    const s = Math.sin(angle);
    const model = bins.map((b) => Math.sqrt(Math.max(0, 1 - (b.d * s) ** 2)));
    let num = 0;
    let den = 0;
    bins.forEach((b, i) => {
      num += b.weight * b.ratio * model[i];
      den += b.weight * model[i] ** 2;
    });
    const k = num / den;
    let err = 0;
    bins.forEach((b, i) => (err += b.weight * (b.ratio - k * model[i]) ** 2));
    if (err < best.err) best = { err, angle };
  }
  const radius = best.angle === 0 ? Infinity : half / Math.sin(best.angle);
  return { centreX, radius, edgeSqueeze: Math.cos(best.angle) };
}

export interface Unwrapped {
  image: GrayImage;
  /** Column of the source image a column of the unwrapped one came from. */
  toSourceX(x: number): number;
}

/**
 * The print laid flat: each output column is an equal arc of the cylinder, sampled (linearly between columns) at
 * x = centre + radius·sin θ, so print has the width it was printed at. Columns further round than MAX_UNWRAP_ANGLE
 * are left out.
 */
export function unwrapCylinder(g: GrayImage, cylinder: Cylinder): Unwrapped {
  const { centreX, radius } = cylinder;
  if (!Number.isFinite(radius)) return { image: g, toSourceX: (x) => x };
  const angleAt = (x: number) => Math.asin(Math.max(-Math.sin(MAX_UNWRAP_ANGLE), Math.min(Math.sin(MAX_UNWRAP_ANGLE), (x - centreX) / radius)));
  const from = angleAt(0);
  const to = angleAt(g.width);
  const width = Math.max(1, Math.round(radius * (to - from)));
  const toSourceX = (u: number) => centreX + radius * Math.sin(from + u / radius);
  const out = new Uint8Array(width * g.height);
  for (let u = 0; u < width; u++) {
    const sx = Math.min(g.width - 1, Math.max(0, toSourceX(u + 0.5) - 0.5));
    const xa = Math.floor(sx);
    const xb = Math.min(g.width - 1, xa + 1);
    const f = sx - xa;
    for (let y = 0, o = 0; y < g.height; y++, o += g.width) out[y * width + u] = Math.round(g.data[o + xa] * (1 - f) + g.data[o + xb] * f);
  }
  return { image: { data: out, width, height: g.height }, toSourceX };
}
