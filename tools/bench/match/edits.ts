/**
 * Query edits of the matching benchmark: what a phone, an editor or a re-upload does to a collection picture. Each
 * edit works on the collection image's bytes (the ingested copy, longer side <= 1600 px) and returns the query bytes
 * plus, when the edit keeps a known part of the picture, the ground-truth box in PERCENT of the original.
 */
import { seededRandom } from '@loupe/fingerprint';
import { tilt } from '@loupe/fingerprint/src/testing/edits';
import sharp, { type Sharp } from 'sharp';

export interface Rect {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export interface EditOutput {
  data: Buffer;
  /** The region of the original the query shows, in percent of the original (for rectangle IoU). */
  truth?: Rect;
}

export interface Edit {
  name: string;
  /** Group the targets are stated for: the ">= 99 %" edits. */
  strict: boolean;
  /** Searched with check_horizontal_flip. */
  flip?: boolean;
  apply(data: Buffer, width: number, height: number, rnd: () => number): Promise<EditOutput>;
}

/** Seeded generator (mulberry32), shared with the tests. */
export { seededRandom as mulberry32 };

/** Query upload encoding for the edits that do not set their own: what a phone or browser would send. */
const QUERY_QUALITY = 90;
const GREY = { r: 128, g: 128, b: 128 };

const jpeg = (s: Sharp, quality = QUERY_QUALITY) => s.jpeg({ quality }).toBuffer();

function cropBox(width: number, height: number, area: number, rnd: () => number) {
  const side = Math.sqrt(area);
  const w = Math.round(width * side);
  const h = Math.round(height * side);
  const left = Math.round((width - w) * rnd());
  const top = Math.round((height - h) * rnd());
  return { box: { left, top, width: w, height: h }, truth: { left: (100 * left) / width, right: (100 * (left + w)) / width, top: (100 * top) / height, bottom: (100 * (top + h)) / height } };
}

function crop(area: number): Edit['apply'] {
  return async (data, width, height, rnd) => {
    const { box, truth } = cropBox(width, height, area, rnd);
    return { data: await jpeg(sharp(data).extract(box)), truth };
  };
}

const scale = (f: number): Edit['apply'] => async (data, width) => ({ data: await jpeg(sharp(data).resize(Math.round(width * f))) });
const rotate = (deg: number): Edit['apply'] => async (data) => ({ data: await jpeg(sharp(data).rotate(deg, { background: GREY })) });
const quality = (q: number): Edit['apply'] => async (data) => ({ data: await jpeg(sharp(data), q) });
const linear = (a: number): Edit['apply'] => async (data) => ({ data: await jpeg(sharp(data).linear(a, 128 * (1 - a))) });

async function noise(data: Buffer, sigma: number, rnd: () => number): Promise<Buffer> {
  const { data: px, info } = await sharp(data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  for (let i = 0; i < px.length; i += 2) {
    // Box-Muller: two normal samples per pair of uniforms.
    const r = Math.sqrt(-2 * Math.log(rnd() + 1e-12));
    const t = 2 * Math.PI * rnd();
    px[i] = Math.max(0, Math.min(255, px[i] + sigma * r * Math.cos(t)));
    if (i + 1 < px.length) px[i + 1] = Math.max(0, Math.min(255, px[i + 1] + sigma * r * Math.sin(t)));
  }
  return jpeg(sharp(px, { raw: { width: info.width, height: info.height, channels: 3 } }));
}

function textSvg(width: number, height: number, text: string): Buffer {
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <text x="${width * 0.08}" y="${height * 0.56}" font-family="sans-serif" font-weight="bold" font-size="${height / 7}" fill="#ffffff" stroke="#000000" stroke-width="${Math.max(2, height / 300)}">${text}</text></svg>`);
}

/** A corner logo covering ~1/4 of the width: a badge with a ring and two words. */
function logoSvg(width: number, height: number): Buffer {
  const s = Math.round(width * 0.25);
  const x = width - s - Math.round(width * 0.04);
  const y = Math.round(height * 0.05);
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect x="${x}" y="${y}" width="${s}" height="${s * 0.45}" rx="${s * 0.06}" fill="#1d3557" fill-opacity="0.85"/>
    <circle cx="${x + s * 0.2}" cy="${y + s * 0.225}" r="${s * 0.14}" fill="none" stroke="#f1c40f" stroke-width="${s * 0.03}"/>
    <text x="${x + s * 0.38}" y="${y + s * 0.28}" font-family="sans-serif" font-weight="bold" font-size="${s * 0.14}" fill="#ffffff">ACME Co</text></svg>`);
}

export const EDITS: Edit[] = [
  { name: 'crop 25 %', strict: false, apply: crop(0.25) },
  { name: 'crop 50 %', strict: true, apply: crop(0.5) },
  { name: 'crop 75 %', strict: true, apply: crop(0.75) },
  { name: 'scale 0.2x', strict: true, apply: scale(0.2) },
  { name: 'scale 0.5x', strict: true, apply: scale(0.5) },
  { name: 'scale 2x', strict: true, apply: scale(2) },
  { name: 'rotate 90°', strict: false, apply: rotate(90) },
  { name: 'rotate 180°', strict: false, apply: rotate(180) },
  { name: 'rotate +15°', strict: true, apply: rotate(15) },
  { name: 'rotate -15°', strict: true, apply: rotate(-15) },
  { name: 'rotate +30°', strict: false, apply: rotate(30) },
  { name: 'rotate -30°', strict: false, apply: rotate(-30) },
  { name: 'flip (check_horizontal_flip)', strict: true, flip: true, apply: async (d) => ({ data: await jpeg(sharp(d).flop()) }) },
  { name: 'JPEG q10', strict: true, apply: quality(10) },
  { name: 'JPEG q20', strict: true, apply: quality(20) },
  { name: 'JPEG q30', strict: true, apply: quality(30) },
  { name: 'brightness +30 %', strict: false, apply: async (d) => ({ data: await jpeg(sharp(d).modulate({ brightness: 1.3 })) }) },
  { name: 'brightness -30 %', strict: false, apply: async (d) => ({ data: await jpeg(sharp(d).modulate({ brightness: 0.7 })) }) },
  { name: 'contrast +40 %', strict: false, apply: linear(1.4) },
  { name: 'contrast -40 %', strict: false, apply: linear(0.6) },
  { name: 'saturation 0.3x', strict: false, apply: async (d) => ({ data: await jpeg(sharp(d).modulate({ saturation: 0.3 })) }) },
  { name: 'blur σ4 px (≈1.5 at 600 px)', strict: false, apply: async (d) => ({ data: await jpeg(sharp(d).blur(4)) }) },
  { name: 'noise σ20', strict: false, apply: async (d, _w, _h, rnd) => ({ data: await noise(d, 20, rnd) }) },
  { name: 'text overlay', strict: false, apply: async (d, w, h) => ({ data: await jpeg(sharp(d).composite([{ input: textSvg(w, h, 'SALE -50%') }])) }) },
  { name: 'logo overlay', strict: false, apply: async (d, w, h) => ({ data: await jpeg(sharp(d).composite([{ input: logoSvg(w, h) }])) }) },
  {
    name: 'border 8 %',
    strict: false,
    apply: async (d, w) => {
      const px = Math.round(w * 0.08);
      return { data: await jpeg(sharp(d).extend({ top: px, bottom: px, left: px, right: px, background: '#ffffff' })) };
    },
  },
  {
    name: 'perspective tilt 20 %',
    strict: false,
    apply: async (d) => {
      const { data, info } = await sharp(d).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const out = await tilt({ data: new Uint8Array(data), width: info.width, height: info.height }, 0.2);
      return { data: await jpeg(sharp(Buffer.from(out.data), { raw: { width: out.width, height: out.height, channels: 3 } })) };
    },
  },
  {
    name: 'combo: crop 60 % + 0.5x + rotate 15° + JPEG q30',
    strict: false,
    apply: async (d, w, h, rnd) => {
      const { box, truth } = cropBox(w, h, 0.6, rnd);
      const cropped = await sharp(d).extract(box).toBuffer();
      const small = await sharp(cropped).resize(Math.round(box.width * 0.5)).toBuffer();
      return { data: await jpeg(sharp(small).rotate(15, { background: GREY }), 30), truth };
    },
  },
  {
    name: 'combo: brightness +20 % + blur σ2 + text + JPEG q40',
    strict: false,
    apply: async (d, w, h) => {
      const lit = await sharp(d).modulate({ brightness: 1.2 }).blur(2).toBuffer();
      return { data: await jpeg(sharp(lit).composite([{ input: textSvg(w, h, 'NEW!') }]), 40) };
    },
  },
];

/** Edits applied to held-out photos for the false-positive rate. */
export const FPR_EDITS: string[] = ['scale 0.5x', 'crop 50 %', 'rotate +15°', 'JPEG q30', 'text overlay'];

/**
 * Edits of the hard-copy families (families.ts, issue 15): the crops and rotations that failed on patterns, smooth
 * artwork and logos, and their combinations with recompression.
 */
export const FAMILY_EDITS: Edit[] = [
  { name: 'crop 25 %', strict: false, apply: crop(0.25) },
  { name: 'crop 50 %', strict: false, apply: crop(0.5) },
  { name: 'rotate +20°', strict: false, apply: rotate(20) },
  { name: 'rotate -20°', strict: false, apply: rotate(-20) },
  { name: 'scale 0.5x + JPEG q30', strict: false, apply: async (d, w) => ({ data: await jpeg(sharp(d).resize(Math.round(w * 0.5)), 30) }) },
  {
    name: 'combo: crop 50 % + rotate 20° + JPEG q40',
    strict: false,
    apply: async (d, w, h, rnd) => {
      const { box, truth } = cropBox(w, h, 0.5, rnd);
      return { data: await jpeg(sharp(await sharp(d).extract(box).toBuffer()).rotate(20, { background: GREY }), 40), truth };
    },
  },
  {
    name: 'combo: crop 25 % + rotate -20° + JPEG q50',
    strict: false,
    apply: async (d, w, h, rnd) => {
      const { box, truth } = cropBox(w, h, 0.25, rnd);
      return { data: await jpeg(sharp(await sharp(d).extract(box).toBuffer()).rotate(-20, { background: GREY }), 50), truth };
    },
  },
];

/** Edits applied to the families' non-collection images for their false-positive rate. */
export const FAMILY_FPR_EDITS: string[] = ['crop 25 %', 'crop 50 %', 'rotate +20°'];
