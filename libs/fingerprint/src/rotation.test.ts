import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { confirmUpright, confirmWholeImage, UPRIGHT_CHECK } from './dense-confirm';
import { extractFeatures } from './features';
import { applyHomography } from './geometry';
import { derotate, dominantRotation, fillEdgeRotation, matchInRotatedFrame, uprightCopy, uprightEvidence } from './rotation';
import * as edit from './testing/edits';
import { softBlobs, smoothWallpaper, toGray } from './testing/synthetic-images';
import { cropRgb } from './rgb';
import type { RgbImage } from './types';

/** A wall of square tiles with grout: straight edges along the axes only. */
async function tileWall(width: number, height: number): Promise<RgbImage> {
  const parts = [`<rect width="${width}" height="${height}" fill="#e8e4dc"/>`];
  for (let y = 0; y < height; y += 40) {
    for (let x = 0; x < width; x += 40) parts.push(`<rect x="${x}" y="${y}" width="36" height="36" fill="${(x + y) % 80 ? '#3b7fa8' : '#a8553b'}"/>`);
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${parts.join('')}</svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** Dark stripes across a light ground, turned `degrees` off the axes: straight edges of one direction, not the frame's. */
async function stripes(width: number, height: number, degrees: number): Promise<RgbImage> {
  const span = 2 * Math.max(width, height);
  const bands = Array.from({ length: span / 24 }, (_, i) => `<rect x="${i * 24 - span / 2}" y="${-span / 2}" width="11" height="${2 * span}" fill="#2d3a55"/>`);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" fill="#efe6cf"/><g transform="translate(${width / 2} ${height / 2}) rotate(${degrees})">${bands.join('')}</g></svg>`;
  return edit.toRgb(sharp(Buffer.from(svg)));
}

/** Mean absolute difference of the grey pixels of two images of about the same size, over their central half. */
function centralDifference(a: RgbImage, b: RgbImage): number {
  const [ga, gb] = [toGray(a), toGray(b)];
  let sum = 0;
  let n = 0;
  for (let y = Math.round(a.height / 4); y < Math.round((3 * a.height) / 4); y++) {
    for (let x = Math.round(a.width / 4); x < Math.round((3 * a.width) / 4); x++) {
      const xb = Math.round((x * b.width) / a.width);
      const yb = Math.round((y * b.height) / a.height);
      sum += Math.abs(ga.data[y * a.width + x] - gb.data[yb * b.width + xb]);
      n++;
    }
  }
  return sum / n;
}

describe('rotated copies', () => {
  it('reads the rotation of a tile wall turned either way, and finds none in the upright wall', async () => {
    const wall = await tileWall(720, 480);
    expect(uprightCopy(wall, toGray(wall))).toBeNull();
    for (const degrees of [20, -20, 12]) {
      const turned = await edit.jpeg(await edit.rotate(wall, degrees), 50);
      const rotation = dominantRotation(toGray(turned));
      expect(Math.abs(rotation.angle - degrees)).toBeLessThan(1);
      expect(rotation.strength).toBeGreaterThan(2);
    }
  });

  it('reads the rotation of a canvas off the edges of its filled corners, where the image\'s own edges point elsewhere', async () => {
    const pattern = await stripes(720, 480, 10);
    for (const degrees of [-20, 20, 30]) {
      const turned = await edit.jpeg(await edit.rotate(pattern, degrees), 40);
      const gray = toGray(turned);
      // The stripes outweigh the canvas edges in the whole image's orientations.
      expect(Math.abs(dominantRotation(gray).angle - degrees)).toBeGreaterThan(3);
      expect(fillEdgeRotation(turned)!.angle).toBeCloseTo(degrees, 0);
      expect(uprightCopy(turned, gray)!.angle).toBeCloseTo(degrees, 0);
    }
    // No filled corners: the stripes' own direction is all there is to read, and it is not the canvas's.
    expect(fillEdgeRotation(pattern)).toBeNull();
    // Corners of one colour around content that does not reach them in straight edges (a disc on white): none either.
    const disc = await edit.toRgb(sharp(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400"><rect width="600" height="400" fill="#fff"/><circle cx="300" cy="200" r="170" fill="#c0392b"/></svg>')));
    expect(fillEdgeRotation(disc)).toBeNull();
  });

  it('reads the rotation of a canvas whose fill is as grey as the image, by its colours, and to a tenth of a degree', async () => {
    // Grain of orange and brown turned 10° of its own: 122-142 in grey, within a few levels of the grey fill (128), and
    // 40-90 levels off it in red or blue.
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="720" height="480"><rect width="720" height="480" fill="#d07a4a"/><g transform="translate(360 240) rotate(10)">${Array.from({ length: 60 }, (_, i) => `<rect x="${i * 26 - 780}" y="-800" width="9" height="1600" fill="#b86a30"/>`).join('')}</g></svg>`;
    const grain = await edit.toRgb(sharp(Buffer.from(svg)));
    for (const degrees of [20, -20, 27]) {
      const turned = await edit.jpeg(await edit.rotate(grain, degrees), 40);
      expect(Math.abs(fillEdgeRotation(turned)!.angle - degrees)).toBeLessThan(0.2);
      expect(uprightCopy(turned, toGray(turned))!.onFilledCanvas).toBe(true);
    }
  });

  it('tells whether it read the rotation off a filled canvas or off the image\'s own edges', async () => {
    const turned = await edit.rotate(await tileWall(720, 480), 20);
    const onCanvas = uprightCopy(turned, toGray(turned))!;
    expect(Math.abs(onCanvas.angle - 20)).toBeLessThan(1);
    expect(onCanvas.onFilledCanvas).toBe(true);
    // Inside the rotated wall no corner is filled: the tiles' own edges tell the rotation.
    const inside = cropRgb(turned, { left: 250, top: 200, right: turned.width - 250, bottom: turned.height - 200 });
    const fromEdges = uprightCopy(inside, toGray(inside))!;
    expect(Math.abs(fromEdges.angle - 20)).toBeLessThan(1);
    expect(fromEdges.onFilledCanvas).toBe(false);
  });

  it('turns a rotated canvas back to the original frame, without the filled corners', async () => {
    const wallpaper = await smoothWallpaper(7);
    const turned = await edit.rotate(wallpaper, 20);
    const upright = derotate(turned, 20)!;
    expect(Math.abs(upright.rgb.width - wallpaper.width)).toBeLessThanOrEqual(3);
    expect(Math.abs(upright.rgb.height - wallpaper.height)).toBeLessThanOrEqual(3);
    // Turned back the wrong way, the same image is far from the original.
    expect(centralDifference(upright.rgb, wallpaper)).toBeLessThan(4);
    expect(centralDifference(derotate(turned, -20)!.rgb, wallpaper)).toBeGreaterThan(10);
  });

  it('cuts the upright copy to the content box it is given, its map to the rotated image moved with the cut', async () => {
    const turned = await edit.rotate(await smoothWallpaper(7), 20);
    const gray = toGray(turned);
    const whole = uprightCopy(turned, gray)!;
    const box = { left: 12, top: 5, right: whole.rgb.width - 20, bottom: whole.rgb.height - 7 };
    const cut = (await uprightEvidence(turned, gray, false, () => box))!;
    expect([cut.rgb.width, cut.rgb.height]).toEqual([whole.rgb.width - 32, whole.rgb.height - 12]);
    const [x, y] = [40, 30];
    expect(cut.rgb.data.subarray(3 * (y * cut.rgb.width + x), 3 * (y * cut.rgb.width + x) + 3)).toEqual(
      whole.rgb.data.subarray(3 * ((y + 5) * whole.rgb.width + x + 12), 3 * ((y + 5) * whole.rgb.width + x + 12) + 3),
    );
    const [a, b] = [applyHomography(cut.toRotated, x, y), applyHomography(whole.toRotated, x + 12, y + 5)];
    expect(a[0]).toBeCloseTo(b[0], 9);
    expect(a[1]).toBeCloseTo(b[1], 9);
    expect(cut.features.width).toBe(cut.rgb.width);
    const uncut = (await uprightEvidence(turned, gray, false, () => ({ left: 0, top: 0, right: whole.rgb.width, bottom: whole.rgb.height })))!;
    expect([uncut.rgb.width, uncut.rgb.height, uncut.toRotated]).toEqual([whole.rgb.width, whole.rgb.height, whole.toRotated]);
  });

  it('tells a match of the upright image in the rotated query frame', async () => {
    const wallpaper = await smoothWallpaper(11);
    const turned = await edit.rotate(wallpaper, -20);
    const upright = uprightCopy(turned, toGray(turned))!;
    expect(Math.abs(upright.angle + 20)).toBeLessThan(1);
    const [target, query, uprightQuery] = await Promise.all([
      extractFeatures(toGray(wallpaper)),
      extractFeatures(toGray(turned)),
      extractFeatures(upright.gray),
    ]);
    // Upright, the copy is the whole collection image again, which the whole-image check confirms.
    const whole = await confirmWholeImage({ rgb: upright.rgb, features: uprightQuery }, { rgb: wallpaper, features: target }, false);
    expect(whole).not.toBeNull();
    const inQuery = matchInRotatedFrame(whole!, upright.toRotated, query, target);
    expect((Math.atan2(inQuery.transform[3], inQuery.transform[0]) * 180) / Math.PI).toBeCloseTo(upright.angle, 3);
    expect(inQuery.target_overlap_percent).toBeGreaterThan(97);
    // The rotated canvas is larger than the image it holds: the image covers part of the query, centred.
    expect(inQuery.query_overlap_percent).toBeLessThan(75);
    expect((inQuery.query_match_rect.left + inQuery.query_match_rect.right) / 2).toBeCloseTo(50, 0);
    expect(inQuery.score).toBe(whole!.score);
  });

  it('confirms a rotated copy upright, but not the same design in other colours, which the dense check alone would take', async () => {
    const original = await softBlobs(1);
    const target = { rgb: original, features: await extractFeatures(toGray(original)) };
    const copy = await edit.jpeg(await edit.rotate(original, 20), 80);
    const evidence = async (rgb: RgbImage) => ({ rgb, features: await extractFeatures(toGray(rgb)) });
    expect(await confirmUpright(await evidence(copy), target)).not.toBeNull();

    const { data, info } = await sharp(Buffer.from(original.data), { raw: { width: original.width, height: original.height, channels: 3 } })
      .modulate({ hue: 20 })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const colourway = { data: new Uint8Array(data), width: info.width, height: info.height };
    const turnedColourway = await evidence(await edit.jpeg(await edit.rotate(colourway, 20), 80));
    expect(await confirmUpright(turnedColourway, target)).toBeNull();
    const upright = uprightCopy(turnedColourway.rgb, toGray(turnedColourway.rgb))!;
    const uprightEvidence = await evidence(upright.rgb);
    expect(await confirmWholeImage(uprightEvidence, target, false), 'the gradients and chromaticities agree').not.toBeNull();
    expect(await confirmWholeImage(uprightEvidence, target, false, UPRIGHT_CHECK)).toBeNull();
  });
});
