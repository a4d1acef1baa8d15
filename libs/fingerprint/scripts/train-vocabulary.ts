/*
 * Trains the default vocabulary and writes data/vocabulary.bin.
 * Run: npx tsx libs/fingerprint/scripts/train-vocabulary.ts
 * Training images are generated (seeds disjoint from the test seeds), each at full size and half size so the
 * words cover the pyramid scales a query can show up at, and once blurred + JPEG-compressed so centres sit
 * where degraded descriptors land too.
 */
import { writeFileSync } from 'node:fs';
import sharp from 'sharp';
import { extractFeatures } from '../src/features';
import { DEFAULT_VOCABULARY_PATH } from '../src/default-vocabulary';
import { syntheticImage, toGray } from '../src/testing/synthetic-images';
import { Vocabulary } from '../src/vocabulary';
import type { RgbImage } from '../src/types';

const TRAINING_SEEDS = Array.from({ length: 60 }, (_, i) => 100_000 + i);
const VOCABULARY_SEED = 7;

async function variants(img: RgbImage): Promise<RgbImage[]> {
  const raw = { raw: { width: img.width, height: img.height, channels: 3 as const } };
  const half = await sharp(Buffer.from(img.data), raw).resize(Math.round(img.width / 2)).raw().toBuffer({ resolveWithObject: true });
  const degraded = await sharp(await sharp(Buffer.from(img.data), raw).blur(1.2).jpeg({ quality: 30 }).toBuffer()).raw().toBuffer({ resolveWithObject: true });
  return [img, { data: half.data, width: half.info.width, height: half.info.height }, { data: degraded.data, width: img.width, height: img.height }];
}

async function main(): Promise<void> {
  const chunks: Uint8Array[] = [];
  for (const seed of TRAINING_SEEDS) {
    for (const v of await variants(await syntheticImage(seed))) chunks.push((await extractFeatures(toGray(v))).descriptors);
  }
  const all = new Uint8Array(chunks.reduce((s, c) => s + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    all.set(c, o);
    o += c.length;
  }
  const t = Date.now();
  const vocabulary = Vocabulary.train(all, { seed: VOCABULARY_SEED });
  const bytes = vocabulary.serialize();
  writeFileSync(DEFAULT_VOCABULARY_PATH, bytes);
  console.log(`${all.length / 32} descriptors -> ${vocabulary.size} words, ${bytes.length} bytes, trained in ${Date.now() - t} ms`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
