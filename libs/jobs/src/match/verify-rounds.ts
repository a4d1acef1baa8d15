/**
 * Candidates verified in the first round. The true image ranks in the first few by votes for most edits; 12 covers the
 * rest of the common cases at a bounded cost.
 */
export const FIRST_ROUND = 12;
/**
 * Never verify more than this, whatever offset + limit asks for: it bounds the worst-case latency of one search (a query
 * with no match in the collection verifies all of them). On the benchmark photos the true image ranked 13th-60th by
 * votes for 10 of 290 edited queries (faint star fields, heavy blur, contrast), and 61st-81st for 3.
 */
export const MAX_VERIFIED = 60;

/**
 * Geometric verification of vote-ranked candidates in rounds: first enough for the page asked for (offset + limit, at
 * least FIRST_ROUND), then FIRST_ROUND more at a time while no candidate has matched yet, up to MAX_VERIFIED. A query
 * whose image is found early pays for one round; one whose image is ranked low by votes is still found.
 */
export async function verifyInRounds<C, R>(
  ranked: readonly C[],
  wanted: number,
  verify: (batch: C[]) => Promise<Array<R | null>>,
): Promise<Array<{ candidate: C; result: R }>> {
  const found: Array<{ candidate: C; result: R }> = [];
  const limit = Math.min(MAX_VERIFIED, ranked.length);
  let next = 0;
  let round = Math.min(MAX_VERIFIED, Math.max(FIRST_ROUND, wanted));
  while (next < limit && (next === 0 || found.length === 0)) {
    const batch = ranked.slice(next, Math.min(limit, next + round));
    const results = await verify(batch);
    batch.forEach((candidate, i) => {
      const result = results[i];
      if (result !== null && result !== undefined) found.push({ candidate, result });
    });
    next += batch.length;
    round = FIRST_ROUND;
  }
  return found;
}

/**
 * A round's verifier (for `verifyInRounds`) over candidates whose features are stored by id: reads the batch's
 * features through `read`, verifies those that have any and answers null for the rest (a row without features, such as
 * a benchmark's synthetic padding, cannot match). Every batch's features are also kept in `fetched`, so later steps of
 * the same search need not read them again.
 */
export function verifyStoredFeatures<R>(
  read: (ids: readonly number[]) => Promise<Map<number, Buffer>>,
  verify: (targets: Buffer[]) => Promise<Array<R | null>>,
  fetched = new Map<number, Buffer>(),
): (batch: number[]) => Promise<Array<R | null>> {
  return async (batch) => {
    const stored = await read(batch);
    for (const [id, features] of stored) fetched.set(id, features);
    const present = batch.filter((id) => (stored.get(id)?.length ?? 0) > 0);
    const results = await verify(present.map((id) => stored.get(id)!));
    const resultOf = new Map(present.map((id, i) => [id, results[i]]));
    return batch.map((id) => resultOf.get(id) ?? null);
  };
}
