/**
 * What one verification costs, without a collection: the benchmark's astronomy photos verified against each other
 * (`verifyMatch`, as a search verifies a shortlist: unrelated but alike, the pairs an unmatched query pays for), and a
 * sample of all photos given the weak fit of the dense second chance (`weakFitOptions`, which grows repeated-pattern
 * fits when RANSAC finds none). Prints the total and percentiles of each, best of three passes, and a digest of the
 * outcomes, so a change meant to be faster only can be checked to answer the same.
 *
 *   sh tools/bench/match/setup.sh && npx tsx tools/bench/match/verify-cost.ts [--photos 50]
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extractFeatures, verifyMatch, weakFitOptions, type Features, type VerifyOptions } from '@loupe/fingerprint';
import { grayImageOf, normalizeImage } from '@loupe/imaging';
import { flag, machine, pct } from '../report';
import { loadDataset, type Photo } from './dataset';

const PASSES = 3;

async function featuresOf(photos: Photo[]): Promise<Features[]> {
  const out: Features[] = [];
  for (const p of photos) out.push(await extractFeatures(grayImageOf(await normalizeImage(await readFile(p.file), { preferredSide: 600 }))));
  return out;
}

/** Verifies every pair PASSES times; the fastest pass's times, and the outcomes (inlier counts) of the pairs. */
async function timePairs(features: Features[], pairs: Array<[number, number]>, options: VerifyOptions) {
  let best: number[] | null = null;
  const outcomes: string[] = [];
  for (let pass = 0; pass < PASSES; pass++) {
    const times: number[] = [];
    for (const [i, j] of pairs) {
      const started = performance.now();
      const fit = await verifyMatch(features[i], features[j], options);
      times.push(performance.now() - started);
      if (pass === 0) outcomes.push(`${i}-${j}:${fit ? fit.inliers : '-'}`);
    }
    if (!best || sum(times) < sum(best)) best = times;
  }
  return { times: best!, digest: createHash('sha1').update(outcomes.join(' ')).digest('hex').slice(0, 12), fits: outcomes.filter((o) => !o.endsWith('-')).length };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function report(name: string, { times, digest, fits }: { times: number[]; digest: string; fits: number }): void {
  console.log(
    `${name}: ${times.length} pairs, total ${sum(times).toFixed(0)} ms, p50 ${pct(times, 50).toFixed(2)} / p95 ${pct(times, 95).toFixed(2)} / max ${Math.max(...times).toFixed(1)} ms; ${fits} fits, outcomes ${digest}`,
  );
}

async function main(): Promise<void> {
  const count = Number(flag('photos') ?? 50);
  console.log(machine());
  const { photos } = await loadDataset();
  const astronomy = await featuresOf(photos.filter((p) => p.family !== 'wallpaper').filter((_, i) => i % 5 === 0).slice(0, count));
  const all = await featuresOf(photos.filter((_, i) => i % 9 === 0).slice(0, count));
  const everyPair = astronomy.flatMap((_, i) => astronomy.flatMap((__, j): Array<[number, number]> => (i === j ? [] : [[i, j]])));
  // Three other photos each: the weak fit costs up to tens of ms a pair, a full cross product would take minutes.
  const weakPairs = all.flatMap((_, i) => [1, 2, 3].map((d): [number, number] => [i, (i + 7 * d) % all.length]));
  report('feature verification, astronomy photos against each other', await timePairs(astronomy, everyPair, {}));
  report("weak fits (the dense second chance's), photos against three others", await timePairs(all, weakPairs, weakFitOptions(false)));
}

void main();
