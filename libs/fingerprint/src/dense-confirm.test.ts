import { describe, expect, it } from 'vitest';
import { colourShares } from './colour-set';
import { confirmDense, confirmDenseFit, confirmPlacedCrop, confirmWeakFit, confirmWholeImage, DENSE_CONFIRM_MIN, mayHoldPlacement, placedColours, UPRIGHT_CHECK, weakFitOptions } from './dense-confirm';
import { enhancedScore } from './enhanced-score';
import { FINE_LATTICE, fineLatticeAndCopy, offInScale } from './testing/fine-lattice';
import { matchMetrics } from './match-metrics';
import { extractFeatures } from './features';
import { uprightEvidence } from './rotation';
import { cropRgb } from './rgb';
import * as edit from './testing/edits';
import { BADGE_LOGO_BADGE, badgeLogo, crossedTiles, FLAT_LANDSCAPE_SKY, flatLandscape, glazedTiles, linearGradient, ringTiles, smoothWallpaper, softBlobs, syntheticImage, toGray } from './testing/synthetic-images';
import type { RgbImage } from './types';
import { DEFAULT_MIN_SCORE, verifyMatch } from './verify';

async function evidence(rgb: RgbImage) {
  return { rgb, features: await extractFeatures(toGray(rgb), { includeMirror: true }) };
}

describe('dense confirmation of weak fits', () => {
  it('finds a heavily degraded copy of a smooth image that the feature check misses, scored below every feature match', async () => {
    const original = await smoothWallpaper(1);
    const copy = await evidence(await edit.jpeg(await edit.blur(original, 3), 10));
    const target = await evidence(original);
    expect(await verifyMatch(copy.features, target.features)).toBeNull();
    const match = await confirmDense(copy, target);
    expect(match).not.toBeNull();
    expect(match!.score).toBeGreaterThan(0);
    expect(match!.score).toBeLessThan(DEFAULT_MIN_SCORE);
    expect(match!.query_overlap_percent).toBeGreaterThan(90);
  });

  it('correlates a half-size decode of the collection image like the full-size one', async () => {
    const original = await smoothWallpaper(1);
    const copy = await evidence(await edit.jpeg(await edit.blur(original, 3), 10));
    const target = await evidence(original);
    const fit = (await verifyMatch(copy.features, target.features, weakFitOptions()))!;
    const full = await confirmDenseFit(copy.rgb, original, fit);
    const half = await confirmDenseFit(copy.rgb, await edit.scale(original, 0.5), fit, 0.5);
    expect(full).not.toBeNull();
    expect(half).not.toBeNull();
    expect(Math.abs(half!.score - full!.score)).toBeLessThan(2);
    // Ignoring the scale would misalign the images: the correlation falls below the confirmation floor.
    expect(await confirmDenseFit(copy.rgb, await edit.scale(original, 0.5), fit)).toBeNull();
  });

  it('confirms no unrelated smooth image', async () => {
    const query = await evidence(await edit.jpeg(await edit.blur(await smoothWallpaper(1), 3), 10));
    for (const seed of [2, 3, 4, 5]) expect(await confirmDense(query, await evidence(await smoothWallpaper(seed)), { checkHorizontalFlip: true })).toBeNull();
  });
});

describe('alternative alignments of a repeated pattern', () => {
  const [glaze, ink] = ['hsl(195,60%,75%)', 'hsl(15,50%,30%)'];

  it('confirms a crop of square tiles by an alternative when the pixels refute the best-supported alignment', async () => {
    const tiles = await ringTiles(glaze, ink, 76);
    const target = await evidence(await edit.scale(tiles, 0.5));
    const corner = await evidence(await edit.jpeg(await edit.crop(tiles, edit.cropBox(tiles, 0.25, 1, 0)), 85));
    const fit = await verifyMatch(corner.features, target.features, weakFitOptions());
    expect(fit?.alternatives?.length).toBeGreaterThan(0);
    const { alternatives, ...best } = fit!;
    expect(await confirmWeakFit(corner.rgb, target.rgb, best)).toBeNull();
    const match = await confirmWeakFit(corner.rgb, target.rgb, { ...best, alternatives });
    expect(await confirmDense(corner, target)).toEqual(match);
    expect(match).not.toBeNull();
    expect(match!.score).toBeLessThan(DEFAULT_MIN_SCORE);
    expect(match!.query_overlap_percent).toBeGreaterThan(90);
    expect(match!.alternatives).toBeUndefined();
  });

  it('confirms no crop of the same tiles in another glaze, nor in glazes 45° of hue away that pass the chromaticity', async () => {
    const target = await evidence(await edit.scale(await ringTiles(glaze, ink, 76), 0.5));
    for (const other of ['hsl(95,45%,70%)', 'hsl(150,60%,75%)', 'hsl(240,60%,75%)']) {
      const tiles = await ringTiles(other, ink, 76);
      for (const [x, y] of [[1, 0], [0.3, 0], [0.6, 0.5]]) {
        expect(await confirmDense(await evidence(await edit.jpeg(await edit.crop(tiles, edit.cropBox(tiles, 0.25, x, y)), 85)), target)).toBeNull();
      }
    }
  });
});

describe('a weak fit settled by its pixels', () => {
  it('confirms a copy of a fine lattice whose fit is 1 % off in scale, and no lattice of another glaze or tile', async () => {
    const { original, copy } = await fineLatticeAndCopy();
    const proposed = offInScale(copy, 1.01);
    // The collection image at half size, as a search decodes it for its pixel checks.
    const match = await confirmDenseFit(copy, await edit.scale(original, 0.5), proposed, 0.5);
    expect(match).not.toBeNull();
    expect(match!.score).toBeLessThan(DEFAULT_MIN_SCORE);
    expect(match!.transform[0] / FINE_LATTICE.copyScale).toBeCloseTo(1, 3);
    for (const other of [await ringTiles('hsl(95,45%,70%)', FINE_LATTICE.ink, FINE_LATTICE.tile), await ringTiles(FINE_LATTICE.glaze, FINE_LATTICE.ink, 28)]) {
      expect(await confirmDenseFit(copy, await edit.scale(other, 0.5), proposed, 0.5)).toBeNull();
    }
  });
});

describe('whole-image confirmation', () => {
  it('confirms a copy of a whole smooth image, mirrored too, scored below every feature match', async () => {
    const original = await evidence(await smoothWallpaper(1));
    const copy = await evidence(await edit.jpeg(await edit.scale(original.rgb, 0.5), 10));
    const match = await confirmWholeImage(copy, original, false);
    expect(match).not.toBeNull();
    expect(match!.score).toBeGreaterThan(20);
    expect(match!.score).toBeLessThan(DEFAULT_MIN_SCORE);
    expect(match!.query_overlap_percent).toBeGreaterThan(99);
    const mirrored = await evidence(await edit.flip(copy.rgb));
    expect(await confirmWholeImage(mirrored, original, true)).not.toBeNull();
    expect(await confirmWholeImage(mirrored, original, false)).toBeNull();
  });

  it('confirms a recompressed copy of a plain gradient by its colours, whose gradients correlate too little, and no other gradient', async () => {
    const stops = ['hsl(200,60%,14%)', 'hsl(175,38%,44%)', 'hsl(195,55%,22%)'];
    const original = await evidence(await linearGradient(stops));
    const copy = await evidence(await edit.jpeg(await edit.scale(original.rgb, 0.5), 30));
    const wholeFrame = [copy.rgb.width / original.rgb.width, 0, 0, 0, copy.rgb.height / original.rgb.height, 0, 0, 0, 1];
    expect(await enhancedScore(copy.rgb, original.rgb, matchMetrics(copy.features, original.features, wholeFrame, 0, false))).toBeLessThan(DENSE_CONFIRM_MIN);
    const match = await confirmWholeImage(copy, original, false);
    expect(match).not.toBeNull();
    expect(match!.score).toBeLessThan(DEFAULT_MIN_SCORE);
    const others = [
      await linearGradient(['hsl(220,60%,14%)', 'hsl(195,38%,44%)', 'hsl(215,55%,22%)']),
      await linearGradient(stops, 0.2, 1),
      await linearGradient(['hsl(200,60%,22%)', 'hsl(175,38%,52%)', 'hsl(195,55%,30%)']),
    ];
    for (const other of others) expect(await confirmWholeImage(copy, await evidence(other), false)).toBeNull();
  });

  it("confirms a fine lattice turned 20° and back upright at the alignment its pixels settle to, its frame's cut two pixels off, and no lattice of another glaze or tile", async () => {
    // Tiles of 16 px, 8 in the turned copy: two pixels of misalignment are a quarter of a tile.
    const original = await ringTiles(FINE_LATTICE.glaze, FINE_LATTICE.ink, 16);
    const turned = await edit.jpeg(await edit.scale(await edit.rotate(original, 20), 0.5), 80);
    const read = (await uprightEvidence(turned, toGray(turned)))!;
    // Its frame cut two pixels further in on the left and at the top, as border cuts that round apart at the original's
    // size and the copy's leave it.
    const cut = cropRgb(read.rgb, { left: 2, top: 2, right: read.rgb.width, bottom: read.rgb.height });
    const upright = { ...read, rgb: cut, gray: toGray(cut) };
    const stored = async (rgb: RgbImage) => ({ rgb: await edit.scale(rgb, 0.25), features: await extractFeatures(toGray(await edit.scale(rgb, 0.5))) });
    const target = await stored(original);
    const asCut = [upright.rgb.width / target.features.width, 0, 0, 0, upright.rgb.height / target.features.height, 0, 0, 0, 1];
    expect(await enhancedScore(upright.rgb, target.rgb, matchMetrics(upright.features, target.features, asCut, 0, false), 0.5)).toBeLessThan(DENSE_CONFIRM_MIN);
    const match = await confirmWholeImage(upright, target, false, UPRIGHT_CHECK);
    expect(match).not.toBeNull();
    expect(match!.score).toBeLessThan(DEFAULT_MIN_SCORE);
    expect(match!.transform).not.toEqual(asCut);
    for (const other of [await ringTiles('hsl(80,45%,65%)', FINE_LATTICE.ink, 16), await ringTiles(FINE_LATTICE.glaze, FINE_LATTICE.ink, 15)]) {
      expect(await confirmWholeImage(upright, await stored(other), false, UPRIGHT_CHECK)).toBeNull();
    }
  });

  it('confirms no other smooth image and no crop of a different shape', async () => {
    const query = await evidence(await edit.jpeg(await smoothWallpaper(1), 10));
    for (const seed of [2, 3, 4, 5]) expect(await confirmWholeImage(query, await evidence(await smoothWallpaper(seed)), false)).toBeNull();
    const original = await smoothWallpaper(6);
    const crop = await evidence(await edit.crop(original, edit.cropBox(original, 0.5)));
    expect(await confirmWholeImage(crop, await evidence(original), false)).toBeNull();
  });
});

/**
 * A stand-in for the imaging library's `findContentInsideFlatBands` on a flat band or plain ground: the box inside its
 * lines of the top-left pixel's colour.
 */
function insideGround(rgb: RgbImage) {
  const { width, height, data } = rgb;
  const ground = (x: number, y: number) => {
    const i = (y * width + x) * 3;
    return Math.max(Math.abs(data[i] - data[0]), Math.abs(data[i + 1] - data[1]), Math.abs(data[i + 2] - data[2])) <= 24;
  };
  const row = (y: number) => Array.from({ length: width }, (_, x) => ground(x, y)).every(Boolean);
  const column = (x: number) => Array.from({ length: height }, (_, y) => ground(x, y)).every(Boolean);
  const box = { left: 0, top: 0, right: width, bottom: height };
  while (box.top < height - 1 && row(box.top)) box.top++;
  while (box.bottom > box.top + 1 && row(box.bottom - 1)) box.bottom--;
  while (box.left < width - 1 && column(box.left)) box.left++;
  while (box.right > box.left + 1 && column(box.right - 1)) box.right--;
  return box;
}

describe('crops placed by their pixels', () => {
  // The template search places these crops a pixel or two off its fine grout lines: as it is, the quarter's colours then
  // differed by over 4 levels, and judged as a shared design the halves' edges were not reproduced, until the
  // placements were settled by their pixels (each failed before).
  it('confirms crops of a glazed tile wall placed a pixel or two off, as they are and as a shared design, and no crop in another wall of those glazes', async () => {
    const [wall, other] = [await glazedTiles(1, 40), await glazedTiles(2, 40)];
    const storedAt600 = async (rgb: RgbImage) => {
      const stored = await edit.scale(rgb, 600 / rgb.height);
      return { rgb: await edit.scale(stored, 0.5), features: (await evidence(stored)).features };
    };
    const [stored, otherStored] = [await storedAt600(wall), await storedAt600(other)];
    const quarter = await evidence(await edit.jpeg(await edit.crop(wall, edit.cropBox(wall, 0.25, 0.1, 0.3)), 80));
    expect(await confirmPlacedCrop(quarter, stored)).not.toBeNull();
    expect(await confirmPlacedCrop(quarter, otherStored)).toBeNull();
    for (const [x, y] of [[0.1, 0.3], [0.83, 0.2], [0.55, 0.9]]) {
      const half = await evidence(await edit.jpeg(await edit.crop(wall, edit.cropBox(wall, 0.5, x, y)), 60));
      expect(await confirmPlacedCrop(half, stored, UPRIGHT_CHECK)).not.toBeNull();
      expect(await confirmPlacedCrop(half, otherStored, UPRIGHT_CHECK)).toBeNull();
    }
  });

  it('places a crop of a logo that keeps the ground its image kept above the badge and the ground its image lost beside it', async () => {
    const logo = await badgeLogo();
    // Stored as ingest cuts it: the ground left of the badge and below it is under a quarter of the side, the ground
    // above it is not.
    const cut = { left: BADGE_LOGO_BADGE.left, top: 0, width: 990 - BADGE_LOGO_BADGE.left, height: BADGE_LOGO_BADGE.bottom };
    const stored = await evidence(await edit.scale(await edit.crop(logo, cut), 600 / 686));
    // A quarter of the logo: 100 px of ground left of the badge, 200 above it, and the badge's top half.
    const quarter = await evidence(await edit.jpeg(await edit.crop(logo, { left: 0, top: 100, width: 520, height: 343 }), 85));
    // With the ground taken off both sides, what is left is the badge's top, a strip too plain to place.
    expect(await confirmPlacedCrop(quarter, stored, {}, insideGround)).not.toBeNull();
  });

  it('confirms an upright crop of a fine crossed lattice whose colours decorrelate a pixel off, once settled, and no crop in lattices of other glazes', async () => {
    const storedAt600 = async (rgb: RgbImage) => {
      const stored = await edit.scale(rgb, 600 / rgb.height);
      return { rgb: await edit.scale(stored, 0.5), features: (await evidence(stored)).features };
    };
    const wall = await crossedTiles(36);
    const turned = await edit.jpeg(await edit.scale(await edit.rotate(await edit.crop(wall, edit.cropBox(wall, 0.5, 0.6, 0.5)), 20), 0.72), 40);
    const upright = (await uprightEvidence(turned, toGray(turned)))!;
    expect(await confirmPlacedCrop(upright, await storedAt600(wall), UPRIGHT_CHECK)).not.toBeNull();
    // Lattices of other tile sizes are left out: a crop of a uniform lattice is a crop of any of them at another scale.
    for (const other of [await crossedTiles(36, 'hsl(100,45%,60%)'), await crossedTiles(36, 'hsl(200,45%,60%)')]) {
      expect(await confirmPlacedCrop(upright, await storedAt600(other), UPRIGHT_CHECK)).toBeNull();
    }
  });

  it('places a crop that kept the flat sky its collection image lost to the border cut, once its flat bands are off', async () => {
    const landscape = await flatLandscape();
    // The stored copy: the landscape without its flat top rows, as ingest's border cut leaves it.
    const stored = await evidence(await edit.crop(landscape, { left: 0, top: FLAT_LANDSCAPE_SKY, width: 800, height: 600 - FLAT_LANDSCAPE_SKY }));
    // Its left part with the sky: flat rows over a third of the crop, more than a border cut takes off.
    const crop = await evidence(await edit.jpeg(await edit.crop(landscape, { left: 40, top: 0, width: 560, height: 420 }), 90));
    expect(await confirmPlacedCrop(crop, stored)).toBeNull();
    const match = await confirmPlacedCrop(crop, stored, {}, insideGround);
    expect(match).not.toBeNull();
    expect(match!.score).toBeLessThanOrEqual(DEFAULT_MIN_SCORE);
    // Told in the frames of the whole crop and of the stored copy: the crop's top 120 of 420 rows lie above the copy,
    // and the crop covers its columns 40-600 of 800 and its rows 0-300 of 480.
    const near = (actual: number, expected: number) => expect(Math.abs(actual - expected)).toBeLessThan(2);
    near(match!.query_match_rect.top, (100 * FLAT_LANDSCAPE_SKY) / 420);
    near(match!.query_match_rect.bottom, 100);
    const rect = match!.target_match_rect;
    near(rect.left, 5);
    near(rect.right, 75);
    near(rect.top, 0);
    near(rect.bottom, (100 * (420 - FLAT_LANDSCAPE_SKY)) / 480);
  });
});

describe('which collection images can hold a placement\'s colours', () => {
  /** A collection image as a search reads it: its stored copy's colour shares and frame. */
  const storedColours = (rgb: RgbImage) => ({ shares: colourShares(rgb), frame: { width: rgb.width, height: rgb.height } });

  it('holds crops of an image in that image, and refuses images of other colours, which would not confirm them', async () => {
    const images = [await smoothWallpaper(1), await smoothWallpaper(2), await softBlobs(1), await glazedTiles(1, 40), await linearGradient(['hsl(200,60%,14%)', 'hsl(175,38%,44%)', 'hsl(195,55%,22%)'])];
    const stored = await Promise.all(images.map(async (rgb) => ({ rgb: await edit.scale(rgb, 0.375), features: (await evidence(rgb)).features })));
    let refused = 0;
    for (const [i, image] of images.entries()) {
      for (const [area, x, y] of [[0.25, 0.1, 0.9], [0.5, 0.7, 0.3]] as const) {
        const copy = await evidence(await edit.jpeg(await edit.scale(await edit.crop(image, edit.cropBox(image, area, x, y)), 0.5), 30));
        const colours = placedColours(copy.rgb);
        for (const [j, target] of stored.entries()) {
          const { shares, frame } = storedColours(target.rgb);
          const held = mayHoldPlacement(colours, shares, frame);
          if (i === j) expect(held, `a ${area} crop of image ${i} in its own image`).toBe(true);
          else if (!held) {
            refused++;
            expect(await confirmPlacedCrop(copy, target), `a ${area} crop of image ${i} refused in image ${j}`).toBeNull();
          }
        }
      }
    }
    // Of the 40 pairs of a crop and another image, a quarter at least: those of other palettes.
    expect(refused).toBeGreaterThanOrEqual(10);
  });

  it('holds a crop whose flat band its image lost to the border cut by the crop\'s content inside the band, and refuses it otherwise', async () => {
    const scene = await syntheticImage(3);
    const band = { r: 27, g: 45, b: 152 };
    // The scene under a flat band of a colour it lacks; the collection image is the scene, which the border cut left.
    const withBand = new Uint8Array(scene.data.length + scene.width * 200 * 3);
    for (let i = 0; i < scene.width * 200; i++) withBand.set([band.r, band.g, band.b], 3 * i);
    withBand.set(scene.data, scene.width * 200 * 3);
    const banded: RgbImage = { width: scene.width, height: scene.height + 200, data: withBand };
    const copy = await evidence(await edit.jpeg(await edit.crop(banded, { left: 100, top: 0, width: 500, height: 500 }), 80));
    const { shares, frame } = storedColours(scene);
    expect(mayHoldPlacement(placedColours(copy.rgb), shares, frame)).toBe(false);
    expect(mayHoldPlacement(placedColours(copy.rgb, insideGround), shares, frame)).toBe(true);
    expect(await confirmPlacedCrop(copy, await evidence(scene), {}, insideGround)).not.toBeNull();
  });
});
