const PNG_SIGNATURE_SIZE = 8;
/** Length (4) + type (4) before a chunk's data, CRC (4) after it. */
const CHUNK_OVERHEAD = 12;

/**
 * Number of frames an APNG declares in its acTL chunk, or 1 for a still PNG.
 * libvips reads only the default image of an APNG, so sharp cannot tell; the chunk can.
 * acTL must come before the first IDAT, so the scan stops there.
 */
export function pngFrameCount(data: Buffer): number {
  let at = PNG_SIGNATURE_SIZE;
  while (at + CHUNK_OVERHEAD <= data.length) {
    const length = data.readUInt32BE(at);
    const type = data.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT' || type === 'IEND') return 1;
    if (type === 'acTL' && length >= 8 && at + 12 <= data.length) return data.readUInt32BE(at + 8);
    at += CHUNK_OVERHEAD + length;
  }
  return 1;
}
