import { describe, expect, it } from 'vitest';
import { colourLikeness, colourNotHeld, colourOverlap, colourSet, colourSetOfShares, colourShares, decodeColourShares, encodeColourShares } from './colour-set';
import * as edit from './testing/edits';
import type { RgbImage } from './types';
import { linearGradient, smoothWallpaper, softBlobs, syntheticImage } from './testing/synthetic-images';

const bits = (set: bigint) => set.toString(2).split('').filter((b) => b === '1').length;

describe('colour set', () => {
  it('keeps a crop of a smooth image nearer its image than other smooth images and a busy scene', async () => {
    const images = [await softBlobs(1), await softBlobs(2), await softBlobs(3), await smoothWallpaper(1), await smoothWallpaper(2), await syntheticImage(1)];
    const sets = images.map(colourSet);
    // A busy scene has so many colours that a quarter of it lacks most of them: it is a distractor only.
    for (const [i, image] of images.slice(0, 5).entries()) {
      for (const [area, x, y] of [[0.25, 0.1, 0.9], [0.25, 0.8, 0.2], [0.5, 0.5, 0.5]] as const) {
        const copy = await edit.jpeg(await edit.crop(image, edit.cropBox(image, area, x, y)), 60);
        const likeness = sets.map((set) => colourLikeness(colourSet(copy), set));
        const nearest = likeness.indexOf(Math.max(...likeness));
        expect(nearest, `crop ${area} at ${x},${y} of image ${i}: likeness ${likeness.map((l) => l.toFixed(2)).join(' ')}`).toBe(i);
      }
    }
  });

  it('ranks an image holding all of a crop\'s colours and more above one lacking one of them', () => {
    const crop = 0b1111n;
    const itsImage = 0b111_1111n;
    const other = 0b1_0111n;
    // Jaccard's likeness would rank them the other way round: 4 / 7 against 3 / 5.
    expect(colourLikeness(crop, itsImage)).toBeCloseTo(4 / 5.5);
    expect(colourLikeness(crop, other)).toBeCloseTo(3 / 4.5);
    expect(colourLikeness(crop, itsImage)).toBeGreaterThan(colourLikeness(crop, other));
  });

  it('holds the colours that cover at least a percent of the image, and nothing for a grey ramp\'s missing hues', async () => {
    const ramp = await linearGradient(['#000000', '#ffffff'], 1, 0);
    // Eight grey bins by lightness, none of the coloured ones.
    expect(colourSet(ramp)).toBe(0xffn);
    const redHalf = await linearGradient(['#ff0000', '#ff0000', '#000000', '#000000'], 1, 0);
    expect(bits(colourSet(redHalf))).toBeLessThanOrEqual(4);
  });

  it('measures likeness as shared bins over those, the query\'s own and half the image\'s own', () => {
    expect(colourLikeness(0b1111n, 0b1111n)).toBe(1);
    // One bin each way: the query's own counts 1, the image's own IMAGE_ONLY_COLOUR_WEIGHT (0.5).
    expect(colourLikeness(0b1100n, 0b0110n)).toBeCloseTo(1 / 2.5);
    expect(colourLikeness(1n << 63n, (1n << 63n) | 1n)).toBeCloseTo(1 / 1.5);
    expect(colourLikeness((1n << 63n) | 1n, 1n << 63n)).toBe(0.5);
    expect(colourLikeness(0n, 0n)).toBe(0);
  });

  it('gives the shares of its bins, whose set is the image\'s, and whose mix keeps only what covers a percent of the mix', async () => {
    const images = [await softBlobs(1), await smoothWallpaper(2), await syntheticImage(1), await linearGradient(['#000000', '#ffffff'], 1, 0)];
    for (const image of images) {
      const shares = colourShares(image);
      expect(shares.reduce((t, s) => t + s, 0)).toBeCloseTo(1);
      expect(colourSetOfShares(shares)).toBe(colourSet(image));
    }
    // An even mix of a grey ramp and a coloured scene: a colour bin holding 1-2 % of the scene holds under 1 % of the mix
    // and is out of its set; one holding 2 % or more stays in. A union of the two sets would keep both.
    const ramp = colourShares(images[3]);
    const scene = colourShares(images[2]);
    const mixed = colourSetOfShares(ramp.map((share, bin) => (share + scene[bin]) / 2));
    const has = (set: bigint, bin: number) => ((set >> BigInt(bin)) & 1n) === 1n;
    const colourBins = Array.from({ length: 56 }, (_, i) => i + 8);
    const diluted = colourBins.filter((bin) => scene[bin] >= 0.01 && scene[bin] < 0.02);
    const kept = colourBins.filter((bin) => scene[bin] >= 0.02);
    expect(diluted.length).toBeGreaterThan(0);
    expect(kept.length).toBeGreaterThan(0);
    for (const bin of diluted) expect(has(colourSet(images[2]), bin) && !has(mixed, bin), `bin ${bin}`).toBe(true);
    for (const bin of kept) expect(has(mixed, bin), `bin ${bin}`).toBe(true);
  });

  it('ranks a copy with a logo pasted on nearer its image by colour shares, where colour sets rank a collage holding all its bins nearer', async () => {
    const logo = await syntheticImage(5);
    let setsMisranked = 0;
    for (const image of [await softBlobs(1), await softBlobs(2), await smoothWallpaper(1), await smoothWallpaper(2)]) {
      const small = await edit.scale(logo, (0.3 * image.width) / logo.width);
      const copy = await edit.jpeg(await edit.pasteInto(image, small, Math.round(image.width * 0.6), Math.round(image.height * 0.55)), 70);
      // The image with the logo's picture over a fifth of it: every colour bin of the copy, in other amounts.
      const large = await edit.scale(logo, (0.45 * image.width) / logo.width);
      const collage = await edit.jpeg(await edit.pasteInto(image, large, Math.round(image.width * 0.2), Math.round(image.height * 0.1)), 90);
      const stored = (img: RgbImage) => decodeColourShares(encodeColourShares(colourShares(img)));
      const shares = colourShares(copy);
      expect(colourOverlap(shares, stored(image))).toBeGreaterThan(colourOverlap(shares, stored(collage)) + 0.05);
      if (colourLikeness(colourSet(copy), colourSet(collage)) > colourLikeness(colourSet(copy), colourSet(image))) setsMisranked++;
    }
    // What the shares are for: by sets, the copy lacks none of the collage's bins but several of its image's.
    expect(setsMisranked).toBeGreaterThan(0);
  });

  it('stores colour shares in 64 bytes, small shares most precisely', () => {
    const shares = Float64Array.from({ length: 64 }, (_, bin) => (bin < 32 ? 0.001 * bin : 0));
    shares[40] = 0.5;
    const restored = decodeColourShares(encodeColourShares(shares));
    expect(encodeColourShares(shares)).toHaveLength(64);
    for (let bin = 0; bin < 64; bin++) expect(Math.abs(restored[bin] - shares[bin])).toBeLessThanOrEqual(Math.sqrt(shares[bin]) / 255 + 1e-5);
    expect(Math.abs(colourOverlap(shares, restored) - colourOverlap(shares, shares))).toBeLessThan(0.01);
    expect(() => decodeColourShares(new Uint8Array(63))).toThrow(/Not stored colour shares/);
  });

  it('holds a query\'s colour by the image\'s shares of its bin and the bins next to it, over the least area a copy covers', async () => {
    const shares = (entries: Array<[number, number]>) => {
      const out = new Float64Array(64);
      for (const [bin, share] of entries) out[bin] = share;
      return out;
    };
    // A mid-lightness colour (hue sector 9, lightness 1) moved a lightness bin up in the image.
    const query = shares([[8 + 9 * 4 + 1, 1]]);
    const movedUp = shares([[8 + 9 * 4 + 2, 0.16], [0, 0.84]]);
    expect(colourNotHeld(query, movedUp, 0.16)).toBeCloseTo(0);
    // As a copy of at least half the image, the image's 16 % hold a third of it.
    expect(colourNotHeld(query, movedUp, 0.5)).toBeCloseTo(1 - 0.16 / 0.5);
    // Two hue sectors away, nothing of it.
    expect(colourNotHeld(query, shares([[8 + 11 * 4 + 1, 1]]), 0.16)).toBe(1);
    // A JPEG copy of a quarter of a wallpaper is held by it all but its fringes.
    const wallpaper = await smoothWallpaper(3);
    const quarter = await edit.jpeg(await edit.crop(wallpaper, edit.cropBox(wallpaper, 0.25, 0.2, 0.7)), 30);
    expect(colourNotHeld(colourShares(quarter), colourShares(wallpaper), 0.16)).toBeLessThan(0.01);
  });
});
