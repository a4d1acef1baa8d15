/*
 * Measures the numbers the services care about. Run: npx tsx libs/fingerprint/scripts/benchmark.ts
 * extraction ms per 800x600 image, verifyMatch ms (true and unrelated pair), candidates() ms and
 * heap bytes per image for an index of 10 000 images with 1000 random words each.
 */
import { extractFeatures, verifyMatch, InvertedIndex, serializeFeatures, defaultVocabulary } from '../src/index';
import { syntheticImage, toGray } from '../src/testing/synthetic-images';
import * as edit from '../src/testing/edits';
import { seededRandom } from '../src/random';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function time<T>(runs: number, fn: () => Promise<T> | T): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

async function main(): Promise<void> {
  const img = await syntheticImage(1);
  const grey = toGray(img);
  await extractFeatures(grey);
  console.log(`extract 800x600: ${(await time(10, () => extractFeatures(grey))).toFixed(1)} ms`);
  console.log(`extract 800x600 with mirror: ${(await time(5, () => extractFeatures(grey, { includeMirror: true }))).toFixed(1)} ms`);
  const target = await extractFeatures(grey);
  console.log(`serialized features: ${serializeFeatures(target).length} bytes`);
  const crop = await extractFeatures(toGray(await edit.crop(img, edit.cropBox(img, 0.5))), { includeMirror: true });
  const other = await extractFeatures(toGray(await syntheticImage(2)), { includeMirror: true });
  console.log(`verifyMatch true (50% crop): ${(await time(10, () => verifyMatch(crop, target))).toFixed(1)} ms`);
  console.log(`verifyMatch unrelated: ${(await time(10, () => verifyMatch(other, target))).toFixed(1)} ms`);
  console.log(`verifyMatch unrelated, flip check: ${(await time(10, () => verifyMatch(other, target, { checkHorizontalFlip: true }))).toFixed(1)} ms`);
  console.log(`quantize 1000 keypoints: ${(await time(10, () => defaultVocabulary().quantize(target))).toFixed(2)} ms`);

  const rnd = seededRandom(1);
  const words = () => Uint32Array.from({ length: 1000 }, () => Math.floor(rnd() * 10_000));
  global.gc?.();
  const before = process.memoryUsage();
  const index = new InvertedIndex();
  const t = performance.now();
  for (let k = 0; k < 10_000; k++) index.add(k, words());
  const buildMs = performance.now() - t;
  global.gc?.();
  const after = process.memoryUsage();
  const perImage = (after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / 10_000;
  console.log(`index 10 000 images: build ${buildMs.toFixed(0)} ms, ~${perImage.toFixed(0)} bytes/image (run with --expose-gc for a clean number)`);
  console.log(`candidates(limit 20) on 10 000: ${(await time(20, () => index.candidates(words(), 20))).toFixed(1)} ms`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
