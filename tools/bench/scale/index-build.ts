/**
 * How long building a collection's inverted index takes from its word lists, one image at a time (`add`) against a
 * load page at a time (`addAll`, what MatchIndexCache's load from rows does): the cost behind "index load from rows"
 * at a million images, in one process, without the database.
 *
 *   npx tsx --expose-gc tools/bench/scale/index-build.ts [images=20000] [rounds=3]
 *
 * Word lists: `images` lists of ~760 distinct words (the photos' average with the search vocabulary) drawn from its
 * 60,055 words with a Zipf-like skew (rank^-0.8), so list lengths spread as the real ones do. The two ways alternate
 * `rounds` times, so a machine busy with other work slows both alike; CPU time is reported next to wall time.
 */
import { InvertedIndex, seededRandom } from '@loupe/fingerprint';
import { performance } from 'node:perf_hooks';
import { WORDS_PER_IMAGE, VOCABULARY, zipfWordLists } from './zipf-words';

const images = Number(process.argv[2] ?? 20_000);
const rounds = Number(process.argv[3] ?? 3);
const PAGE = 5_000;

function timed(label: string, build: () => InvertedIndex): number {
  (global as { gc?: () => void }).gc?.();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const index = build();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  console.log(`${label}: ${(ms / 1000).toFixed(2)} s wall, ${((used.user + used.system) / 1e6).toFixed(2)} s CPU, ${index.size} images`);
  return (used.user + used.system) / 1000;
}

const lists = zipfWordLists(images, seededRandom(5));
console.log(`${images} word lists of ${WORDS_PER_IMAGE} words over ${VOCABULARY}`);
const cpu = { add: [] as number[], addAll: [] as number[] };
for (let round = 0; round < rounds; round++) {
  cpu.add.push(
    timed('add, image by image', () => {
      const index = new InvertedIndex();
      lists.forEach((words, key) => index.add(key, words));
      return index;
    }),
  );
  cpu.addAll.push(
    timed(`addAll, pages of ${PAGE}`, () => {
      const index = new InvertedIndex();
      for (let at = 0; at < lists.length; at += PAGE) index.addAll(lists.slice(at, at + PAGE).map((words, i) => ({ imageKey: at + i, words })));
      return index;
    }),
  );
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(`median CPU: add ${(median(cpu.add) / 1000).toFixed(2)} s, addAll ${(median(cpu.addAll) / 1000).toFixed(2)} s (${(median(cpu.add) / median(cpu.addAll)).toFixed(2)}x)`);
