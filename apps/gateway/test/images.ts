import sharp from 'sharp';
import { seededRandom as mulberry32 } from '@loupe/fingerprint';


/** An SVG scene of random shapes and text: rich in corners, so it fingerprints like a photograph of a print. */
export function sceneSvg(seed: number, width = 640, height = 480): string {
  const rand = mulberry32(seed);
  const color = () => `rgb(${Math.floor(rand() * 256)},${Math.floor(rand() * 256)},${Math.floor(rand() * 256)})`;
  // A diagonal gradient behind the shapes: no row or column is one flat color, so no border is cropped away and
  // rectangles can be checked against the uncropped geometry.
  const shapes: string[] = [
    `<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${color()}"/><stop offset="1" stop-color="${color()}"/></linearGradient></defs>`,
    `<rect width="${width}" height="${height}" fill="url(#bg)"/>`,
  ];
  for (let i = 0; i < 40; i++) {
    const x = rand() * width;
    const y = rand() * height;
    const s = 10 + rand() * 80;
    switch (i % 4) {
      case 0: shapes.push(`<rect x="${x}" y="${y}" width="${s}" height="${s * (0.3 + rand())}" fill="${color()}" transform="rotate(${rand() * 90} ${x} ${y})"/>`); break;
      case 1: shapes.push(`<circle cx="${x}" cy="${y}" r="${s / 2}" fill="${color()}" stroke="${color()}" stroke-width="3"/>`); break;
      case 2: shapes.push(`<polygon points="${x},${y} ${x + s},${y + s / 3} ${x + s / 4},${y + s}" fill="${color()}"/>`); break;
      default: shapes.push(`<text x="${x}" y="${y}" font-size="${12 + s / 3}" font-family="sans-serif" fill="${color()}">Loupe ${seed}-${i}</text>`);
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${shapes.join('')}</svg>`;
}

export async function sceneJpeg(seed: number, width = 640, height = 480): Promise<Buffer> {
  return sharp(Buffer.from(sceneSvg(seed, width, height))).jpeg({ quality: 90 }).toBuffer();
}

export async function scene(seed: number, format: 'png' | 'webp' | 'avif' | 'gif' | 'tiff', width = 320, height = 240): Promise<Buffer> {
  return sharp(Buffer.from(sceneSvg(seed, width, height))).toFormat(format).toBuffer();
}

export async function flatJpeg(width = 300, height = 200, rgb = { r: 40, g: 90, b: 160 }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: rgb } }).jpeg().toBuffer();
}

/** A two-frame animated GIF, which the services must refuse. */
export async function animatedGif(): Promise<Buffer> {
  const frames = await Promise.all([1, 2].map((seed) => sharp(Buffer.from(sceneSvg(seed, 64, 64))).png().toBuffer()));
  return sharp(frames, { join: { animated: true } }).gif().toBuffer();
}

/** An uncompressed 24-bit BMP written by hand (sharp cannot write BMP). */
export async function bmp24(seed: number, width = 160, height = 120): Promise<Buffer> {
  const rgb = await sharp(Buffer.from(sceneSvg(seed, width, height))).removeAlpha().raw().toBuffer();
  const rowSize = Math.ceil((width * 3) / 4) * 4;
  const pixelBytes = rowSize * height;
  const out = Buffer.alloc(54 + pixelBytes);
  out.write('BM', 0, 'ascii');
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(54, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(height, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(24, 28);
  out.writeUInt32LE(pixelBytes, 34);
  for (let y = 0; y < height; y++) {
    const row = 54 + (height - 1 - y) * rowSize;
    for (let x = 0; x < width; x++) {
      const src = (y * width + x) * 3;
      out[row + x * 3] = rgb[src + 2];
      out[row + x * 3 + 1] = rgb[src + 1];
      out[row + x * 3 + 2] = rgb[src];
    }
  }
  return out;
}
