import { DEFAULT_MIN_INLIERS, defineTask, extractFeatures, Features, GrayImage, serializeFeatures } from '@loupe/fingerprint';
import { assessImage, encodeJpeg, grayImageOf, ImageFormat, ImageInfo, ImageInputError, NormalizedImage, normalizeImage, sniffFormat } from '@loupe/imaging';
import { matchVocabulary } from '../match/vocabulary';
import { PublicSearchError, PublicSearchRefusedError } from './contracts';

/** JPEG quality of the stored normalised copy of an imported image: overlays are rendered from it. */
const NORMALIZED_JPEG_QUALITY = 88;

/**
 * Smallest side of images in the public index, queries and indexed images alike (docs/protocol.md §9: larger images
 * are shrunk to it, never enlarged). One scale for both keeps ORB's
 * pyramid working on like sizes, and a 300 px normalised copy is ~20 KB per image, which matters at 10M images.
 */
export const PUBLIC_PREFERRED_SIDE = 300;

/** docs/protocol.md §9: JPEG, PNG or GIF (animations unsupported). */
export const PUBLIC_FORMATS: ReadonlySet<ImageFormat> = new Set(['jpeg', 'png', 'gif']);

export const CANNOT_IDENTIFY = 'Image cannot be identified; accepted formats are JPEG, PNG and GIF (not animated).';

export interface PublicImage {
  info: ImageInfo;
  normalized: NormalizedImage;
  /** What `features` were detected in. */
  gray: GrayImage;
  features: Features;
}

/**
 * Bytes → validated, normalised pixels → features. Refusals carry the two error names of docs/protocol.md §5: the
 * file is not an accepted image (BAD_REQUEST) or it holds too little to make a signature (NO_SIGNATURE_ERROR).
 */
export async function loadPublicImage(data: Buffer, label: string): Promise<PublicImage> {
  const format = sniffFormat(data);
  if (!format || !PUBLIC_FORMATS.has(format)) throw new PublicSearchRefusedError(PublicSearchError.BadImage, `${label}: ${CANNOT_IDENTIFY}`);
  let normalized: NormalizedImage;
  try {
    // Normalising reads and validates the whole file (corrupt, truncated, animated): no separate inspection decode.
    normalized = await normalizeImage(data, { preferredSide: PUBLIC_PREFERRED_SIDE });
  } catch (error) {
    if (error instanceof ImageInputError) throw new PublicSearchRefusedError(PublicSearchError.BadImage, `${label}: ${CANNOT_IDENTIFY} (${error.message})`);
    throw error;
  }
  const assessment = assessImage(normalized, normalized.original);
  if (assessment.reason) throw new PublicSearchRefusedError(PublicSearchError.NoSignature, `${label}: ${assessment.reason}`);
  const gray = grayImageOf(normalized);
  const features = await extractFeatures(gray);
  if (features.count < DEFAULT_MIN_INLIERS) {
    throw new PublicSearchRefusedError(
      PublicSearchError.NoSignature,
      `${label}: The image is too simple to create a signature: only ${features.count} distinctive points were found (at least ${DEFAULT_MIN_INLIERS} are needed).`,
    );
  }
  return { info: normalized.original, normalized, gray, features };
}

/** An entry's image made ready to store, or why it cannot be: what a compute thread hands back. */
type PreparedEntry =
  | { refused: string }
  | { info: { format: string; width: number; height: number }; norm: { width: number; height: number }; jpeg: Uint8Array; features: Uint8Array; featureCount: number; words: Uint32Array };

/**
 * Decode, validation, normalisation, the stored JPEG, features and visual words of one entry: CPU work, so an import
 * runs it on the compute threads (every core), and errors that are answers come back as values (a thrown error's
 * class does not cross threads).
 */
export const preparePublicEntryTask = defineTask(__filename, 'preparePublicEntryTask', async ({ data, label }: { data: Uint8Array; label: string }): Promise<PreparedEntry> => {
  let image;
  try {
    image = await loadPublicImage(Buffer.from(data.buffer, data.byteOffset, data.byteLength), label);
  } catch (error) {
    if (error instanceof PublicSearchRefusedError) return { refused: error.message };
    throw error;
  }
  return {
    info: image.info,
    norm: { width: image.normalized.width, height: image.normalized.height },
    jpeg: await encodeJpeg(image.normalized, NORMALIZED_JPEG_QUALITY),
    features: serializeFeatures(image.features),
    featureCount: image.features.count,
    words: matchVocabulary().vocabulary.quantize(image.features),
  };
});
