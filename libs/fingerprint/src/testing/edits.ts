import sharp, { type Sharp } from 'sharp';
import { loadOpenCv, withMats } from '../opencv';
import type { RgbImage } from '../types';

/* Query-side edits applied to collection images in tests: what a phone or an editor does to a picture. */

function fromRgb(img: RgbImage): Sharp {
  return sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: 3 } });
}

/** The pixels of a sharp pipeline (an edit, or an SVG to render) as an RgbImage, alpha dropped. */
export async function toRgb(s: Sharp): Promise<RgbImage> {
  const { data, info } = await s.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** Crop box in pixels. */
export interface CropBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Crops a centred-ish box covering `areaShare` of the image, offset by `shift` (share of the free margin, 0-1). */
export function cropBox(img: RgbImage, areaShare: number, shiftX = 0.5, shiftY = 0.5): CropBox {
  const side = Math.sqrt(areaShare);
  const width = Math.round(img.width * side);
  const height = Math.round(img.height * side);
  return { left: Math.round((img.width - width) * shiftX), top: Math.round((img.height - height) * shiftY), width, height };
}

export const crop = (img: RgbImage, box: CropBox) => toRgb(fromRgb(img).extract(box));
export const scale = (img: RgbImage, factor: number) => toRgb(fromRgb(img).resize(Math.round(img.width * factor)));
export const rotate = (img: RgbImage, degrees: number) => toRgb(fromRgb(img).rotate(degrees, { background: '#808080' }));
export const jpeg = async (img: RgbImage, quality: number) => toRgb(sharp(await fromRgb(img).jpeg({ quality }).toBuffer()));
export const brighten = (img: RgbImage, factor: number) => toRgb(fromRgb(img).modulate({ brightness: factor }));
export const blur = (img: RgbImage, sigma: number) => toRgb(fromRgb(img).blur(sigma));
export const flip = (img: RgbImage) => toRgb(fromRgb(img).flop());
export const border = (img: RgbImage, px: number) =>
  toRgb(fromRgb(img).extend({ top: px, bottom: px, left: px, right: px, background: '#ffffff' }));

export async function textOverlay(img: RgbImage, text: string): Promise<RgbImage> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${img.width}" height="${img.height}">
    <text x="${img.width * 0.1}" y="${img.height * 0.55}" font-family="sans-serif" font-weight="bold" font-size="${img.height / 8}" fill="#ffffff" stroke="#000000" stroke-width="2">${text}</text></svg>`;
  return toRgb(fromRgb(img).composite([{ input: Buffer.from(svg) }]));
}

/** Tilts the image as if photographed from below: the top edge shrinks by `share` of the width. */
export async function tilt(img: RgbImage, share: number): Promise<RgbImage> {
  const { cv } = await loadOpenCv();
  const inset = (img.width * share) / 2;
  const { width: w, height: h } = img;
  return withMats((track) => {
    const src = track(cv.matFromArray(h, w, cv.CV_8UC3, img.data));
    const from = track(cv.matFromArray(4, 1, cv.CV_32FC2, [0, 0, w, 0, w, h, 0, h]));
    const to = track(cv.matFromArray(4, 1, cv.CV_32FC2, [inset, 0, w - inset, 0, w, h, 0, h]));
    const m = track(cv.getPerspectiveTransform(from, to));
    const out = track(new cv.Mat());
    cv.warpPerspective(src, out, m, new cv.Size(w, h), cv.INTER_LINEAR, cv.BORDER_CONSTANT, new cv.Scalar(128, 128, 128));
    return { data: new Uint8Array(out.data), width: w, height: h };
  });
}

/** Pastes `inset` into a copy of `scene` with its top-left corner at (left, top). */
export async function pasteInto(scene: RgbImage, inset: RgbImage, left: number, top: number): Promise<RgbImage> {
  const png = await fromRgb(inset).png().toBuffer();
  return toRgb(fromRgb(scene).composite([{ input: png, left, top }]));
}
