import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { TaskRequest, TaskResponse } from './pool-worker';

/**
 * A unit of CPU work a pool thread can run: `run` is a function of `input` alone, exported as `name` from `module`, so
 * a thread finds it by requiring that module. Input and output cross threads by structured clone (plain objects,
 * typed arrays): no class instances, no functions.
 */
export interface ThreadTask<I, O> {
  readonly module: string;
  readonly name: string;
  run(input: I): O | Promise<O>;
}

/** Declares a task; call it as `export const x = defineTask(__filename, 'x', fn)` so the name finds the export. */
export function defineTask<I, O>(module: string, name: string, run: (input: I) => O | Promise<O>): ThreadTask<I, O> {
  return { module, name, run };
}

/**
 * Runs a task somewhere: on a pool thread (`ThreadPool.run`) or in the calling thread (`runInThisThread`). A task whose
 * `signal` has aborted by its turn is withdrawn: never run, it fails with the signal's reason.
 */
export type TaskRunner = <I, O>(task: ThreadTask<I, O>, input: I, signal?: AbortSignal) => Promise<O>;

export const runInThisThread: TaskRunner = async (task, input, signal) => {
  signal?.throwIfAborted();
  return task.run(input);
};

/**
 * Runs a task on a thread that is free now, or not at all (null): for work started ahead on the chance that it will be
 * needed, which must never make queued work wait.
 */
export type SpareRunner = <I, O>(task: ThreadTask<I, O>, input: I) => Promise<O> | null;

/** A process without compute threads has no spare one. */
export const noSpareThread: SpareRunner = () => null;

interface Job {
  request: TaskRequest;
  signal?: AbortSignal;
  resolve(output: unknown): void;
  reject(error: Error): void;
}

interface PoolThread {
  worker: Worker;
  job: Job | null;
  /** Why the thread is going away, when it said so before its exit. */
  failure?: Error;
}

/**
 * CPU work on worker threads: geometric verification, and the decode, normalisation and ORB extraction of added
 * images. OpenCV-WASM is single-threaded and runs on the calling thread, so without the pool a process uses one core
 * however many images wait, and its event loop (HTTP, job heartbeats) stalls meanwhile. Each thread loads its own
 * OpenCV (~270 MB heap), so the pool is sized to the cores, not larger. A thread runs one task at a time; tasks wait
 * in arrival order for the next free thread, so searches and adds sharing the pool interleave fairly.
 */
export class ThreadPool {
  private readonly threads: PoolThread[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`pool size must be a positive integer, got ${size}`);
    for (let i = 0; i < size; i++) this.threads.push(this.spawn());
  }

  /**
   * Runs `task` on the next free thread, unless `signal` has aborted by then: work queued for an answer that no longer
   * needs it must not hold a thread that other work waits for.
   */
  run<I, O>(task: ThreadTask<I, O>, input: I, signal?: AbortSignal): Promise<O> {
    if (this.closed) return Promise.reject(new Error('The thread pool is closed.'));
    return new Promise<O>((resolve, reject) => {
      const request: TaskRequest = { id: this.nextId++, module: task.module, name: task.name, input };
      this.queue.push({ request, signal, resolve: resolve as (output: unknown) => void, reject });
      this.dispatch();
    });
  }

  /** `run` when a thread is free and no task waits; null otherwise (`SpareRunner`). */
  runIfIdle<I, O>(task: ThreadTask<I, O>, input: I): Promise<O> | null {
    if (this.closed || this.queue.length > 0 || this.threads.every((thread) => thread.job !== null)) return null;
    return this.run(task, input);
  }

  /** `run` as a `TaskRunner`, for code that takes either the pool or `runInThisThread`. */
  readonly runner: TaskRunner = (task, input, signal) => this.run(task, input, signal);

  async close(): Promise<void> {
    this.closed = true;
    const error = new Error('The thread pool was closed.');
    for (const job of this.queue.splice(0)) job.reject(error);
    for (const thread of this.threads) {
      thread.job?.reject(error);
      thread.job = null;
    }
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }

  private spawn(): PoolThread {
    // pool-worker.ts from the sources (tsx, vitest), pool-worker.js from the compiled build (dist/).
    const entry = path.join(__dirname, `pool-worker${path.extname(__filename)}`);
    const worker = new Worker(path.join(__dirname, 'worker-boot.cjs'), { workerData: { entry } });
    const thread: PoolThread = { worker, job: null };
    worker.on('message', (response: TaskResponse) => this.settle(thread, response));
    worker.on('error', (error) => (thread.failure = error));
    // A thread that dies (out of memory in OpenCV, a crash) must not leave its caller waiting forever: its task fails
    // and a fresh thread takes its place; tasks still queued run there.
    worker.on('exit', (code) => {
      if (this.closed) return;
      const job = thread.job;
      thread.job = null;
      const index = this.threads.indexOf(thread);
      if (index >= 0) this.threads[index] = this.spawn();
      job?.reject(new Error(`A pool thread stopped (exit code ${code}${thread.failure ? `: ${thread.failure.message}` : ''}).`));
      this.dispatch();
    });
    // An idle thread must not keep a process alive on its own (the pool's owner closes it); a busy one must, or a
    // process whose only pending work is a task would exit with the task unfinished.
    worker.unref();
    return thread;
  }

  private dispatch(): void {
    for (const thread of this.threads) {
      if (this.queue.length === 0) return;
      if (thread.job !== null) continue;
      const job = this.nextToRun();
      if (!job) return;
      thread.job = job;
      thread.worker.ref();
      try {
        thread.worker.postMessage(job.request);
      } catch (error) {
        // Input that cannot be cloned (a function, a class instance with private state) is the caller's mistake.
        thread.job = null;
        thread.worker.unref();
        job.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  /** The first queued job whose signal has not aborted; those before it are withdrawn. */
  private nextToRun(): Job | undefined {
    for (let job = this.queue.shift(); job; job = this.queue.shift()) {
      if (!job.signal?.aborted) return job;
      job.reject(job.signal.reason instanceof Error ? job.signal.reason : new Error('The task was withdrawn.'));
    }
    return undefined;
  }

  private settle(thread: PoolThread, response: TaskResponse): void {
    const job = thread.job;
    if (!job || job.request.id !== response.id) return;
    thread.job = null;
    thread.worker.unref();
    if ('error' in response) job.reject(new Error(response.error));
    else job.resolve(response.output);
    this.dispatch();
  }
}
