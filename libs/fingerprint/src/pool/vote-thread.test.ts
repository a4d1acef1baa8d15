import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { InvertedIndex } from '../inverted-index';
import type { VoteLists } from '../posting-lists';
import { seededRandom } from '../random';
import { VoteThread } from './vote-thread';

/** 2,000 images of 200 words from 2,000, loaded as a cache loads a collection: queries read ~10^5 postings from ~150 lists. */
function randomIndex(): { index: InvertedIndex; queries: Uint32Array[]; wordsOf: () => Uint32Array } {
  const rnd = seededRandom(11);
  const wordsOf = () => Uint32Array.from({ length: 200 }, () => Math.floor(rnd() ** 2 * 2000));
  const index = new InvertedIndex();
  index.addAll(Array.from({ length: 2000 }, (_, imageKey) => ({ imageKey, words: wordsOf() })));
  index.trim();
  return { index, queries: Array.from({ length: 12 }, wordsOf), wordsOf };
}

/** Counts the votes the thread took (its `start` said yes). */
function countingStarts(thread: VoteThread): { taken: number } {
  const counter = { taken: 0 };
  const start = thread.start.bind(thread);
  thread.start = (lists: VoteLists, slots: number) => {
    const taken = start(lists, slots);
    if (taken) counter.taken++;
    return taken;
  };
  return counter;
}

/** Votes every query with and without `thread`, expects the same candidates, and returns the votes the thread took. */
function sharedVotesTaken(index: InvertedIndex, queries: Uint32Array[], thread: VoteThread): number {
  const counter = countingStarts(thread);
  for (const words of queries) expectSameCandidates(index.candidates(words, 100), index.candidates(words, 100, undefined, { helper: thread }));
  return counter.taken;
}

function expectSameCandidates(a: Array<{ imageKey: number; votes: number }>, b: Array<{ imageKey: number; votes: number }>): void {
  expect(b.map((c) => c.imageKey)).toEqual(a.map((c) => c.imageKey));
  // The two threads' sums are added in another order than one thread's: equal up to rounding.
  b.forEach((c, i) => expect(c.votes).toBeCloseTo(a[i].votes, 9));
}

describe('VoteThread', () => {
  let thread: VoteThread | null = null;
  afterEach(async () => {
    await thread?.close();
    thread = null;
  });

  it('shares a vote: the same candidates and votes as the calling thread alone', async () => {
    const { index, queries } = randomIndex();
    thread = new VoteThread({ minPostings: 1 });
    await thread.warm();
    expect(sharedVotesTaken(index, queries, thread)).toBe(queries.length);
  });

  it('shares lists that moved to new chunks as images were added after the load', async () => {
    const { index, queries, wordsOf } = randomIndex();
    for (let imageKey = 2000; imageKey < 2300; imageKey++) index.add(imageKey, wordsOf());
    thread = new VoteThread({ minPostings: 1 });
    await thread.warm();
    expect(sharedVotesTaken(index, queries, thread)).toBe(queries.length);
  });

  it('leaves votes below its minimum of postings to the calling thread', async () => {
    const { index, queries } = randomIndex();
    thread = new VoteThread({ minPostings: 10_000_000 });
    await thread.warm();
    expect(sharedVotesTaken(index, queries, thread)).toBe(0);
  });

  it('votes in the calling thread until its thread is ready, then shares', async () => {
    const { index, queries } = randomIndex();
    thread = new VoteThread({ minPostings: 1 });
    const counter = countingStarts(thread);
    expectSameCandidates(index.candidates(queries[0], 100), index.candidates(queries[0], 100, undefined, { helper: thread }));
    expect(counter.taken).toBe(0);
    await thread.warm();
    index.candidates(queries[1], 100, undefined, { helper: thread });
    expect(counter.taken).toBe(1);
  });

  it('answers a vote whose thread is terminated while it reads: the calling thread reads its lists', async () => {
    const { index, queries } = randomIndex();
    thread = new VoteThread({ minPostings: 1, waitMs: 200 });
    await thread.warm();
    const worker = (thread as unknown as { worker: Worker }).worker;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    const start = thread.start.bind(thread);
    // Terminated right after the lists were handed over: whether it dies before or after answering, the vote is whole.
    thread.start = (lists: VoteLists, slots: number) => {
      const taken = start(lists, slots);
      void worker.terminate();
      return taken;
    };
    expectSameCandidates(index.candidates(queries[0], 100), index.candidates(queries[0], 100, undefined, { helper: thread }));
    await exited;
    // Afterwards, votes run in the calling thread (a failed thread is replaced at most once a minute).
    expect(sharedVotesTaken(index, queries.slice(1, 2), thread)).toBe(0);
  });
});
