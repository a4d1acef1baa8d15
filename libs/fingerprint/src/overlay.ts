import sharp from 'sharp';
import { loadOpenCv, withMats } from './opencv';
import { applyHomography, clipToRect, imageCorners, invert } from './geometry';
import type { MatchResult, RgbImage } from './types';

/** Outline colour (RGB) and width in pixels: saturated green reads on both light and dark labels. */
const OUTLINE_RGB = [0, 230, 64];
const OUTLINE_PX = 3;
/** Fill outside the warped query: mid grey, so it is clearly "no data" rather than black image content. */
const EMPTY_GREY = 96;
/** JPEG quality of the overlay: a preview image, 85 keeps text legible at ~1/5 of PNG size. */
const OVERLAY_JPEG_QUALITY = 85;

/**
 * Side-by-side JPEG, 2 × target width by target height. Left: the target (collection) image. Right: the
 * query warped into the target's frame, so crop, flip, translation, rotation and scale are undone. The
 * matched region (query outline inside the target) is outlined on both halves.
 */
export async function renderOverlay(queryRgb: RgbImage, targetRgb: RgbImage, m: MatchResult): Promise<Buffer> {
  const { cv } = await loadOpenCv();
  const { width: w, height: h } = targetRgb;
  const queryToTarget = invert(m.transform);
  const outline = clipToRect(
    imageCorners(queryRgb.width, queryRgb.height).map(([x, y]) => applyHomography(queryToTarget, x, y)),
    w,
    h,
  );
  const pixels = withMats((track) => {
    const query = track(cv.matFromArray(queryRgb.height, queryRgb.width, cv.CV_8UC3, queryRgb.data));
    const target = track(cv.matFromArray(h, w, cv.CV_8UC3, targetRgb.data));
    const warp = track(cv.matFromArray(3, 3, cv.CV_64F, queryToTarget));
    const canvas = track(new cv.Mat(h, 2 * w, cv.CV_8UC3, new cv.Scalar(EMPTY_GREY, EMPTY_GREY, EMPTY_GREY)));
    const left = track(canvas.roi(new cv.Rect(0, 0, w, h)));
    target.copyTo(left);
    const right = track(canvas.roi(new cv.Rect(w, 0, w, h)));
    const grey = new cv.Scalar(EMPTY_GREY, EMPTY_GREY, EMPTY_GREY);
    cv.warpPerspective(query, right, warp, new cv.Size(w, h), cv.INTER_LINEAR, cv.BORDER_CONSTANT, grey);
    if (outline.length >= 3) {
      const colour = new cv.Scalar(OUTLINE_RGB[0], OUTLINE_RGB[1], OUTLINE_RGB[2]);
      for (const dx of [0, w]) {
        const pts = track(cv.matFromArray(outline.length, 1, cv.CV_32SC2, outline.flatMap(([x, y]) => [Math.round(x + dx), Math.round(y)])));
        const polys = track(new cv.MatVector());
        polys.push_back(pts);
        cv.polylines(canvas, polys, true, colour, OUTLINE_PX, cv.LINE_AA);
      }
    }
    return Buffer.from(canvas.data);
  });
  return sharp(pixels, { raw: { width: 2 * w, height: h, channels: 3 } }).jpeg({ quality: OVERLAY_JPEG_QUALITY }).toBuffer();
}
