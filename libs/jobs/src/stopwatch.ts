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

  /** Seconds, rounded to the microsecond so envelopes show short decimals. */
  get elapsed(): number {
    return Math.round(this.total * 1000) / 1e6;
  }
}
