import { seededRandom } from '@loupe/fingerprint';
import sharp from 'sharp';

/** A deterministic scene of shapes and text: rich in corners, so it fingerprints like a photograph of a print. */
export async function sceneJpeg(seed: number, width = 480, height = 360): Promise<Buffer> {
  const rand = seededRandom(seed);
  const color = () => `rgb(${Math.floor(rand() * 256)},${Math.floor(rand() * 256)},${Math.floor(rand() * 256)})`;
  const shapes = [`<rect width="${width}" height="${height}" fill="${color()}"/>`];
  for (let i = 0; i < 30; i++) {
    const x = rand() * width;
    const y = rand() * height;
    const s = 10 + rand() * 60;
    shapes.push(i % 3 === 0
      ? `<text x="${x}" y="${y}" font-size="${12 + s / 3}" font-family="sans-serif" fill="${color()}">CLI ${seed}-${i}</text>`
      : `<rect x="${x}" y="${y}" width="${s}" height="${s * (0.3 + rand())}" fill="${color()}" transform="rotate(${rand() * 90} ${x} ${y})"/>`);
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${shapes.join('')}</svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 90 }).toBuffer();
}
