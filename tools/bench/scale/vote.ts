/**
 * How long the vote of one search takes in a collection of N images (`InvertedIndex.candidates`), in one process,
 * without verification: the part of search latency that grows with the collection.
 *
 *   npx tsx --expose-gc tools/bench/scale/vote.ts [images=1000000] [queries=200]
 *   npx tsx --expose-gc --max-old-space-size=8000 tools/bench/scale/vote.ts --database postgres://postgres@127.0.0.1:5432/loupe_bench_scale
 *
 * Generated word lists as in index-build.ts (~760 distinct words per image drawn Zipf-like from the 60,055 search
 * words; a query is a list drawn the same way), or, with --database, the word lists of a collection the million-image
 * benchmark (run.ts) left in Postgres, queried with the words of its first 100 queried photos. Reports postings read
 * per query per image (the real photos read 16.3 with the stop list: docs/benchmarks.md, "Search vocabulary"), vote
 * time p50/p95 (wall and CPU) and the posting arrays per image.
 */
import { InvertedIndex, seededRandom, VoteThread } from '@loupe/fingerprint';
import { decodeWords } from '@loupe/storage';
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { machine, pct } from '../report';
import { zipfWordLists } from './zipf-words';

const database = process.argv.includes('--database') ? process.argv[process.argv.indexOf('--database') + 1] : undefined;
const [images, queryCount] = database ? [0, 100] : [Number(process.argv[2] ?? 1_000_000), Number(process.argv[3] ?? 200)];
const PAGE = 5_000;
const CANDIDATE_POOL = 200;

/** The index and the queries' word lists: generated, or read from a benchmark collection. */
async function build(index: InvertedIndex): Promise<Uint32Array[]> {
  if (!database) {
    const rand = seededRandom(5);
    for (let at = 0; at < images; at += PAGE) {
      const page = zipfWordLists(Math.min(PAGE, images - at), rand);
      index.addAll(page.map((words, i) => ({ imageKey: at + i, words })));
    }
    return zipfWordLists(queryCount, seededRandom(77));
  }
  const db = new Client({ connectionString: database });
  await db.connect();
  const queries: Uint32Array[] = [];
  try {
    for (let after = 0; ; ) {
      const { rows } = await db.query<{ id: string; filepath: string; words: Buffer }>(
        'SELECT i.id, i.filepath, w.words FROM images i JOIN image_words w ON w.image_pk = i.id WHERE i.id > $1 ORDER BY i.id LIMIT $2',
        [after, PAGE],
      );
      if (rows.length === 0) break;
      for (const r of rows) if (r.filepath.startsWith('queried/') && queries.length < queryCount) queries.push(decodeWords(r.words));
      index.addAll(rows.map((r) => ({ imageKey: Number(r.id), words: decodeWords(r.words) })));
      after = Number(rows[rows.length - 1].id);
    }
  } finally {
    await db.end();
  }
  return queries;
}

async function main(): Promise<void> {
  console.log(machine());
  const started = performance.now();
  const index = new InvertedIndex();
  const queries = await build(index);
  index.trim();
  const n = index.size;
  console.log(`${n} images indexed in ${((performance.now() - started) / 1000).toFixed(1)} s; posting arrays ${(index.typedBytes / n).toFixed(0)} B/image`);

  let postings = 0;
  for (const words of queries) {
    for (const df of index.voteStatistics(words).documentFrequency.values()) if (df <= 0.1 * n || n < 1000) postings += df;
  }
  console.log(`postings read per query per image: ${(postings / queries.length / n).toFixed(1)}`);

  const plain = measure(index, queries, null);
  report('vote, calling thread alone', plain);
  const helper = new VoteThread();
  await helper.warm();
  const shared = measure(index, queries, helper);
  report('vote, shared with a VoteThread', shared);
  let same = 0;
  queries.forEach((_, q) => {
    const a = plain.results[q];
    const b = shared.results[q];
    if (a.length === b.length && a.every((c, i) => c.imageKey === b[i].imageKey && Math.abs(c.votes - b[i].votes) <= 1e-9 * c.votes)) same++;
  });
  console.log(`same candidates and votes with and without the thread: ${same} of ${queries.length} queries`);
  // A digest of every query's candidates and votes: two builds of the vote (a kernel change) answer alike when theirs agree.
  const digest = createHash('sha256');
  for (const found of plain.results) for (const c of found) digest.update(`${c.imageKey}:${c.votes}\n`);
  console.log(`candidates digest ${digest.digest('hex').slice(0, 12)}`);
  await helper.close();
}

function measure(index: InvertedIndex, queries: Uint32Array[], helper: VoteThread | null) {
  const wall: number[] = [];
  const cpu: number[] = [];
  const results: Array<Array<{ imageKey: number; votes: number }>> = [];
  for (let round = 0; round < 2; round++) {
    for (const words of queries) {
      const before = process.cpuUsage();
      const t = performance.now();
      const found = index.candidates(words, CANDIDATE_POOL, undefined, { helper });
      wall.push(performance.now() - t);
      const used = process.cpuUsage(before);
      cpu.push((used.user + used.system) / 1000);
      if (round === 0) results.push(found);
    }
  }
  return { wall, cpu, results };
}

function report(name: string, { wall, cpu }: { wall: number[]; cpu: number[] }): void {
  console.log(`${name}: wall p50 ${pct(wall, 50).toFixed(1)} ms, p95 ${pct(wall, 95).toFixed(1)} ms; CPU p50 ${pct(cpu, 50).toFixed(1)} ms, p95 ${pct(cpu, 95).toFixed(1)} ms`);
}

void main();
