import { performance } from 'node:perf_hooks';

/** Milliseconds per named step of one job, for its log line and the step histogram (`SearchResult.steps`). */
export type StepTimes = Record<string, number>;

/**
 * Times a job's consecutive steps: each `lap` charges the time since the previous one (or the start) to a step, adding
 * up when a step is reached more than once. Where a search's time goes was guessed at for many sessions and shown in
 * minutes once measured, so searches report it on every call.
 */
export class StepTimer {
  private last = performance.now();
  private readonly ms: StepTimes = {};

  lap(step: string): void {
    const now = performance.now();
    this.ms[step] = (this.ms[step] ?? 0) + (now - this.last);
    this.last = now;
  }

  /**
   * Adds the steps of work that ran alongside this timer's last steps (timed on `other`, from when it started), after
   * them, and restarts the next lap from now: their times overlap the steps they ran beside, so the steps of a job that
   * ran work alongside add up to more than its time.
   */
  alongside(other: StepTimer): void {
    for (const [step, ms] of Object.entries(other.ms)) this.ms[step] = (this.ms[step] ?? 0) + ms;
    this.last = performance.now();
  }

  /** The steps reached, in the order first reached, rounded to 0.1 ms. */
  get times(): StepTimes {
    return Object.fromEntries(Object.entries(this.ms).map(([step, ms]) => [step, Math.round(ms * 10) / 10]));
  }
}
