import { describe, expect, it } from 'vitest';
import { seededRandom } from '../random';
import { voteInKernel, type KernelLists } from './vote-kernel';

interface Posting {
  slot: number;
  tf: number;
}

/** A list's bytes in the posting layout: a varint of (gap × 2 + repeated), then the tf byte when repeated. */
function encode(postings: Posting[]): number[] {
  const out: number[] = [];
  let last = -1;
  for (const { slot, tf } of postings) {
    let value = (slot - last) * 2 + (tf > 1 ? 1 : 0);
    last = slot;
    while (value >= 0x80) {
      out.push((value & 0x7f) | 0x80);
      value = Math.floor(value / 128);
    }
    out.push(value);
    if (tf > 1) out.push(tf);
  }
  return out;
}

/** Random lists over `slots` images, packed at random offsets into two chunks, and the postings they hold. */
function randomLists(seed: number, count: number, slots: number, spreads = [3, 300, 40_000]) {
  const rnd = seededRandom(seed);
  const lists: Posting[][] = [];
  for (let j = 0; j < count; j++) {
    const postings: Posting[] = [];
    // Dense and sparse lists: by default gaps from 1 to past 2^14, so varints of one to three bytes.
    const spread = spreads[j % spreads.length];
    for (let slot = Math.floor(rnd() * spread); slot < slots; slot += 1 + Math.floor(rnd() * spread)) {
      postings.push({ slot, tf: rnd() < 0.2 ? 2 + Math.floor(rnd() * 5) : 1 });
    }
    lists.push(postings);
  }
  const chunks = [new Uint8Array(1 << 21), new Uint8Array(1 << 21)];
  const fill = [0, 0];
  const data: Uint8Array[] = [];
  const offsets = new Int32Array(count);
  const lengths = new Int32Array(count);
  lists.forEach((postings, j) => {
    const bytes = encode(postings);
    const c = j % 2;
    fill[c] += Math.floor(rnd() * 16);
    chunks[c].set(bytes, fill[c]);
    data.push(chunks[c]);
    offsets[j] = fill[c];
    lengths[j] = bytes.length;
    fill[c] += bytes.length;
  });
  const kernelLists: KernelLists = {
    data,
    offsets,
    lengths,
    counts: Int32Array.from(lists, (p) => p.length),
    idfs: Float64Array.from(lists, () => 0.1 + rnd() * 7),
    tfQueries: Int32Array.from(lists, () => 1 + Math.floor(rnd() * 4)),
  };
  return { lists, kernelLists };
}

/** The votes a plain loop adds, list after list: each slot's sum taken in list order, as the kernel's blocks do. */
function plainVotes(lists: Posting[][], { idfs, tfQueries }: KernelLists, votes: Float64Array): Float64Array {
  const out = Float64Array.from(votes);
  lists.forEach((postings, j) => {
    for (const { slot, tf } of postings) out[slot] += tf > 1 ? idfs[j] * Math.min(tfQueries[j], tf) : idfs[j];
  });
  return out;
}

/** The first slot whose votes differ (-1: none): a failure names one slot instead of printing a diff of them all. */
function firstDifference(a: Float64Array, b: Float64Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  return a.findIndex((v, i) => !Object.is(v, b[i]));
}

describe('vote kernel (WebAssembly)', () => {
  it('adds the same votes, bit for bit, as a plain loop over the lists, whatever the block size', () => {
    const slots = 100_000;
    const { lists, kernelLists } = randomLists(21, 40, slots);
    const expected = plainVotes(lists, kernelLists, new Float64Array(slots));
    for (const block of [64, 4096, 1 << 16, 1 << 20]) {
      expect(firstDifference(voteInKernel(kernelLists, slots, block), expected)).toBe(-1);
    }
    expect(expected.filter((v) => v > 0).length).toBeGreaterThan(slots / 2);
  });

  it('reads varints of four bytes too (gaps past 2^20 slots)', () => {
    const slots = 4_000_000;
    const { lists, kernelLists } = randomLists(24, 9, slots, [2_500_000, 700_000, 40, 900]);
    expect(lists[0].some((p, i) => i > 0 && p.slot - lists[0][i - 1].slot >= 1 << 20)).toBe(true);
    const expected = plainVotes(lists, kernelLists, new Float64Array(slots));
    expect(firstDifference(voteInKernel(kernelLists, slots, 1 << 16), expected)).toBe(-1);
  });

  it('starts from zero, or adds to its last votes when asked, and reads nothing for an empty vote', () => {
    const slots = 5_000;
    const first = randomLists(22, 6, slots);
    const second = randomLists(23, 5, slots);
    const none = { data: [], offsets: new Int32Array(0), lengths: new Int32Array(0), counts: new Int32Array(0), idfs: new Float64Array(0), tfQueries: new Int32Array(0) };
    const expected = plainVotes(second.lists, second.kernelLists, plainVotes(first.lists, first.kernelLists, new Float64Array(slots)));
    // A larger vote first, so that the votes below start over memory that held other votes.
    voteInKernel(randomLists(24, 30, 200_000).kernelLists, 200_000, 1024);
    voteInKernel(first.kernelLists, slots, 1024);
    expect(firstDifference(voteInKernel(second.kernelLists, slots, 1024, true), expected)).toBe(-1);
    expect(firstDifference(voteInKernel(none, slots, 1024, true), expected)).toBe(-1);
    expect(voteInKernel(none, slots, 1024).every((v) => v === 0)).toBe(true);
  });
});
