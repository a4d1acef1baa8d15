import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { VoteHelper, VoteLists } from '../posting-lists';

/** What the vote worker is sent: its lists as indexes into `chunks` (each shared buffer sent once), and the output. */
export interface VoteJob {
  chunks: SharedArrayBuffer[];
  /** Where each chunk's bytes start in its buffer, and how many. */
  chunkStarts: number[];
  chunkLengths: number[];
  chunkOfList: number[];
  offsets: Int32Array;
  lengths: Int32Array;
  counts: Int32Array;
  idfs: Float64Array;
  tfQueries: Int32Array;
  output: SharedArrayBuffer;
  slots: number;
}

const VOTE_PENDING = 0;
export const VOTE_DONE = 1;
export const VOTE_FAILED = 2;

/**
 * A vote below this many postings is read in the calling thread alone: a message and a wake-up cost about 0.1 ms plus
 * a microsecond per chunk sent, and the sum of the two threads' votes a pass over every image.
 */
const MIN_POSTINGS = 400_000;
/**
 * Longest wait for the helper's half. Its half takes as long as the caller's (~50 ms at a million images); past this
 * the thread is taken for stuck, replaced, and its lists read by the caller.
 */
const WAIT_MS = 5_000;

const RESPAWN_AFTER_MS = 60_000;

/**
 * One thread beside a search process's main thread that reads part of each large vote (`PostingLists.addVotes`).
 * Started by the first vote large enough to use it; until it says it is ready, votes run in the calling thread alone.
 * The caller blocks in `finish` (Atomics.wait) rather than awaiting, so the index it votes on cannot change meanwhile,
 * and the vote stays a synchronous call.
 */
export class VoteThread implements VoteHelper {
  readonly minPostings: number;
  private worker: Worker | null = null;
  private ready = false;
  private readyOnce: Promise<void> | null = null;
  private control = new Int32Array(new SharedArrayBuffer(4));
  private output = new SharedArrayBuffer(8);
  private slots = 0;
  private closed = false;
  private failedAt = -Infinity;

  private readonly waitMs: number;

  constructor(options: { minPostings?: number; waitMs?: number } = {}) {
    this.minPostings = options.minPostings ?? MIN_POSTINGS;
    this.waitMs = options.waitMs ?? WAIT_MS;
  }

  start(lists: VoteLists, slots: number): boolean {
    if (!this.ready) {
      this.spawn();
      return false;
    }
    const chunkIds = new Map<Uint8Array, number>();
    const chunks: Uint8Array[] = [];
    const chunkOfList = lists.data.map((bytes) => {
      let id = chunkIds.get(bytes);
      if (id === undefined) {
        chunkIds.set(bytes, (id = chunks.length));
        chunks.push(bytes);
      }
      return id;
    });
    // Every posting chunk is allocated shared (PostingLists); should one ever not be, the caller reads the whole vote.
    if (chunks.some((bytes) => !(bytes.buffer instanceof SharedArrayBuffer))) return false;
    if (this.output.byteLength < slots * 8) this.output = new SharedArrayBuffer(Math.ceil(slots * 1.25) * 8);
    this.slots = slots;
    Atomics.store(this.control, 0, VOTE_PENDING);
    const job: VoteJob = {
      chunks: chunks.map((bytes) => bytes.buffer as SharedArrayBuffer),
      chunkStarts: chunks.map((bytes) => bytes.byteOffset),
      chunkLengths: chunks.map((bytes) => bytes.length),
      chunkOfList, offsets: lists.offsets, lengths: lists.lengths, counts: lists.counts, idfs: lists.idfs, tfQueries: lists.tfQueries, output: this.output, slots };
    this.worker!.postMessage(job);
    return true;
  }

  finish(votes: Float64Array, fallback: () => void): void {
    Atomics.wait(this.control, 0, VOTE_PENDING, this.waitMs);
    if (Atomics.load(this.control, 0) !== VOTE_DONE) {
      this.discard();
      fallback();
      return;
    }
    const theirs = new Float64Array(this.output, 0, this.slots);
    for (let slot = 0; slot < this.slots; slot++) votes[slot] += theirs[slot];
  }

  /** Starts the thread now and resolves once it takes votes (benchmarks and tests, which want it before measuring). */
  async warm(): Promise<void> {
    this.spawn();
    await this.readyOnce;
    if (!this.ready) throw new Error('The vote thread did not start.');
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    this.ready = false;
    await worker?.terminate();
  }

  private spawn(): void {
    // A thread that failed is replaced at most once a minute: votes run in the calling thread meanwhile.
    if (this.worker || this.closed || Date.now() - this.failedAt < RESPAWN_AFTER_MS) return;
    // vote-worker.ts from the sources (tsx, vitest), vote-worker.js from the compiled build, as the thread pool does.
    const entry = path.join(__dirname, `vote-worker${path.extname(__filename)}`);
    const worker = new Worker(path.join(__dirname, 'worker-boot.cjs'), { workerData: { entry, control: this.control.buffer } });
    // Idle, it must not keep a process alive that has nothing else to do.
    worker.unref();
    this.readyOnce = new Promise((resolve) => {
      worker.once('message', () => {
        if (this.worker === worker) this.ready = true;
        resolve();
      });
      worker.once('exit', () => {
        if (this.worker === worker) this.discard();
        resolve();
      });
    });
    worker.on('error', () => undefined);
    this.worker = worker;
  }

  /** Forgets a thread that failed or timed out; a new one, with its own control word, starts with the next large vote. */
  private discard(): void {
    this.failedAt = Date.now();
    const worker = this.worker;
    this.worker = null;
    this.ready = false;
    this.control = new Int32Array(new SharedArrayBuffer(4));
    void worker?.terminate();
  }
}
