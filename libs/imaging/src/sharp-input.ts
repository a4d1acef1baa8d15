import type { SharpOptions } from 'sharp';
import { corrupt, ImageInputError, tooManyPixels, unsupportedFormat } from './errors';
import { MAX_INPUT_PIXELS } from './limits';

/**
 * Options for every sharp decode of user input. failOn 'truncated' turns libjpeg's
 * "premature end" (only a warning by default in libjpeg) into an error, while still
 * accepting the harmless warnings many cameras' files trigger (e.g. extraneous bytes).
 */
export const SHARP_INPUT_OPTIONS: SharpOptions = {
  failOn: 'truncated',
  limitInputPixels: MAX_INPUT_PIXELS,
};

/** Turns a sharp/libvips failure into the user-facing refusal it stands for. */
export function toImageInputError(error: unknown, pixels?: number): ImageInputError {
  if (error instanceof ImageInputError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message)) return tooManyPixels(pixels ?? MAX_INPUT_PIXELS + 1, MAX_INPUT_PIXELS);
  if (/unsupported image format/i.test(message)) return unsupportedFormat();
  return corrupt();
}
