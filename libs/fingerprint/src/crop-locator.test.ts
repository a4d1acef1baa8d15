import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { finerThanCoarse, locateCrop, TEXTURE_SIDE_SCALE } from './crop-locator';
import { confirmPlacedCrop, UPRIGHT_CHECK } from './dense-confirm';
import { extractFeatures } from './features';
import { applyHomography } from './geometry';
import * as edit from './testing/edits';
import { linearGradient, ringTiles, smoothWallpaper, toGray, twillWeave } from './testing/synthetic-images';
import type { RgbImage } from './types';
import { DEFAULT_MIN_SCORE } from './verify';

async function evidence(rgb: RgbImage) {
  return { rgb, features: await extractFeatures(toGray(rgb)) };
}

/** A two-stop linear gradient, dark brown to pale sand: not a corner in it. */
const GRADIENT = ['hsl(30,70%,18%)', 'hsl(45,65%,70%)'];

describe('placing a crop by its pixels', () => {
  it('finds where a JPEG quarter of a smooth wallpaper lies in a half-size copy of it, to a few pixels', async () => {
    const original = await smoothWallpaper(1);
    const box = edit.cropBox(original, 0.25, 0.8, 0.3);
    const quarter = await edit.jpeg(await edit.crop(original, box), 50);
    const stored = await edit.scale(original, 0.5);
    const placement = (await locateCrop(toGray(quarter), toGray(stored)))!;
    // The crop's corners in the half-size copy, mapped into the query, land on the query's corners.
    const [x0, y0] = applyHomography(placement.transform, box.left / 2, box.top / 2);
    const [x1, y1] = applyHomography(placement.transform, (box.left + box.width) / 2, (box.top + box.height) / 2);
    for (const [found, expected] of [[x0, 0], [y0, 0], [x1, quarter.width], [y1, quarter.height]]) expect(Math.abs(found - expected)).toBeLessThan(0.03 * quarter.width);
    expect(placement.agreement).toBeGreaterThan(0.95);
  });

  it('places a crop of a plain gradient at its own size by its levels, where correlation finds the gradient at other sizes', async () => {
    // A crop of a linear gradient has no place along the gradient's lines of one colour (each place there holds the
    // same pixels), but its size and its place across them are its own: the size is what correlation gets wrong.
    const original = await linearGradient(GRADIENT);
    const quarter = await edit.jpeg(await edit.scale(await edit.crop(original, edit.cropBox(original, 0.25, 0.7, 0.4)), 1.5), 60);
    const stored = await edit.scale(original, 0.5);
    // Query pixels per stored pixel: the crop was enlarged 1.5 times, the stored copy halved.
    const trueScale = 3;
    const byCorrelation = (await locateCrop(toGray(quarter), toGray(stored), 'correlation'))!;
    const byLevels = (await locateCrop(toGray(quarter), toGray(stored), 'levels'))!;
    expect(Math.abs(byCorrelation.transform[0] / trueScale - 1)).toBeGreaterThan(0.1);
    expect(Math.abs(byLevels.transform[0] / trueScale - 1)).toBeLessThan(0.02);
    const match = await confirmPlacedCrop(await evidence(quarter), await evidence(original));
    expect(match).not.toBeNull();
    expect(match!.target_overlap_percent).toBeGreaterThan(23);
    expect(match!.target_overlap_percent).toBeLessThan(27);
  });

  it('confirms a crop of a plain gradient in no other gradient near its colours', async () => {
    const original = await linearGradient(GRADIENT);
    const quarter = await evidence(await edit.jpeg(await edit.crop(original, edit.cropBox(original, 0.25, 0.7, 0.4)), 60));
    const others = [
      await linearGradient(['hsl(40,70%,18%)', 'hsl(55,65%,70%)']),
      await linearGradient(['hsl(30,70%,24%)', 'hsl(45,65%,64%)']),
      await linearGradient(GRADIENT, 0.2, 1),
    ];
    for (const other of others) expect(await confirmPlacedCrop(quarter, await evidence(other))).toBeNull();
  });

  it('places nothing that cannot lie inside the collection image', async () => {
    const wide = await edit.scale(await smoothWallpaper(1), 0.5);
    const tall = await edit.crop(wide, { left: 0, top: 0, width: 30, height: wide.height });
    expect(await locateCrop(toGray(wide), toGray(tall))).toBeNull();
  });

  it('confirms crops of a smooth wallpaper and of a tile wall, scored below every feature match', async () => {
    const tiles = await ringTiles('hsl(195,60%,75%)', 'hsl(15,50%,30%)', 76);
    for (const original of [await smoothWallpaper(2), tiles]) {
      const crop = await evidence(await edit.jpeg(await edit.crop(original, edit.cropBox(original, 0.25, 0.2, 0.7)), 60));
      const match = (await confirmPlacedCrop(crop, await evidence(original)))!;
      expect(match).not.toBeNull();
      expect(match.score).toBeLessThan(DEFAULT_MIN_SCORE);
      expect(match.query_overlap_percent).toBeGreaterThan(95);
      expect(match.target_overlap_percent).toBeGreaterThan(20);
      expect(match.target_overlap_percent).toBeLessThan(32);
      expect(await confirmPlacedCrop(crop, await evidence(original), UPRIGHT_CHECK)).not.toBeNull();
    }
  });

  it('confirms a quarter of a fine tile lattice, whose rings a 48 px comparison would blur into one colour', async () => {
    // 24 px tiles: a quarter holds 25 across, two pixels each at 48 px wide.
    const lattice = await ringTiles('hsl(35,45%,62%)', 'hsl(225,45%,35%)', 24);
    const quarter = await evidence(await edit.jpeg(await edit.crop(lattice, edit.cropBox(lattice, 0.25, 0.3, 0.6)), 60));
    const match = await confirmPlacedCrop(quarter, await evidence(await edit.scale(lattice, 0.5)));
    expect(match).not.toBeNull();
    expect(match!.target_overlap_percent).toBeGreaterThan(20);
    expect(match!.target_overlap_percent).toBeLessThan(30);
    expect(await confirmPlacedCrop(quarter, await evidence(await ringTiles('hsl(35,45%,62%)', 'hsl(125,45%,35%)', 24)))).toBeNull();
  });

  it('places a quarter of a weave too fine for the coarse search at twice its sides', async () => {
    // A 3/3 twill of 12 px threads, stored as a search reads it (300 px high): at the coarse size a thread is a pixel.
    const weave = await twillWeave(12, 3, 1367, 854);
    const quarter = await edit.jpeg(await edit.crop(weave, edit.cropBox(weave, 0.25, 0.3, 0.6)), 60);
    const stored = await edit.scale(weave, 300 / 854);
    expect(await finerThanCoarse(toGray(quarter))).toBe(true);
    expect(await finerThanCoarse(toGray(await smoothWallpaper(1)))).toBe(false);
    expect(await locateCrop(toGray(quarter), toGray(stored))).toBeNull();
    const placed = (await locateCrop(toGray(quarter), toGray(stored), 'correlation', TEXTURE_SIDE_SCALE))!;
    expect(Math.abs((placed.transform[0] * 300) / 854 - 1)).toBeLessThan(0.03);
    const match = await confirmPlacedCrop(await evidence(quarter), await evidence(stored));
    expect(match).not.toBeNull();
    expect(match!.target_overlap_percent).toBeGreaterThan(22);
    expect(match!.target_overlap_percent).toBeLessThan(28);
  });

  it('places a crop of fine stripes whose width falls between two of the coarse sizes, where many periods decorrelate a few percent off', async () => {
    // Stripes of three colours every 28 px across 1,400 (4 px at the coarse search's twice sides): a crop of 0.526 of
    // the width holds 26 periods, and lies 3.5 % from the searched widths on either side (0.544 and 0.508 of the width
    // at 7 % steps).
    const bands = Array.from({ length: 50 }, (_, i) => `<rect x="${i * 28}" width="8" height="900" fill="#7a4fa0"/><rect x="${i * 28 + 8}" width="6" height="900" fill="#3f6fb8"/>`);
    const stripes = await edit.toRgb(sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="1400" height="900"><rect width="1400" height="900" fill="#22c46a"/>${bands.join('')}</svg>`)));
    const crop = await edit.jpeg(await edit.crop(stripes, { left: 301, top: 200, width: 736, height: 473 }), 60);
    const stored = await edit.scale(stripes, 300 / 900);
    const placed = (await locateCrop(toGray(crop), toGray(stored), 'correlation', TEXTURE_SIDE_SCALE))!;
    expect(placed).not.toBeNull();
    expect(Math.abs((placed.transform[0] * 300) / 900 - 1)).toBeLessThan(0.01);
    expect(await confirmPlacedCrop(await evidence(crop), await evidence(stored))).not.toBeNull();
  });

  it('confirms no crop in another smooth wallpaper or in tiles of other glazes', async () => {
    const query = await evidence(await edit.crop(await smoothWallpaper(1), edit.cropBox(await smoothWallpaper(1), 0.25)));
    for (const seed of [2, 3, 4, 5, 6]) expect(await confirmPlacedCrop(query, await evidence(await smoothWallpaper(seed)))).toBeNull();
    const tiles = await ringTiles('hsl(195,60%,75%)', 'hsl(15,50%,30%)', 76);
    const corner = await evidence(await edit.crop(tiles, edit.cropBox(tiles, 0.25, 1, 0)));
    expect(await confirmPlacedCrop(corner, await evidence(await ringTiles('hsl(40,60%,75%)', 'hsl(220,50%,30%)', 76)))).toBeNull();
  });
});

describe("the query's templates, kept between its placements", () => {
  it('places a query as it would alone whatever was placed before, and never with the templates of another of its size', async () => {
    const original = await smoothWallpaper(3);
    const stored = toGray(await edit.scale(original, 0.5));
    // Three quarters of one size from three places: placing the third lets the first's templates go (two are kept).
    const boxes = [edit.cropBox(original, 0.25, 0.2, 0.3), edit.cropBox(original, 0.25, 0.8, 0.7), edit.cropBox(original, 0.25, 0.5, 0.1)];
    const quarters = await Promise.all(boxes.map(async (box) => toGray(await edit.jpeg(await edit.crop(original, box), 60))));
    expect(new Set(quarters.map((q) => `${q.width}x${q.height}`)).size).toBe(1);
    const alone = await locateCrop(quarters[0], stored);
    for (const [i, quarter] of quarters.entries()) {
      const placement = (await locateCrop(quarter, stored))!;
      // Each quarter's own corner in the half-size copy lands on the query's corner.
      const [x, y] = applyHomography(placement.transform, boxes[i].left / 2, boxes[i].top / 2);
      expect(Math.hypot(x, y)).toBeLessThan(0.05 * quarter.width);
    }
    expect(await locateCrop(quarters[0], stored)).toEqual(alone);
    await locateCrop(quarters[0], toGray(await edit.scale(original, 0.4)));
    await locateCrop(quarters[0], stored, 'levels');
    expect(await locateCrop(quarters[0], stored)).toEqual(alone);
  });
});
