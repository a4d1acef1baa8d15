/**
 * How long the vote of one search takes in a collection of N images (`InvertedIndex.candidates`), in one process,
 * without the database or verification: the part of search latency that grows with the collection.
 *
 *   npx tsx --expose-gc tools/bench/scale/vote.ts [images=1000000] [queries=200]
 *
 * Word lists as in index-build.ts (~760 distinct words per image drawn Zipf-like from the 60,055 search words); a query
 * is a list drawn the same way. Reports postings read per query per image (the real photos read 16.3 with the stop
 * list: docs/benchmarks.md, "Search vocabulary"), vote time p50/p95 (wall and CPU) and the index's memory.
 */
import { InvertedIndex, seededRandom } from '@loupe/fingerprint';
import { performance } from 'node:perf_hooks';
import { zipfWordLists } from './zipf-words';

const images = Number(process.argv[2] ?? 1_000_000);
const queryCount = Number(process.argv[3] ?? 200);
const PAGE = 5_000;
const CANDIDATE_POOL = 200;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

const started = performance.now();
const index = new InvertedIndex();
const rand = seededRandom(5);
for (let at = 0; at < images; at += PAGE) {
  const page = zipfWordLists(Math.min(PAGE, images - at), rand);
  index.addAll(page.map((words, i) => ({ imageKey: at + i, words })));
}
index.trim();
console.log(`${images} images indexed in ${((performance.now() - started) / 1000).toFixed(1)} s; posting arrays ${(index.typedBytes / images).toFixed(0)} B/image`);

const queries = zipfWordLists(queryCount, seededRandom(77));
let postings = 0;
for (const words of queries) {
  const statistics = index.voteStatistics(words);
  for (const df of statistics.documentFrequency.values()) if (df <= 0.1 * images || images < 1000) postings += df;
}
console.log(`postings read per query per image: ${(postings / queryCount / images).toFixed(1)}`);

const wall: number[] = [];
const cpu: number[] = [];
for (const words of queries) {
  const before = process.cpuUsage();
  const t = performance.now();
  index.candidates(words, CANDIDATE_POOL);
  wall.push(performance.now() - t);
  const used = process.cpuUsage(before);
  cpu.push((used.user + used.system) / 1000);
}
console.log(`vote: wall p50 ${pct(wall, 50).toFixed(1)} ms, p95 ${pct(wall, 95).toFixed(1)} ms; CPU p50 ${pct(cpu, 50).toFixed(1)} ms, p95 ${pct(cpu, 95).toFixed(1)} ms`);
