import { ACCEPTED_FORMATS } from './formats';

export type ImageErrorCode = 'unsupported_format' | 'corrupt' | 'animated' | 'too_many_pixels' | 'empty';

/**
 * A refusal of an input image. The message is a user-facing sentence without the
 * file name, so callers can prefix "<file>: " themselves.
 */
export class ImageInputError extends Error {
  override readonly name = 'ImageInputError';

  constructor(
    readonly code: ImageErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const formatList = ACCEPTED_FORMATS.map((f) => f.toUpperCase()).join(', ');

export const unsupportedFormat = (detail?: string): ImageInputError =>
  new ImageInputError(
    'unsupported_format',
    detail
      ? `Unsupported image format (${detail}); accepted formats are ${formatList}.`
      : `Unsupported image format; accepted formats are ${formatList}.`,
  );

export const corrupt = (): ImageInputError =>
  new ImageInputError('corrupt', 'The image data is corrupt or truncated.');

export const animated = (): ImageInputError => new ImageInputError('animated', 'Animated images are not supported.');

export const empty = (): ImageInputError => new ImageInputError('empty', 'The image file is empty.');

const megapixels = (pixels: number): string => `${Math.round(pixels / 1e5) / 10}`;

export const tooManyPixels = (pixels: number, limit: number): ImageInputError =>
  new ImageInputError(
    'too_many_pixels',
    `The image is too large (${megapixels(pixels)} megapixels; the limit is ${megapixels(limit)}).`,
  );
