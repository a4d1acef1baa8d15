import type { MatchResult, RgbImage } from '../types';
import * as edit from './edits';
import { proposing } from './fits';
import { ringTiles } from './synthetic-images';

/**
 * A fine lattice (tiles of 27 px) and how much smaller its copy is: what a copy turned 20° and back upright is, whose
 * weak fits come out a few percent off in scale.
 */
export const FINE_LATTICE = { glaze: 'hsl(35,45%,65%)', ink: 'hsl(225,40%,35%)', tile: 27, copyScale: 0.65 };

/** The fine lattice and its copy at FINE_LATTICE.copyScale, re-encoded. */
export async function fineLatticeAndCopy(): Promise<{ original: RgbImage; copy: RgbImage }> {
  const original = await ringTiles(FINE_LATTICE.glaze, FINE_LATTICE.ink, FINE_LATTICE.tile);
  return { original, copy: await edit.jpeg(await edit.scale(original, FINE_LATTICE.copyScale), 80) };
}

/**
 * The fit of the lattice's copy a weak fit proposes: its true scale off by `error` (1.01: 1 % too large) about the
 * copy's centre, as a least-squares similarity over inliers spread across the frame is. Off by 1 %, the copy's edges
 * move by a third of a tile and its gradients correlate at about 34, against 76 at the true scale.
 */
export function offInScale(copy: RgbImage, error: number): MatchResult {
  const [k, cx, cy] = [FINE_LATTICE.copyScale * error, copy.width / 2, copy.height / 2];
  return proposing([k, 0, cx - error * cx, 0, k, cy - error * cy, 0, 0, 1]);
}
