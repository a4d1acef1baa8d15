import { describe, expect, it } from 'vitest';
import { FIRST_ROUND, LATER_ROUND, MAX_VERIFIED, verifyInRounds } from './verify-rounds';

/** Candidates 0..n-1; those in `matching` verify. Records every batch asked for. */
function run(n: number, matching: number[], wanted: number, widen?: () => Promise<number[]>) {
  const batches: number[][] = [];
  const reads: number[][] = [];
  const ranked = Array.from({ length: n }, (_, i) => i);
  const done = verifyInRounds(ranked, wanted, {
    read: async (batch) => {
      reads.push(batch);
      return batch.map((c) => `features of ${c}`);
    },
    verify: async (batch, read) => {
      batches.push(batch);
      expect(read).toEqual(batch.map((c) => `features of ${c}`));
      return batch.map((c) => (matching.includes(c) ? `match ${c}` : null));
    },
  }, widen);
  return done.then((found) => ({ found: found.map((f) => f.candidate), batches, reads }));
}

describe('verification in rounds', () => {
  it('stops after the first round when it finds a match', async () => {
    const { found, batches } = await run(200, [0, 5], 10);
    expect(found).toEqual([0, 5]);
    expect(batches).toHaveLength(1);
    expect(batches[0]).toHaveLength(FIRST_ROUND);
  });

  it('goes on round after round until a low-ranked match is found', async () => {
    const { found, batches } = await run(200, [40, 70], 10);
    expect(found).toEqual([40]);
    expect(batches.map((b) => [b[0], b.length])).toEqual([[0, FIRST_ROUND], [12, LATER_ROUND], [36, LATER_ROUND]]);
  });

  it('verifies at most MAX_VERIFIED candidates when nothing matches', async () => {
    const { found, batches } = await run(200, [], 10);
    expect(found).toEqual([]);
    expect(batches.flat()).toEqual(Array.from({ length: MAX_VERIFIED }, (_, i) => i));
  });

  it('verifies the whole page asked for in the first round, and never more than there are candidates', async () => {
    expect((await run(200, [1], 40)).batches[0]).toHaveLength(40);
    expect((await run(200, [1], 500)).batches[0]).toHaveLength(MAX_VERIFIED);
    expect((await run(5, [], 10)).batches).toEqual([[0, 1, 2, 3, 4]]);
    expect((await run(0, [], 10)).batches).toEqual([]);
  });

  it('reads the next round ahead from the second round on, and only one round ahead', async () => {
    // Found in the first round: only its batch was read.
    expect((await run(200, [3], 10)).reads).toHaveLength(1);
    // Found in the second round: rounds 1-2 verified, round 3 read ahead while round 2 verified, nothing beyond.
    const { batches, reads } = await run(200, [30], 10);
    expect(batches).toHaveLength(2);
    expect(reads.map((b) => b[0])).toEqual([0, 12, 36]);
  });

  it('takes the later rounds in the widened order when the first round found nothing, skipping what it verified', async () => {
    // The widened order puts 500 (found another way) first, then candidates of the first round again, then the rest.
    const widened = [500, 3, 7, ...Array.from({ length: 200 }, (_, i) => 1000 + i)];
    let widenings = 0;
    const widen = async () => {
      widenings++;
      return widened;
    };
    const { found, batches } = await run(200, [500, 1005], 10, widen);
    expect(widenings).toBe(1);
    expect(found).toEqual([500, 1005]);
    expect(batches[0]).toEqual(Array.from({ length: FIRST_ROUND }, (_, i) => i));
    expect(batches[1]).toEqual([500, ...Array.from({ length: LATER_ROUND - 1 }, (_, i) => 1000 + i)]);
    // Nothing found: at most MAX_VERIFIED in all, the first round's candidates once.
    const none = await run(200, [], 10, widen);
    expect(none.batches.flat()).toHaveLength(MAX_VERIFIED);
    expect(new Set(none.batches.flat()).size).toBe(MAX_VERIFIED);
    // Found in the first round: never widened.
    widenings = 0;
    await run(200, [2], 10, widen);
    expect(widenings).toBe(0);
  });
});
