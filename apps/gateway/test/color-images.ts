import sharp from 'sharp';

/** One band of a test image: a hex color and its share of the area in percent. */
export interface Band {
  hex: string;
  percent: number;
}

/**
 * A PNG of horizontal bands with exactly known areas (PNG so compression does not move the colors). Band heights are
 * rounded to whole rows; 200 rows make every 0.5 % step exact.
 */
export async function bandsPng(bands: readonly Band[], width = 300, height = 200): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  let row = 0;
  bands.forEach((band, i) => {
    const rows = i === bands.length - 1 ? height - row : Math.round((band.percent / 100) * height);
    const n = parseInt(band.hex.replace('#', ''), 16);
    for (let y = row; y < row + rows; y++) {
      for (let x = 0; x < width; x++) {
        const o = (y * width + x) * 3;
        data[o] = (n >> 16) & 0xff;
        data[o + 1] = (n >> 8) & 0xff;
        data[o + 2] = n & 0xff;
      }
    }
    row += rows;
  });
  return sharp(data, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** A square of one color centred on a background of another (for ignore_background). */
export async function framedPng(inner: string, background: string, innerShare = 0.5, size = 200): Promise<Buffer> {
  const side = Math.round(size * Math.sqrt(innerShare));
  const offset = Math.round((size - side) / 2);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><rect width="${size}" height="${size}" fill="${background}"/><rect x="${offset}" y="${offset}" width="${side}" height="${side}" fill="${inner}"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}
