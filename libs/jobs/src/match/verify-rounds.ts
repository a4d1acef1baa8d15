/**
 * Candidates verified in the first round. The true image ranks in the first few by votes for most edits; 12 covers the
 * rest of the common cases at a bounded cost.
 */
export const FIRST_ROUND = 12;
/**
 * Candidates verified in each later round. A query still unmatched after the first round is most often not in the
 * collection and will verify every round, where fewer, larger rounds keep both verification threads busy (12 per round
 * left them waiting on each round's slowest pair and on its read); a low-ranked true image costs at most one larger round.
 */
export const LATER_ROUND = 24;
/**
 * Never verify more than this, whatever offset + limit asks for: it bounds the worst-case latency of one search (a query
 * with no match in the collection verifies all of them). On the benchmark photos the true image ranked 13th-60th by
 * votes for 10 of 290 edited queries (faint star fields, heavy blur, contrast), and 61st-81st for 3.
 */
export const MAX_VERIFIED = 60;

/** One round's work, in two steps so that the next round's reading can overlap this round's verification. */
export interface RoundSteps<C, L, R> {
  /** Reads what verifying `batch` needs (stored features). */
  read(batch: C[]): Promise<L>;
  /** Verifies `batch`; one result per candidate, null when it does not match. */
  verify(batch: C[], read: L): Promise<Array<R | null>>;
}

/**
 * Geometric verification of vote-ranked candidates in rounds: first enough for the page asked for (offset + limit, at
 * least FIRST_ROUND), then LATER_ROUND more at a time while no candidate has matched yet, up to MAX_VERIFIED. A query
 * whose image is found early pays for one round; one whose image is ranked low by votes is still found. From the second
 * round on (a query that is probably not in the collection, which will verify every round) the next round's features
 * are read while this round verifies.
 *
 * `widen`, when the first round found nothing, gives the order the later rounds take instead (`ranked` merged with
 * candidates found another way): only a query that needs them pays for them. Candidates verified already are skipped.
 */
export async function verifyInRounds<C, L, R>(
  ranked: readonly C[],
  wanted: number,
  steps: RoundSteps<C, L, R>,
  widen?: () => Promise<readonly C[]>,
): Promise<Array<{ candidate: C; result: R }>> {
  const first = ranked.slice(0, Math.min(MAX_VERIFIED, Math.max(FIRST_ROUND, wanted)));
  const found = first.length > 0 ? await verifyRound(first, await steps.read(first), steps) : [];
  if (found.length > 0) return found;
  const verified = new Set(first);
  const later = (widen ? await widen() : ranked).filter((c) => !verified.has(c)).slice(0, MAX_VERIFIED - first.length);
  const batches: C[][] = [];
  for (let next = 0; next < later.length; next += LATER_ROUND) batches.push(later.slice(next, next + LATER_ROUND));
  let reading = batches.length > 0 ? steps.read(batches[0]) : undefined;
  for (let round = 0; round < batches.length && found.length === 0; round++) {
    const read = await reading!;
    // The next round is read while this one verifies; a read started for a round that will not run (this one
    // matched) must not surface as an unhandled rejection.
    reading = batches[round + 1] && steps.read(batches[round + 1]);
    reading?.catch(() => undefined);
    found.push(...(await verifyRound(batches[round], read, steps)));
  }
  return found;
}

async function verifyRound<C, L, R>(batch: C[], read: L, steps: RoundSteps<C, L, R>): Promise<Array<{ candidate: C; result: R }>> {
  const results = await steps.verify(batch, read);
  const found: Array<{ candidate: C; result: R }> = [];
  batch.forEach((candidate, i) => {
    const result = results[i];
    if (result !== null && result !== undefined) found.push({ candidate, result });
  });
  return found;
}

/**
 * The round steps (for `verifyInRounds`) over candidates whose features are stored by id: `read` fetches the batch's
 * features, `verify` checks those that have any and answers null for the rest (a row without features, such as a
 * benchmark's synthetic padding, cannot match). Every batch read is also kept in `fetched`, so later steps of the same
 * search need not read it again.
 */
export function verifyStoredFeatures<R>(
  read: (ids: readonly number[]) => Promise<Map<number, Buffer>>,
  /** Verifies the features of the candidates `ids` (those of the batch that have features), in their order. */
  verify: (targets: Buffer[], ids: number[]) => Promise<Array<R | null>>,
  fetched = new Map<number, Buffer>(),
): RoundSteps<number, Map<number, Buffer>, R> {
  return {
    read: async (batch) => {
      const stored = await read(batch);
      for (const [id, features] of stored) fetched.set(id, features);
      return stored;
    },
    verify: async (batch, stored) => {
      const present = batch.filter((id) => (stored.get(id)?.length ?? 0) > 0);
      const results = await verify(present.map((id) => stored.get(id)!), present);
      const resultOf = new Map(present.map((id, i) => [id, results[i]]));
      return batch.map((id) => resultOf.get(id) ?? null);
    },
  };
}
