/**
 * Public index benchmark: import rate of real images through the import pipeline (decode, normalise to 300 px, ORB,
 * quantise, one transaction per image), then search latency of the worker's search (shard fan-out, verification,
 * backlinks, overlays) over an index padded to `total` images with SYNTHETIC word lists (random visual words, no
 * features: a synthetic candidate is skipped by verification, so verification cost is that of the real candidates
 * only; `verify` below reports what one failed verification costs, to add for a fully real index).
 * Recall@1 is measured on crops of the real images.
 *
 *   node --expose-gc --import tsx tools/bench/api/run.ts [total=100000] [real=200] [queries=40]
 *
 * Embedded PGlite in memory by default; BENCH_DATABASE_URL=postgres://… measures on Postgres, which keeps the
 * database out of this process, so the memory growth measured while loading the shards is the shards' own.
 * --expose-gc lets the memory figures be taken after a full collection. Searches verify on VERIFY_THREADS threads
 * (default: one per core, at most 4), as a worker does.
 */
import { matchVocabulary } from '../../../libs/jobs/src/match/vocabulary';
import { InvertedIndex, ThreadPool, verifyMatch, verifyOnThreads } from '@loupe/fingerprint';
import { computeThreads, JOB_POLICY, loadPublicImage, ManifestEntry, parseShardSets, PublicImportService, publicIndexProcessors, PublicIndexShards, PublicSearchService, QueuedCandidateSource, runImport } from '@loupe/jobs';
import { createBullQueue, JobQueue, startBullWorkers } from '@loupe/queue';
import { decodeWords, migrate, MIGRATIONS, openBlobStore, openDatabase, PUBLIC_INDEX_PARTITIONS, PublicIndexRepository } from '@loupe/storage';
import { createTestDatabase } from '@loupe/storage/src/testing';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { sceneSvg } from '../../../apps/gateway/test/images';
import { seededRandom as mulberry32 } from '@loupe/fingerprint';

const total = Number(process.argv[2] ?? 100_000);
const realCount = Number(process.argv[3] ?? 200);
const queryCount = Number(process.argv[4] ?? 40);
/** Distinct visual words of a synthetic image: what a real 300 px index image yields (measured: ~600-800). */
const SYNTHETIC_WORDS = 700;
const SYNTHETIC_BATCH = 1000;


function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-bench-api-'));
  const pg = process.env.BENCH_DATABASE_URL ? await createTestDatabase(process.env.BENCH_DATABASE_URL) : null;
  const db = await openDatabase(pg ? { url: pg.url } : {});
  try {
    await migrate(db, MIGRATIONS);
    const blobs = await openBlobStore({ dataDir: dir });
    const repo = new PublicIndexRepository(db);
    const vocabulary = matchVocabulary();

    // 1. Real images through the import pipeline.
    const entries: ManifestEntry[] = [];
    const originals: Buffer[] = [];
    for (let i = 0; i < realCount; i++) {
      const jpeg = await sharp(Buffer.from(sceneSvg(20_000 + i, 640, 480))).jpeg({ quality: 88 }).toBuffer();
      originals.push(jpeg);
      const file = path.join(dir, `real${i}.jpg`);
      await writeFile(file, jpeg);
      entries.push({ line: i + 1, source: file, image_url: `https://cdn.example.com/${i}.jpg`, backlink: `https://site${i % 50}.example.com/p${i}`, domain: `site${i % 50}.example.com`, crawl_date: '2024-01-01' });
    }
    // As `index import` runs it: images prepared on the compute threads, two entries in flight per thread.
    const compute = computeThreads();
    const concurrency = 2 * Math.max(1, compute.parallelism);
    const importStart = performance.now();
    const importCpu = process.cpuUsage();
    const imported = await runImport(new PublicImportService(repo, blobs, undefined, compute.run), entries, { concurrency }).finally(() => compute.close());
    const importSeconds = (performance.now() - importStart) / 1000;
    const cpuMs = (({ user, system }) => (user + system) / 1000)(process.cpuUsage(importCpu));
    console.log(
      `import: ${imported.counts.added} real images in ${importSeconds.toFixed(1)} s = ${(imported.counts.added / importSeconds).toFixed(2)} images/s ` +
        `(${compute.parallelism} compute threads, concurrency ${concurrency}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}, ${pg ? 'Postgres' : 'PGlite'}; CPU ${(cpuMs / imported.counts.added).toFixed(0)} ms/image)`,
    );

    // 2. Pad to `total` with synthetic word lists, in multi-row inserts (routed to the hash partitions).
    const rand = mulberry32(7);
    const padStart = performance.now();
    for (let done = realCount; done < total; done += SYNTHETIC_BATCH) {
      const n = Math.min(SYNTHETIC_BATCH, total - done);
      const hashes: Buffer[] = [];
      const words: Buffer[] = [];
      for (let i = 0; i < n; i++) {
        const w = new Uint32Array(SYNTHETIC_WORDS);
        // Skewed like real visual words: a few common words, a long tail (squared uniform over the vocabulary).
        for (let k = 0; k < SYNTHETIC_WORDS; k++) w[k] = Math.floor(rand() * rand() * vocabulary.vocabulary.size);
        words.push(Buffer.from(w.buffer));
        hashes.push(Buffer.from(`synthetic-${done + i}`));
      }
      await db.query(
        `INSERT INTO public_images (id, content_hash, format, width, height, filesize, norm_width, norm_height, norm_blob_key, feature_count, features, vocabulary, words)
         SELECT nextval('public_images_id_seq'), h, 'jpeg', 400, 300, 30000, 400, 300, 'none', 0, ''::bytea, $2, w FROM unnest($1::bytea[], $3::bytea[]) AS t(h, w)`,
        [hashes, vocabulary.id, words],
      );
    }
    await db.query(`UPDATE public_index_stats SET image_count = (SELECT count(*) FROM public_images)`);
    console.log(`padding: ${total - realCount} synthetic images inserted in ${((performance.now() - padStart) / 1000).toFixed(1)} s`);

    // 3. Memory per image: the generic InvertedIndex (what the shards used before) and the compact shards, each
    // measured after a full collection, one at a time.
    const settle = () => {
      (globalThis as { gc?: () => void }).gc?.();
      (globalThis as { gc?: () => void }).gc?.();
      return process.memoryUsage();
    };
    const growth = (before: NodeJS.MemoryUsage, after: NodeJS.MemoryUsage, images: number) =>
      (['rss', 'heapUsed', 'arrayBuffers'] as const)
        .map((k) => `${k} +${((after[k] - before[k]) / 1048576).toFixed(0)} MB (${((after[k] - before[k]) / images).toFixed(0)} B/image)`)
        .join(', ');
    if (!(globalThis as { gc?: () => void }).gc) console.log('(no --expose-gc: memory figures include garbage not yet collected)');
    {
      const before = settle();
      const generic: InvertedIndex[] = [];
      let n = 0;
      for (let shard = 0; shard < PUBLIC_INDEX_PARTITIONS; shard++) {
        const index = new InvertedIndex();
        for (let afterId = 0; ; ) {
          const page = await repo.shardWords(shard, vocabulary.id, { afterId, limit: 5000 });
          for (const row of page) index.add(row.id, decodeWords(row.words));
          n += page.length;
          if (page.length < 5000) break;
          afterId = page[page.length - 1].id;
        }
        generic.push(index);
      }
      console.log(`InvertedIndex (before): ${n} images: ${growth(before, settle(), n)}`);
      generic.length = 0;
    }
    const shards = new PublicIndexShards(repo, vocabulary.id);
    const memoryBefore = settle();
    const loadStart = performance.now();
    await shards.refresh();
    const loadSeconds = (performance.now() - loadStart) / 1000;
    console.log(`shard load: ${shards.size} images in 16 shards in ${loadSeconds.toFixed(1)} s; CompactShardIndex: ${growth(memoryBefore, settle(), shards.size)}; typed arrays ${(shards.typedBytes / 1048576).toFixed(0)} MB (${(shards.typedBytes / shards.size).toFixed(0)} B/image)`);
    const threads = process.env.VERIFY_THREADS !== undefined ? Number(process.env.VERIFY_THREADS) : Math.min(4, os.availableParallelism());
    const pool = threads > 0 ? new ThreadPool(threads) : null;
    const search = new PublicSearchService(repo, blobs, shards, pool ? verifyOnThreads(pool) : undefined, pool?.runner);
    // One untimed search starts the threads (each loads OpenCV), as in a worker that has served a search before.
    await blobs.put('staging/warm', originals[0]);
    await search.search({ query: { staged_key: 'staging/warm', label: 'warm' }, offset: 0, limit: 10, sort: 'score', order: 'desc' });
    const latencies: number[] = [];
    let hits = 0;
    const rq = mulberry32(11);
    for (let q = 0; q < queryCount; q++) {
      const target = Math.floor(rq() * realCount);
      const crop = await sharp(originals[target]).extract({ left: 80, top: 60, width: 480, height: 360 }).resize(400, 300).jpeg({ quality: 80 }).toBuffer();
      await blobs.put(`staging/q${q}`, crop);
      const started = performance.now();
      const result = await search.search({ query: { staged_key: `staging/q${q}`, label: 'q' }, offset: 0, limit: 10, sort: 'score', order: 'desc' });
      latencies.push(performance.now() - started);
      if (result.matches[0]?.image_url === `https://cdn.example.com/${target}.jpg`) hits++;
    }
    const candidateTimes: number[] = [];
    const probe = await loadPublicImage(originals[0], 'probe');
    const probeWords = vocabulary.vocabulary.quantize(probe.features);
    for (let q = 0; q < 20; q++) {
      const started = performance.now();
      await shards.candidates(probeWords, 200);
      candidateTimes.push(performance.now() - started);
    }
    // 4. The same candidates through the queue: two shard sets, each owned by a BullMQ worker (in this process, over
    // BENCH_REDIS_URL), fanned out and merged as a search with PUBLIC_SHARD_SETS=0-7,8-15 does.
    if (process.env.BENCH_REDIS_URL) {
      const prefix = `bench-${Date.now()}`;
      let queue: JobQueue | null = null;
      const processors = publicIndexProcessors(repo, blobs, undefined, { sets: '0-7,8-15', queue: () => queue });
      const owned = ['public_candidates_0-7', 'public_candidates_8-15'];
      const ownerLoad = performance.now();
      for (const kind of owned) await processors[kind]({ words: [], limit: 0 }, { kind, group: 'warm-up', attempt: 1 });
      const ownerLoadSeconds = (performance.now() - ownerLoad) / 1000;
      const workers = await startBullWorkers({ redisUrl: process.env.BENCH_REDIS_URL, prefix, processors, kinds: owned });
      queue = createBullQueue({ policy: JOB_POLICY, redisUrl: process.env.BENCH_REDIS_URL, prefix, kinds: owned });
      const remote = new QueuedCandidateSource(parseShardSets('0-7,8-15')!, () => queue);
      const remoteTimes: number[] = [];
      for (let q = 0; q < 21; q++) {
        const started = performance.now();
        const merged = await remote.candidates(probeWords, 200);
        remoteTimes.push(performance.now() - started);
        if (q === 0 && JSON.stringify(merged) !== JSON.stringify(await shards.candidates(probeWords, 200))) throw new Error('fan-out and local candidates differ');
      }
      console.log(`shard sets over BullMQ (2 sets, owners loaded in ${ownerLoadSeconds.toFixed(1)} s): candidates median ${[...remoteTimes].sort((a, b) => a - b)[10].toFixed(1)} ms, same list as local`);
      await queue.close();
      await workers.close();
    }
    const other = await loadPublicImage(originals[1], 'other');
    const verifyStart = performance.now();
    for (let q = 0; q < 10; q++) await verifyMatch(probe.features, other.features);
    console.log(`shard fan-out (candidates only): median ${[...candidateTimes].sort((a, b) => a - b)[10].toFixed(1)} ms; one failed verification: ${((performance.now() - verifyStart) / 10).toFixed(0)} ms (at most 12-60 per search, spread over VERIFY_THREADS)`);
    const sorted = [...latencies].sort((a, b) => a - b);
    await pool?.close();
    console.log(`search over ${shards.size} images (${threads} verification threads): p50 ${percentile(sorted, 50).toFixed(0)} ms, p95 ${percentile(sorted, 95).toFixed(0)} ms, max ${sorted[sorted.length - 1].toFixed(0)} ms; recall@1 ${hits}/${queryCount} (crops of real images, overlays included)`);
  } finally {
    await db.close();
    await pg?.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
