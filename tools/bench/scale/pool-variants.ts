import sharp from 'sharp';
import type { Photo } from '../match/dataset';

/** A pool photo edited into a different picture: what a catalog holds next to it (crop, mirror, angle, size, encoding). */
export async function poolVariant(photo: Photo, data: Buffer, rnd: () => number): Promise<Buffer> {
  const area = 0.45 + rnd() * 0.5;
  const side = Math.sqrt(area);
  const w = Math.max(64, Math.round(photo.width * side * (0.85 + rnd() * 0.3)));
  const h = Math.max(64, Math.round((photo.width * photo.height * area) / w));
  const width = Math.min(w, photo.width);
  const height = Math.min(h, photo.height);
  let image = sharp(data).extract({ left: Math.floor(rnd() * (photo.width - width + 1)), top: Math.floor(rnd() * (photo.height - height + 1)), width, height });
  if (rnd() < 0.3) image = sharp(await image.flop().toBuffer());
  if (rnd() < 0.25) image = sharp(await image.rotate(Math.round((rnd() - 0.5) * 20), { background: '#808080' }).toBuffer());
  const longer = 640 + Math.floor(rnd() * 760);
  return image.resize(longer, longer, { fit: 'inside' }).modulate({ brightness: 0.85 + rnd() * 0.3 }).jpeg({ quality: 60 + Math.floor(rnd() * 36) }).toBuffer();
}
