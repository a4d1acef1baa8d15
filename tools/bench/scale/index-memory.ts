/**
 * What a small collection's inverted index holds in memory: heap and array buffers grown by building it from word
 * lists (`addAll`, as a load from rows does), and the index's own estimate (`memoryBytes`, which the collection cache's
 * bound counts), for collections of 10 to 10,000 images. A worker serving many accounts holds many small collections;
 * what each costs before its postings decides how many fit.
 *
 *   npx tsx --expose-gc tools/bench/scale/index-memory.ts [sizes=10,100,1000,10000]
 *
 * Word lists as in index-build.ts (~760 distinct words per image over the 60,055 search words, Zipf-like).
 */
import { InvertedIndex, seededRandom } from '@loupe/fingerprint';
import { zipfWordLists } from './zipf-words';

const sizes = (process.argv[2] ?? '10,100,1000,10000').split(',').map(Number);
const gc = (global as { gc?: () => void }).gc;
if (!gc) throw new Error('Run with --expose-gc: the figures need a collection before and after each build.');

async function settled(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

async function main(): Promise<void> {
  console.log('| images | heap + array buffers grown | per image | memoryBytes (the cache\'s estimate) | word lists |');
  console.log('|---|---|---|---|---|');
  for (const size of sizes) {
    const lists = zipfWordLists(size, seededRandom(3));
    const before = await settled();
    let index: InvertedIndex | null = new InvertedIndex();
    index.addAll(lists.map((words, i) => ({ imageKey: i, words })));
    const grown = (await settled()) - before;
    console.log(`| ${size.toLocaleString('en')} | ${(grown / 1e6).toFixed(1)} MB | ${(grown / size / 1024).toFixed(1)} KiB | ${(index.memoryBytes / 1e6).toFixed(1)} MB | ${new Set(lists.flatMap((l) => [...l])).size.toLocaleString('en')} |`);
    index = null;
  }
}

void main();
