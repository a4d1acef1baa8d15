/**
 * Affine image alignment by maximising the enhanced correlation coefficient (Evangelidis & Psarakis, "Parametric Image
 * Alignment using Enhanced Correlation Coefficient Maximization", PAMI 2008), the algorithm of OpenCV's
 * `findTransformECC` with MOTION_AFFINE and a 5 px Gaussian, in plain arrays.
 *
 * Why not OpenCV's: its WebAssembly build does not unwind the C++ stack when ECC gives up ("images may be uncorrelated"),
 * so every pair that does not align leaked the function's working images (about 9 MB at 360 × 220 px) from the wasm
 * heap, and after some 170 such pairs every OpenCV call of the process or thread failed. Giving up is an ordinary
 * answer here: null.
 */
import type { GrayImage } from './types';

/** The affine map [a00, a01, a02, a10, a11, a12] from template pixels to input pixels. */
export type AffineMap = [number, number, number, number, number, number];

export interface EccOptions {
  /** Most iterations. */
  iterations: number;
  /** Stop once the correlation coefficient changes by less than this between iterations. */
  epsilon: number;
}

/**
 * The affine map that best aligns `input` with `template` (both `width` × `height`; input pixel = map(template pixel)),
 * over the input's pixels where `inputMask` is set, or null when the images do not correlate enough to align (the
 * correlation would be minimised, or is undefined).
 */
export function eccAffine(template: GrayImage, input: GrayImage, inputMask: Uint8Array, opts: EccOptions): AffineMap | null {
  const { width: w, height: h } = template;
  if (input.width !== w || input.height !== h) throw new RangeError('eccAffine aligns images of one size');
  const n = w * h;
  const templateSmooth = smooth5(Float32Array.from(template.data), w, h);
  const inputSmooth = smooth5(Float32Array.from(input.data), w, h);
  // The mask shrunk by the smoothing's reach: only pixels whose whole neighbourhood is inside count (as OpenCV does).
  // A loop, not Float32Array.from with a mapping function: that calls it per pixel, 10 ms for a 360 × 270 mask.
  const mask = new Float32Array(n);
  for (let i = 0; i < n; i++) mask[i] = inputMask[i] > 0 ? 1 : 0;
  const maskSmooth = smooth5(mask, w, h);
  const preMask = new Float32Array(n);
  for (let i = 0; i < n; i++) preMask[i] = maskSmooth[i] > 0.95 ? 1 : 0;
  const [gradientX, gradientY] = centralDifferences(inputSmooth, w, h);
  for (let i = 0; i < n; i++) {
    gradientX[i] *= preMask[i];
    gradientY[i] *= preMask[i];
  }

  const map: AffineMap = [1, 0, 0, 0, 1, 0];
  const warped = new Float32Array(n);
  const warpedX = new Float32Array(n);
  const warpedY = new Float32Array(n);
  const warpedMask = new Uint8Array(n);
  const templateZeroMean = new Float32Array(n);
  let rho = -1;
  let lastRho = -opts.epsilon;
  for (let iteration = 1; iteration <= opts.iterations && Math.abs(rho - lastRho) >= opts.epsilon; iteration++) {
    warpAll(map, w, h, { image: inputSmooth, gradientX, gradientY, mask: preMask }, { image: warped, gradientX: warpedX, gradientY: warpedY, mask: warpedMask });

    const { count, image, template: tmpl } = maskedMoments(warped, templateSmooth, warpedMask);
    // Outside the mask the image keeps its values, as OpenCV's masked subtraction leaves them: only the Jacobian's
    // pixels along the mask's edge (interpolated gradients) see them.
    for (let i = 0; i < n; i++) {
      if (warpedMask[i]) warped[i] -= image.mean;
      templateZeroMean[i] = warpedMask[i] ? templateSmooth[i] - tmpl.mean : 0;
    }
    const imageNorm = Math.sqrt(count) * image.deviation;
    const templateNorm = Math.sqrt(count) * tmpl.deviation;

    // The Jacobian of the warped image with respect to the six parameters is, per pixel, in the order of the update:
    // gx·x, gy·x, gx·y, gy·y, gx, gy. Its Gram matrix (the Hessian) and its projections of the images are summed here.
    const hessian = new Float64Array(36);
    const imageProjection = new Float64Array(6);
    const templateProjection = new Float64Array(6);
    let correlation = 0;
    for (let y = 0, i = 0; y < h; y++) {
      // Per row, the sums over x of the products that do not involve y; y is factored in once per row.
      let gxx = 0, gxy = 0, gyy = 0, gxxx = 0, gyyx = 0, gxyx = 0, gxyxx = 0, gyyxx = 0, gxxxx = 0;
      let ix = 0, iy = 0, ixx = 0, iyx = 0, tx = 0, ty = 0, txx = 0, tyx = 0;
      for (let x = 0; x < w; x++, i++) {
        const gx = warpedX[i];
        const gy = warpedY[i];
        const image = warped[i];
        const tmpl = templateZeroMean[i];
        correlation += tmpl * image;
        if (gx === 0 && gy === 0) continue;
        const gxgx = gx * gx, gxgy = gx * gy, gygy = gy * gy;
        const gxgxX = gxgx * x, gxgyX = gxgy * x, gygyX = gygy * x, gxX = gx * x, gyX = gy * x;
        gxx += gxgx;
        gxy += gxgy;
        gyy += gygy;
        gxxx += gxgxX;
        gxyx += gxgyX;
        gyyx += gygyX;
        gxxxx += gxgxX * x;
        gxyxx += gxgyX * x;
        gyyxx += gygyX * x;
        ix += gx * image;
        iy += gy * image;
        ixx += gxX * image;
        iyx += gyX * image;
        tx += gx * tmpl;
        ty += gy * tmpl;
        txx += gxX * tmpl;
        tyx += gyX * tmpl;
      }
      // Rows of the Hessian, parameters p0 = gx·x, p1 = gy·x, p2 = gx·y, p3 = gy·y, p4 = gx, p5 = gy.
      const yy2 = y * y;
      addSymmetric(hessian, 0, 0, gxxxx);
      addSymmetric(hessian, 0, 1, gxyxx);
      addSymmetric(hessian, 0, 2, gxxx * y);
      addSymmetric(hessian, 0, 3, gxyx * y);
      addSymmetric(hessian, 0, 4, gxxx);
      addSymmetric(hessian, 0, 5, gxyx);
      addSymmetric(hessian, 1, 1, gyyxx);
      addSymmetric(hessian, 1, 2, gxyx * y);
      addSymmetric(hessian, 1, 3, gyyx * y);
      addSymmetric(hessian, 1, 4, gxyx);
      addSymmetric(hessian, 1, 5, gyyx);
      addSymmetric(hessian, 2, 2, gxx * yy2);
      addSymmetric(hessian, 2, 3, gxy * yy2);
      addSymmetric(hessian, 2, 4, gxx * y);
      addSymmetric(hessian, 2, 5, gxy * y);
      addSymmetric(hessian, 3, 3, gyy * yy2);
      addSymmetric(hessian, 3, 4, gxy * y);
      addSymmetric(hessian, 3, 5, gyy * y);
      addSymmetric(hessian, 4, 4, gxx);
      addSymmetric(hessian, 4, 5, gxy);
      addSymmetric(hessian, 5, 5, gyy);
      addRowProjection(imageProjection, ixx, iyx, ix, iy, y);
      addRowProjection(templateProjection, txx, tyx, tx, ty, y);
    }
    const hessianInverse = invert6(hessian);
    lastRho = rho;
    rho = correlation / (imageNorm * templateNorm);
    if (!hessianInverse || !Number.isFinite(rho)) return null;

    const imageProjectionHessian = multiply6(hessianInverse, imageProjection);
    const lambdaNumerator = imageNorm * imageNorm - dot(imageProjection, imageProjectionHessian);
    const lambdaDenominator = correlation - dot(templateProjection, imageProjectionHessian);
    // Past this point the step would minimise the correlation: the images are not alike enough to align.
    if (lambdaDenominator <= 0) return null;
    const lambda = lambdaNumerator / lambdaDenominator;

    // The step: the Jacobian's projection of the error between the illumination-corrected template and the image,
    // which is lambda times the template's projection less the image's.
    const errorProjection = new Float64Array(6);
    for (let k = 0; k < 6; k++) errorProjection[k] = lambda * templateProjection[k] - imageProjection[k];
    const step = multiply6(hessianInverse, errorProjection);
    map[0] += step[0];
    map[3] += step[1];
    map[1] += step[2];
    map[4] += step[3];
    map[2] += step[4];
    map[5] += step[5];
  }
  return map;
}

/** The 5-tap binomial smoothing ([1 4 6 4 1] / 16 both ways, mirrored at the borders): OpenCV's 5 × 5 Gaussian. */
function smooth5(src: Float32Array, w: number, h: number): Float32Array {
  const rows = new Float32Array(src.length);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      const i = row + x;
      // Only the two pixels at each end of a row reach past it.
      rows[i] =
        x >= 2 && x < w - 2
          ? (src[i - 2] + 4 * src[i - 1] + 6 * src[i] + 4 * src[i + 1] + src[i + 2]) / 16
          : (src[row + mirror(x - 2, w)] + 4 * src[row + mirror(x - 1, w)] + 6 * src[i] + 4 * src[row + mirror(x + 1, w)] + src[row + mirror(x + 2, w)]) / 16;
    }
  }
  const out = new Float32Array(src.length);
  for (let y = 0; y < h; y++) {
    const [a, b, c, d, e] = [mirror(y - 2, h), mirror(y - 1, h), y, mirror(y + 1, h), mirror(y + 2, h)].map((r) => r * w);
    for (let x = 0; x < w; x++) out[y * w + x] = (rows[a + x] + 4 * rows[b + x] + 6 * rows[c + x] + 4 * rows[d + x] + rows[e + x]) / 16;
  }
  return out;
}

/** Horizontal and vertical central differences ((next − previous) / 2, mirrored at the borders). */
function centralDifferences(src: Float32Array, w: number, h: number): [Float32Array, Float32Array] {
  const gx = new Float32Array(src.length);
  const gy = new Float32Array(src.length);
  for (let y = 0; y < h; y++) {
    const [above, below] = [mirror(y - 1, h) * w, mirror(y + 1, h) * w];
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      gx[i] = (src[y * w + mirror(x + 1, w)] - src[y * w + mirror(x - 1, w)]) / 2;
      gy[i] = (src[below + x] - src[above + x]) / 2;
    }
  }
  return [gx, gy];
}

/** Index `i` reflected into 0..n-1 without repeating the edge pixel (OpenCV's BORDER_REFLECT_101). */
function mirror(i: number, n: number): number {
  if (n === 1) return 0;
  if (i < 0) return -i;
  if (i >= n) return 2 * n - 2 - i;
  return i;
}

/** An image, its gradients and its mask, as warped together. */
interface Layers<Mask> {
  image: Float32Array;
  gradientX: Float32Array;
  gradientY: Float32Array;
  mask: Mask;
}

/**
 * `to`(x, y) = `from`(map(x, y)) for the image and its gradients (bilinear) and the mask (nearest pixel), 0 outside
 * `from`: one pass, as the four share every sample's position.
 */
function warpAll(map: AffineMap, w: number, h: number, from: Layers<Float32Array>, to: Layers<Uint8Array>): void {
  const { image, gradientX, gradientY, mask } = from;
  const { image: toImage, gradientX: toX, gradientY: toY, mask: toMask } = to;
  for (let y = 0, i = 0; y < h; y++) {
    let u = map[1] * y + map[2];
    let v = map[4] * y + map[5];
    for (let x = 0; x < w; x++, i++, u += map[0], v += map[3]) {
      const nearestX = Math.round(u);
      const nearestY = Math.round(v);
      toMask[i] = nearestX >= 0 && nearestY >= 0 && nearestX < w && nearestY < h && mask[nearestY * w + nearestX] ? 1 : 0;
      const x0 = Math.floor(u);
      const y0 = Math.floor(v);
      const fx = u - x0;
      const fy = v - y0;
      if (x0 >= 0 && y0 >= 0 && x0 + 1 < w && y0 + 1 < h) {
        const k = y0 * w + x0;
        toImage[i] = bilinear(image, k, w, fx, fy);
        toX[i] = bilinear(gradientX, k, w, fx, fy);
        toY[i] = bilinear(gradientY, k, w, fx, fy);
      } else {
        toImage[i] = bilinearAtBorder(image, x0, y0, w, h, fx, fy);
        toX[i] = bilinearAtBorder(gradientX, x0, y0, w, h, fx, fy);
        toY[i] = bilinearAtBorder(gradientY, x0, y0, w, h, fx, fy);
      }
    }
  }
}

/** `src` interpolated at (x0 + fx, y0 + fy), `k` = y0 · w + x0, all four neighbours inside. */
function bilinear(src: Float32Array, k: number, w: number, fx: number, fy: number): number {
  const top = src[k] + (src[k + 1] - src[k]) * fx;
  const bottom = src[k + w] + (src[k + w + 1] - src[k + w]) * fx;
  return top + (bottom - top) * fy;
}

/** `bilinear` where some of the four neighbours are outside the image: those count as 0. */
function bilinearAtBorder(src: Float32Array, x0: number, y0: number, w: number, h: number, fx: number, fy: number): number {
  const top = sampleOrZero(src, x0, y0, w, h) * (1 - fx) + sampleOrZero(src, x0 + 1, y0, w, h) * fx;
  const bottom = sampleOrZero(src, x0, y0 + 1, w, h) * (1 - fx) + sampleOrZero(src, x0 + 1, y0 + 1, w, h) * fx;
  return top * (1 - fy) + bottom * fy;
}

function sampleOrZero(src: Float32Array, x: number, y: number, w: number, h: number): number {
  return x < 0 || y < 0 || x >= w || y >= h ? 0 : src[y * w + x];
}

interface Moments {
  mean: number;
  deviation: number;
}

/** Mean and standard deviation of the warped image and of the template where `mask` is set, and how many pixels that is. */
function maskedMoments(image: Float32Array, template: Float32Array, mask: Uint8Array): { count: number; image: Moments; template: Moments } {
  let count = 0;
  let imageSum = 0, imageSquares = 0, templateSum = 0, templateSquares = 0;
  for (let i = 0; i < image.length; i++) {
    if (!mask[i]) continue;
    count++;
    imageSum += image[i];
    imageSquares += image[i] * image[i];
    templateSum += template[i];
    templateSquares += template[i] * template[i];
  }
  return { count, image: moments(imageSum, imageSquares, count), template: moments(templateSum, templateSquares, count) };
}

function moments(sum: number, squares: number, count: number): Moments {
  if (count === 0) return { mean: 0, deviation: 0 };
  const mean = sum / count;
  return { mean, deviation: Math.sqrt(Math.max(0, squares / count - mean * mean)) };
}

/**
 * Adds one row's sums to a projection onto the Jacobian (parameters as in the Hessian): Σ gx·x·v, Σ gy·x·v, Σ gx·v and
 * Σ gy·v over the row, whose y is factored in here.
 */
function addRowProjection(projection: Float64Array, gxX: number, gyX: number, gx: number, gy: number, y: number): void {
  projection[0] += gxX;
  projection[1] += gyX;
  projection[2] += gx * y;
  projection[3] += gy * y;
  projection[4] += gx;
  projection[5] += gy;
}

/** Adds `value` at (r, c) and, off the diagonal, at (c, r) of a 6 × 6 row-major matrix. */
function addSymmetric(m: Float64Array, r: number, c: number, value: number): void {
  m[r * 6 + c] += value;
  if (r !== c) m[c * 6 + r] += value;
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** A 6 × 6 matrix (row-major) times a 6-vector. */
function multiply6(m: Float64Array, v: Float64Array): Float64Array {
  const out = new Float64Array(6);
  for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) out[r] += m[r * 6 + c] * v[c];
  return out;
}

/** The inverse of a 6 × 6 matrix (row-major) by Gauss-Jordan elimination with partial pivoting; null when singular. */
function invert6(m: Float64Array): Float64Array | null {
  const a = Float64Array.from(m);
  const inv = new Float64Array(36);
  for (let i = 0; i < 6; i++) inv[i * 6 + i] = 1;
  for (let col = 0; col < 6; col++) {
    let pivot = col;
    for (let r = col + 1; r < 6; r++) if (Math.abs(a[r * 6 + col]) > Math.abs(a[pivot * 6 + col])) pivot = r;
    const p = a[pivot * 6 + col];
    if (!Number.isFinite(p) || Math.abs(p) < 1e-12) return null;
    if (pivot !== col) {
      for (let c = 0; c < 6; c++) {
        [a[col * 6 + c], a[pivot * 6 + c]] = [a[pivot * 6 + c], a[col * 6 + c]];
        [inv[col * 6 + c], inv[pivot * 6 + c]] = [inv[pivot * 6 + c], inv[col * 6 + c]];
      }
    }
    for (let c = 0; c < 6; c++) {
      a[col * 6 + c] /= p;
      inv[col * 6 + c] /= p;
    }
    for (let r = 0; r < 6; r++) {
      if (r === col) continue;
      const f = a[r * 6 + col];
      if (f === 0) continue;
      for (let c = 0; c < 6; c++) {
        a[r * 6 + c] -= f * a[col * 6 + c];
        inv[r * 6 + c] -= f * inv[col * 6 + c];
      }
    }
  }
  return inv;
}
