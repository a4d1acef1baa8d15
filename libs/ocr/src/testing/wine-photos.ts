import sharp, { type OverlayOptions, type Sharp } from 'sharp';
import type { PixelBox } from '../types';
import { seededRandom as mulberry32 } from '@loupe/fingerprint';

/**
 * Wine labels with known fields, rendered from SVG, put on a bottle and photographed: the fixtures of the wine
 * service's end-to-end tests and of tools/bench/wine. Fonts are the generic families librsvg resolves here.
 */

export interface LabelSpec {
  producer: string;
  variety?: string;
  vintage?: number;
  region?: string;
  country?: string;
  /** Printed color words, e.g. "Red Wine", "Vin Rouge". */
  colorText?: string;
  /** Extra printed lines (terms, volume, alcohol). */
  extras?: string[];
  /** 0: centred classic, 1: left-aligned modern, 2: dark banner on top. */
  layout?: number;
  font?: 'serif' | 'sans-serif';
  paper?: string;
  ink?: string;
  accent?: string;
}

export const LABEL_WIDTH = 600;
export const LABEL_HEIGHT = 760;

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

interface Line {
  text: string;
  size: number;
  weight?: 'bold' | 'normal';
  italic?: boolean;
}

function labelLines(spec: LabelSpec): Line[] {
  const lines: Line[] = [{ text: spec.producer, size: 52, weight: 'bold' }];
  if (spec.region) lines.push({ text: spec.region, size: 40, italic: true });
  if (spec.vintage !== undefined) lines.push({ text: String(spec.vintage), size: 46, weight: 'bold' });
  if (spec.variety) lines.push({ text: spec.variety, size: 38 });
  if (spec.colorText) lines.push({ text: spec.colorText, size: 30 });
  for (const extra of spec.extras ?? []) lines.push({ text: extra, size: 26 });
  if (spec.country) lines.push({ text: `Product of ${spec.country}`, size: 26 });
  return lines;
}

/** The label alone, LABEL_WIDTH x LABEL_HEIGHT, as its printer made it. */
export function wineLabelSvg(spec: LabelSpec): string {
  const w = LABEL_WIDTH;
  const h = LABEL_HEIGHT;
  const layout = spec.layout ?? 0;
  const paper = spec.paper ?? '#f4ecd8';
  const ink = spec.ink ?? '#2b1d12';
  const accent = spec.accent ?? '#7b2d26';
  const family = spec.font === 'sans-serif' ? 'DejaVu Sans, sans-serif' : 'DejaVu Serif, serif';
  const lines = labelLines(spec);
  const top = layout === 2 ? 170 : 90;
  const step = (h - top - 50) / lines.length;
  const x = layout === 1 ? 60 : w / 2;
  const anchor = layout === 1 ? 'start' : 'middle';
  const parts: string[] = [`<rect width="100%" height="100%" fill="${paper}"/>`];
  if (layout === 0) parts.push(`<rect x="18" y="18" width="${w - 36}" height="${h - 36}" fill="none" stroke="${accent}" stroke-width="5"/>`);
  if (layout === 1) parts.push(`<rect x="0" y="0" width="24" height="${h}" fill="${accent}"/>`);
  if (layout === 2) parts.push(`<rect x="0" y="0" width="${w}" height="120" fill="${accent}"/><circle cx="${w / 2}" cy="60" r="34" fill="${paper}"/>`);
  lines.forEach((line, i) => {
    // Long lines shrink to fit the label, as a designer would set them.
    const room = (layout === 1 ? w - 90 : w - 80) / (line.text.length * 0.62);
    const size = Math.min(line.size, Math.floor(room));
    const y = Math.round(top + step * i + step / 2 + size / 3);
    const fill = i === 0 ? accent : ink;
    parts.push(
      `<text x="${x}" y="${y}" font-family="${family}" font-size="${size}" font-weight="${line.weight ?? 'normal'}"` +
        `${line.italic ? ' font-style="italic"' : ''} text-anchor="${anchor}" fill="${fill}">${escapeXml(line.text)}</text>`,
    );
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${parts.join('')}</svg>`;
}

export { seededRandom as mulberry32 } from '@loupe/fingerprint';

export interface PhotoOptions {
  seed?: number;
  /** Largest corner displacement of the perspective, as a share of the image side (0: none). */
  perspective?: number;
  /** Half-angle in radians of the bottle arc the label wraps (0: flat). */
  curvature?: number;
  /** Gaussian blur sigma in output pixels (0: none). */
  blur?: number;
  /** Opacity 0-1 of a specular highlight across the label (0: none). */
  glare?: number;
  jpegQuality?: number;
  /** Output width; the height follows the 3:4 portrait frame. */
  width?: number;
}

export interface WinePhoto {
  jpeg: Buffer;
  width: number;
  height: number;
  /** Where the label ended up, in output pixels (bounding box of its warped outline). */
  labelBox: PixelBox;
}

interface Raw {
  data: Buffer;
  width: number;
  height: number;
}

async function raw(img: Sharp): Promise<Raw> {
  const { data, info } = await img.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** The label wrapped on a cylinder seen from the front: compressed and darkened towards its sides. */
function wrapOnBottle(label: Raw, halfAngle: number): Raw {
  if (halfAngle <= 0) return label;
  const radius = label.width / (2 * halfAngle);
  const width = Math.round(2 * radius * Math.sin(halfAngle));
  const out = Buffer.alloc(width * label.height * 3);
  for (let x = 0; x < width; x++) {
    const theta = Math.asin(Math.max(-1, Math.min(1, (x + 0.5 - width / 2) / radius)));
    const u = Math.min(label.width - 1, Math.max(0, Math.round(radius * theta + label.width / 2)));
    const shade = 0.7 + 0.3 * Math.cos(theta);
    for (let y = 0; y < label.height; y++) {
      const s = (y * label.width + u) * 3;
      const d = (y * width + x) * 3;
      out[d] = label.data[s] * shade;
      out[d + 1] = label.data[s + 1] * shade;
      out[d + 2] = label.data[s + 2] * shade;
    }
  }
  return { data: out, width, height: label.height };
}

type Point = [number, number];

/** The homography taking the 4 `from` corners to the 4 `to` corners (direct linear solve, 8 unknowns). */
function homography(from: Point[], to: Point[]): number[] {
  const a: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i];
    const [u, v] = to[i];
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    a.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let c = 0; c < 8; c++) {
    let pivot = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(a[r][c]) > Math.abs(a[pivot][c])) pivot = r;
    [a[c], a[pivot]] = [a[pivot], a[c]];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = a[r][c] / a[c][c];
      for (let k = c; k < 9; k++) a[r][k] -= f * a[c][k];
    }
  }
  return [...a.map((row, i) => row[8] / row[i]), 1];
}

function apply(h: number[], [x, y]: Point): Point {
  const w = h[6] * x + h[7] * y + h[8];
  return [(h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w];
}

/** Warps the whole image by a homography (bilinear sampling; outside the source: the edge colour). */
function warp(img: Raw, h: number[]): Raw {
  const inv = homography(
    [[0, 0], [img.width, 0], [img.width, img.height], [0, img.height]].map((p) => apply(h, p as Point)),
    [[0, 0], [img.width, 0], [img.width, img.height], [0, img.height]],
  );
  const out = Buffer.alloc(img.data.length);
  const { width, height, data } = img;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [sx, sy] = apply(inv, [x + 0.5, y + 0.5]);
      const fx = Math.min(width - 1.001, Math.max(0, sx - 0.5));
      const fy = Math.min(height - 1.001, Math.max(0, sy - 0.5));
      const x0 = Math.floor(fx);
      const y0 = Math.floor(fy);
      const ax = fx - x0;
      const ay = fy - y0;
      const d = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) {
        const p00 = data[(y0 * width + x0) * 3 + c];
        const p10 = data[(y0 * width + x0 + 1) * 3 + c];
        const p01 = data[((y0 + 1) * width + x0) * 3 + c];
        const p11 = data[((y0 + 1) * width + x0 + 1) * 3 + c];
        out[d + c] = (p00 * (1 - ax) + p10 * ax) * (1 - ay) + (p01 * (1 - ax) + p11 * ax) * ay;
      }
    }
  }
  return { data: out, width, height };
}

/**
 * A shop photo of the bottle: a shelf-like background, a dark bottle, the label wrapped on it, then the phone's
 * perspective, a highlight, blur and JPEG. Returns the photo and where the label is in it. The label is a spec
 * rendered by wineLabelSvg or an SVG of its own.
 */
export async function wineBottlePhoto(spec: LabelSpec | string, opts: PhotoOptions = {}): Promise<WinePhoto> {
  const rand = mulberry32(opts.seed ?? 1);
  const width = 900;
  const height = 1200;
  // A label given as SVG (any size) is scaled to the bottle's label width, as a printer sizes it to the bottle.
  const svg = typeof spec === 'string' ? spec : wineLabelSvg(spec);
  const label = wrapOnBottle(await raw(sharp(Buffer.from(svg)).resize({ width: LABEL_WIDTH, height: LABEL_HEIGHT, fit: 'inside', withoutEnlargement: true })), opts.curvature ?? 0);
  const bottleColor = ['#16261b', '#2a1414', '#1d1d1d', '#3a2e12'][Math.floor(rand() * 4)];
  const wall = [`#${(0x8a7a68 + Math.floor(rand() * 0x202020)).toString(16)}`, '#c9c2b5', '#5d6b73'][Math.floor(rand() * 3)];
  const bodyW = label.width + 120;
  const bodyX = Math.round((width - bodyW) / 2);
  const background =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<rect width="100%" height="100%" fill="${wall}"/>` +
    `<rect x="0" y="${height - 120}" width="${width}" height="120" fill="#4a3527"/>` +
    `<rect x="${width / 2 - 70}" y="0" width="140" height="260" rx="30" fill="${bottleColor}"/>` +
    `<rect x="${bodyX}" y="180" width="${bodyW}" height="${height - 240}" rx="90" fill="${bottleColor}"/>` +
    `<rect x="${bodyX + 30}" y="220" width="26" height="${height - 340}" rx="13" fill="#ffffff" opacity="0.12"/></svg>`;
  const left = Math.round((width - label.width) / 2);
  const top = 330;
  const labelPng = await sharp(label.data, { raw: { width: label.width, height: label.height, channels: 3 } }).png().toBuffer();
  let scene = await raw(sharp(Buffer.from(background)).composite([{ input: labelPng, left, top }]));
  let corners: Point[] = [[left, top], [left + label.width, top], [left + label.width, top + label.height], [left, top + label.height]];

  const p = opts.perspective ?? 0;
  if (p > 0) {
    const frame: Point[] = [[0, 0], [width, 0], [width, height], [0, height]];
    const moved = frame.map(([x, y]) => [x + (rand() * 2 - 1) * p * width, y + (rand() * 2 - 1) * p * height] as Point);
    const h = homography(frame, moved);
    scene = warp(scene, h);
    corners = corners.map((c) => apply(h, c));
  }
  const overlays: OverlayOptions[] = [];
  if ((opts.glare ?? 0) > 0) {
    const gx = left + rand() * label.width;
    const glare =
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><radialGradient id="g">` +
      `<stop offset="0" stop-color="#fff" stop-opacity="${opts.glare}"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs>` +
      `<ellipse cx="${gx}" cy="${top + label.height * (0.2 + rand() * 0.6)}" rx="${60 + rand() * 60}" ry="${180 + rand() * 120}" fill="url(#g)"/></svg>`;
    overlays.push({ input: Buffer.from(glare), blend: 'screen' });
  }
  const outWidth = opts.width ?? width;
  const scale = outWidth / width;
  let img = sharp(scene.data, { raw: { width, height, channels: 3 } });
  if (overlays.length > 0) img = sharp(await img.composite(overlays).png().toBuffer());
  img = img.resize({ width: outWidth });
  if ((opts.blur ?? 0) > 0.3) img = img.blur(opts.blur);
  const jpeg = await img.jpeg({ quality: opts.jpegQuality ?? 88 }).toBuffer();
  const xs = corners.map((c) => c[0] * scale);
  const ys = corners.map((c) => c[1] * scale);
  const outHeight = Math.round(height * scale);
  const clamp = (v: number, max: number) => Math.max(0, Math.min(max, Math.round(v)));
  return {
    jpeg,
    width: outWidth,
    height: outHeight,
    labelBox: { x0: clamp(Math.min(...xs), outWidth), y0: clamp(Math.min(...ys), outHeight), x1: clamp(Math.max(...xs), outWidth), y1: clamp(Math.max(...ys), outHeight) },
  };
}

/** The label alone, flat, as a collection image of it would be (a scan or the printer's file). */
export async function wineLabelJpeg(spec: LabelSpec, quality = 90): Promise<Buffer> {
  return sharp(Buffer.from(wineLabelSvg(spec))).jpeg({ quality }).toBuffer();
}
