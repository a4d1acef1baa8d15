import { performance } from 'node:perf_hooks';

/** Accumulates elapsed time over several start/stop spans; reports seconds. */
export class Stopwatch {
  private startedAt: number | null = null;
  private total = 0;

  start(): this {
    this.startedAt = performance.now();
    return this;
  }

  /** Stops the current span and returns the total so far, in seconds. */
  stop(): number {
    if (this.startedAt !== null) {
      this.total += performance.now() - this.startedAt;
      this.startedAt = null;
    }
    return this.elapsed;
  }

  get elapsed(): number {
    return this.total / 1000;
  }
}
