/**
 * Largest side allowed relative to the preferred smallest side. Panoramas and long
 * receipts keep their shape up to 4:1 at full preferred resolution; beyond that the
 * long side is capped so one strip cannot cost more than a 4:1 image.
 */
export const MAX_ASPECT_OF_PREFERRED_SIDE = 4;

export interface ResizePlan {
  width: number;
  height: number;
  /** width / original width */
  scale: number;
}

/**
 * Target size so the smallest side equals preferredSide and the largest side is at most
 * MAX_ASPECT_OF_PREFERRED_SIDE * preferredSide, never enlarging (docs/protocol.md §9).
 */
export function planResize(width: number, height: number, preferredSide: number): ResizePlan {
  if (!(preferredSide > 0)) throw new RangeError(`preferredSide must be positive, got ${preferredSide}`);
  const factor = Math.min(
    1,
    preferredSide / Math.min(width, height),
    (MAX_ASPECT_OF_PREFERRED_SIDE * preferredSide) / Math.max(width, height),
  );
  if (factor === 1) return { width, height, scale: 1 };
  const targetWidth = Math.max(1, Math.round(width * factor));
  const targetHeight = Math.max(1, Math.round(height * factor));
  return { width: targetWidth, height: targetHeight, scale: targetWidth / width };
}
