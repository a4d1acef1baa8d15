import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { chromaDifference, confirmDenseFit, DENSE_CONFIRM_MIN, DENSE_MAX_CHROMA_DIFFERENCE, weakFitOptions } from './dense-confirm';
import { enhancedScore } from './enhanced-score';
import { extractFeatures } from './features';
import { seededRandom } from './random';
import { AlignedDetail, cellAgreement, confirmSharedDetail, edgesContradict, hueDifference, SHARED_DETAIL_MAX_CONTRADICTED, SHARED_DETAIL_MIN_EXPLAINED } from './shared-detail';
import { proposing } from './testing/fits';
import { toGray } from './testing/synthetic-images';
import * as edit from './testing/edits';
import type { MatchResult, RgbImage } from './types';
import { verifyMatch } from './verify';

/**
 * A logo of one design (the hard-copy benchmark's): a star, a name and a "since" tagline in one font, on a light ground.
 * Two of them differ in colours and name only.
 */
async function logo(hue: number, name: string): Promise<RgbImage> {
  const [width, height] = [1200, 800];
  const ink = `hsl(${hue + 150}, 65%, 40%)`;
  const accent = `hsl(${hue + 40}, 80%, 55%)`;
  const [cx, cy, s] = [300, 330, 340];
  const star = Array.from({ length: 10 }, (_, i) => {
    const r = i % 2 ? s * 0.22 : s / 2;
    const a = (i / 10) * 6.283 - 1.571;
    return `${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`;
  }).join(' ');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="${width}" height="${height}" fill="hsl(${hue}, 15%, 96%)"/>
    <polygon points="${star}" fill="${accent}" stroke="${ink}" stroke-width="${s * 0.03}"/>
    <text x="${cx + s * 0.7}" y="${cy + s * 0.15}" font-family="sans-serif" font-weight="bold" font-size="${s * 0.32}" fill="${ink}">${name}</text>
    <text x="${cx + s * 0.72}" y="${cy + s * 0.42}" font-family="sans-serif" font-size="${s * 0.12}" fill="${accent}">since 1950</text></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

const features = (rgb: RgbImage) => extractFeatures(toGray(rgb));

/** A star field (the astronomy photos' kind): fine points of light, which a blur erases, over a few soft nebulae. */
async function starField(seed: number): Promise<RgbImage> {
  const rnd = seededRandom(seed);
  const [width, height] = [1200, 800];
  let body = `<defs><filter id="soft"><feGaussianBlur stdDeviation="60"/></filter></defs><rect width="${width}" height="${height}" fill="#05060c"/>`;
  for (let i = 0; i < 6; i++) {
    body += `<ellipse cx="${rnd() * width}" cy="${rnd() * height}" rx="${120 + rnd() * 200}" ry="${80 + rnd() * 150}" fill="hsl(${rnd() * 360},60%,35%)" filter="url(#soft)"/>`;
  }
  for (let i = 0; i < 1500; i++) {
    body += `<circle cx="${rnd() * width}" cy="${rnd() * height}" r="${0.6 + rnd() * rnd() * 2.5}" fill="#fff" fill-opacity="${0.5 + rnd() * 0.5}"/>`;
  }
  const { data, info } = await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${body}</svg>`))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** A concentrated fit of the whole frame, the query on the collection image as it is (the identity). */
const concentratedIdentityFit = (): MatchResult => ({ ...proposing([1, 0, 0, 0, 1, 0, 0, 0, 1]), concentrated: true });

describe('shared details', () => {
  it('refuses another logo of the same design that verifies on the shared star and tagline, and keeps the copy', async () => {
    const [own, other] = await Promise.all([logo(200, 'Torbri'), logo(60, 'Mikaka')]);
    const query = await edit.jpeg(await edit.crop(own, edit.cropBox(own, 0.5, 0.35, 0.45)), 80);
    const [q, o, t] = await Promise.all([features(query), features(own), features(other)]);

    const shared = await verifyMatch(q, t);
    // The features alone take the other logo: many inliers, on the star and the tagline only.
    expect(shared).not.toBeNull();
    expect(shared!.concentrated).toBe(true);
    expect(hueDifference(query, other, shared!).degrees).toBeGreaterThan(12);
    expect(await confirmSharedDetail(query, other, shared!)).toBeNull();

    const copy = await verifyMatch(q, o);
    expect(copy).not.toBeNull();
    const confirmed = await confirmSharedDetail(query, own, copy!);
    expect(confirmed).not.toBeNull();
    expect(confirmed!.concentrated).toBeUndefined();
    expect(confirmed!.inliers).toBe(copy!.inliers);
  });

  it('keeps the dense second chance from taking back a shared design in other colours', async () => {
    const [own, other] = await Promise.all([logo(200, 'Torbri'), logo(60, 'Mikaka')]);
    const query = await edit.jpeg(await edit.crop(own, edit.cropBox(own, 0.5, 0.35, 0.45)), 80);
    const [q, t] = await Promise.all([features(query), features(other)]);
    const weak = await verifyMatch(q, t, weakFitOptions());
    expect(weak).not.toBeNull();
    // Gradients and chromaticity alone would confirm it: the star and tagline align, the light ground dominates.
    expect(await enhancedScore(query, other, weak!)).toBeGreaterThanOrEqual(DENSE_CONFIRM_MIN);
    expect(chromaDifference(query, other, weak!)).toBeLessThanOrEqual(DENSE_MAX_CHROMA_DIFFERENCE);
    expect(await confirmDenseFit(query, other, weak!)).toBeNull();
  });

  it('counts edges of the collection image the query lacks, not edges the query adds', () => {
    const [w, h] = [96, 96];
    const mask = new Uint8Array(w * h).fill(1);
    const edges = new Float32Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) edges[y * w + x] = (x + y) % 7 === 0 ? 40 : 0;
    const withBlock = (base: Float32Array) => {
      const out = Float32Array.from(base);
      for (let y = 48; y < 96; y++) for (let x = 48; x < 96; x++) out[y * w + x] = (x * 3 + y) % 5 === 0 ? 60 : 0;
      return out;
    };
    // The target has its own structure where the query has other edges: a quarter of the frame unexplained.
    const contradicted = cellAgreement(edges, withBlock(edges), mask, w, h);
    expect(contradicted.explained).toBeLessThan(0.8);
    expect(contradicted.contradicted).toBeGreaterThan(1);
    // The query has an overlay the target lacks (target flat there): nothing of the target is left unexplained.
    const flat = Float32Array.from(edges);
    for (let y = 48; y < 96; y++) for (let x = 48; x < 96; x++) flat[y * w + x] = 0;
    const overlay = cellAgreement(withBlock(flat), flat, mask, w, h);
    expect(overlay.explained).toBe(1);
    expect(overlay.contradicted).toBe(0);
  });

  it('keeps a blurred copy whose fine detail the blur erased, and still refuses another image at that blur', async () => {
    const [own, other] = await Promise.all([starField(1), starField(2)]);
    const blurred = await edit.blur(own, 8);
    const fit = concentratedIdentityFit();

    const copy = await AlignedDetail.of(blurred, own, fit);
    // At its own sharpness the collection image's stars are edges the blurred query lacks: the edges alone refuse it.
    expect(copy.evidence().explained).toBeLessThan(SHARED_DETAIL_MIN_EXPLAINED);
    expect(copy.evidence().contradicted).toBeGreaterThan(SHARED_DETAIL_MAX_CONTRADICTED);
    // Blurred as much as the query, they are its own.
    expect(copy.evidenceAtQuerySharpness().explained).toBeGreaterThan(0.9);
    expect(edgesContradict(copy)).toBe(false);
    expect(await confirmSharedDetail(blurred, own, fit)).not.toBeNull();

    expect(edgesContradict(await AlignedDetail.of(blurred, other, fit))).toBe(true);
    expect(await confirmSharedDetail(blurred, other, fit)).toBeNull();
  });
});
