import type { Features, MatchResult, VerifyOptions } from '../types';
import { verifyInThisThread, type VerifyBatch } from '../verify-batch';
import { defineTask, type ThreadPool } from './thread-pool';

interface VerifyChunk {
  /** The query as extracted (cloned with its typed arrays, and its mirrored features when flips are checked). */
  query: Features;
  targets: Uint8Array[];
  options: VerifyOptions;
}

/** Verifies one chunk of a search's shortlist. */
export const verifyChunkTask = defineTask(__filename, 'verifyChunkTask', (chunk: VerifyChunk): Promise<Array<MatchResult | null>> =>
  verifyInThisThread(chunk.query, chunk.targets, chunk.options),
);

/**
 * `VerifyBatch` spread over the pool: a shortlist verified in one thread costs the sum of its pairs; split in one chunk
 * per thread it costs the slowest chunk. Results come back in the targets' order.
 */
export function verifyOnThreads(pool: ThreadPool): VerifyBatch {
  return async (query, targets, options = {}) => {
    if (targets.length === 0) return [];
    const chunks = Array.from({ length: Math.min(pool.size, targets.length) }, () => [] as number[]);
    targets.forEach((_, i) => chunks[i % chunks.length].push(i));
    const answers = await Promise.all(
      chunks.map((indexes) => pool.run(verifyChunkTask, { query, targets: indexes.map((i) => new Uint8Array(targets[i])), options })),
    );
    const results: Array<MatchResult | null> = new Array(targets.length);
    chunks.forEach((indexes, c) => indexes.forEach((targetIndex, j) => (results[targetIndex] = answers[c][j])));
    return results;
  };
}
