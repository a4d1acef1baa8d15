import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { serializeFeatures } from '../features-codec';
import type { Features, MatchResult, VerifyOptions } from '../types';
import type { VerifyRequest, VerifyResponse } from './verify-worker';

interface Pending {
  resolve(results: Array<MatchResult | null>): void;
  reject(error: Error): void;
}

/**
 * Geometric verification on worker threads. OpenCV-WASM is single-threaded, so a search's shortlist verified in one
 * thread costs the sum of its pairs; split across threads it costs the slowest chunk, and the event loop that serves
 * HTTP stays free. Each thread loads its own OpenCV (~270 MB heap), so the pool is sized to the cores, not larger.
 */
export class VerifyPool {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  constructor(readonly size: number) {
    for (let i = 0; i < size; i++) this.workers.push(this.spawn());
  }

  private spawn(): Worker {
    const worker = new Worker(path.join(__dirname, 'worker-boot.cjs'), { workerData: { entry: path.join(__dirname, 'verify-worker.ts') } });
    worker.on('message', (response: VerifyResponse) => this.settle(response));
    worker.on('error', (error) => this.failAll(error));
    // A thread that dies (out of memory in OpenCV, a crash) must not leave searches waiting forever: fail what is
    // pending and put a fresh thread in its place.
    worker.on('exit', (code) => {
      if (this.closed) return;
      this.failAll(new Error(`A verification thread stopped (exit code ${code}).`));
      const index = this.workers.indexOf(worker);
      if (index >= 0) this.workers[index] = this.spawn();
    });
    // A worker must not keep a process alive on its own: the pool's owner closes it.
    worker.unref();
    return worker;
  }

  /** Verifies the query against every target; results come back in the targets' order. */
  async verifyAll(query: Features, targets: readonly Uint8Array[], options: VerifyOptions = {}): Promise<Array<MatchResult | null>> {
    if (this.closed) throw new Error('The verification pool is closed.');
    if (targets.length === 0) return [];
    const queryBytes = new Uint8Array(serializeFeatures(query));
    const chunks = this.workers.map(() => [] as number[]);
    targets.forEach((_, i) => chunks[i % this.workers.length].push(i));
    const answers = await Promise.all(
      chunks.map((indexes, w) => (indexes.length === 0 ? Promise.resolve([]) : this.send(w, queryBytes, indexes.map((i) => targets[i]), options))),
    );
    const results: Array<MatchResult | null> = new Array(targets.length);
    chunks.forEach((indexes, w) => indexes.forEach((targetIndex, j) => (results[targetIndex] = answers[w][j])));
    return results;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.failAll(new Error('The verification pool was closed.'));
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private send(worker: number, query: Uint8Array, targets: Uint8Array[], options: VerifyOptions): Promise<Array<MatchResult | null>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const request: VerifyRequest = { id, query, targets: targets.map((t) => new Uint8Array(t)), options };
      this.workers[worker].postMessage(request);
    });
  }

  private settle(response: VerifyResponse): void {
    const pending = this.pending.get(response.id);
    if (!pending) return;
    this.pending.delete(response.id);
    if ('error' in response) pending.reject(new Error(response.error));
    else pending.resolve(response.results);
  }

  private failAll(error: Error): void {
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}
