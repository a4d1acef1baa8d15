import { defineTask, extractFeatures, Features } from '@loupe/fingerprint';
import { assessImage, cropImage, encodeJpeg, findContentBox, GrayImage, grayImageOf, ImageAssessment, ImageInputError, NormalizedImage, normalizeImage } from '@loupe/imaging';
import { Stopwatch } from './stopwatch';

/** JPEG quality of the stored normalised copy: high enough that later feature extraction and overlays lose nothing visible. */
export const NORMALIZED_JPEG_QUALITY = 90;

export interface PreparationRequest {
  /** The uploaded file. */
  data: Uint8Array;
  preferredSide: number;
  cropBorders: boolean;
}

/** An added image made ready to store: everything but the service hooks' analyses. */
export interface PreparedImage {
  /** Normalised, and cropped to its content when borders are cropped. */
  normalized: NormalizedImage;
  assessment: ImageAssessment;
  normalizedJpeg: Uint8Array;
  /** The normalised image in grey, as its features were extracted from. */
  gray: GrayImage;
  /** Null for an image too small or too plain to describe. */
  features: Features | null;
  /** Seconds spent decoding, normalising and encoding (time_resize), and extracting features (part of time_add). */
  seconds: { resize: number; features: number };
}

/** An input that is not a usable image is an answer about the item, not a failure of the job. */
export type Preparation = { image: PreparedImage } | { refused: string };

/**
 * Decode, validation, normalisation, the stored JPEG copy, and ORB features of one added image: a function of the
 * file and the service's policy alone, so it runs on any pool thread with the same result as in the caller's.
 */
export async function prepareImage(request: PreparationRequest): Promise<Preparation> {
  const resizeWatch = new Stopwatch().start();
  let full: NormalizedImage;
  try {
    // Normalising reads and validates the whole file (corrupt, truncated, animated): no separate inspection decode.
    full = await normalizeImage(Buffer.from(request.data.buffer, request.data.byteOffset, request.data.byteLength), { preferredSide: request.preferredSide });
  } catch (error) {
    if (error instanceof ImageInputError) return { refused: error.message };
    throw error;
  }
  const normalized: NormalizedImage = request.cropBorders ? { ...full, ...cropImage(full, findContentBox(full)) } : full;
  const assessment = assessImage(normalized, full.original);
  const normalizedJpeg = await encodeJpeg(normalized, NORMALIZED_JPEG_QUALITY);
  resizeWatch.stop();

  const featuresWatch = new Stopwatch().start();
  const gray = grayImageOf(normalized);
  const features = assessment.extremelySmall || assessment.singleColor ? null : await extractFeatures(gray);
  featuresWatch.stop();
  return { image: { normalized, assessment, normalizedJpeg, gray, features, seconds: { resize: resizeWatch.elapsed, features: featuresWatch.elapsed } } };
}

export const prepareImageTask = defineTask(__filename, 'prepareImageTask', prepareImage);

