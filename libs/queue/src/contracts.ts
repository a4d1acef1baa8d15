/**
 * What the gateway hands to a queue and what a worker's processor receives. Payloads and results are plain JSON:
 * the same contract has to survive a trip through Redis, so image bytes travel as blob keys.
 */
/**
 * The longest budget a call may give (`timeout`, 24 h). It bounds how long a job waits before it starts, so it also
 * bounds how long the job's staged inputs must be kept (StagingSweeper).
 */
export const MAX_CALL_TIMEOUT_MS = 86_400_000;

export interface JobRequest<P = unknown> {
  kind: string;
  /** Admission group; the lead uses `${account}:${service}`. */
  group: string;
  payload: P;
  /** Budget for waiting plus running, counted from the call to `run`. No budget when absent. */
  timeoutMs?: number;
  requestId?: string;
}

export interface JobContext {
  kind: string;
  group: string;
  requestId?: string;
  /** 1 on the first run; higher when a worker crashed and the job was started again. */
  attempt: number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Processor<P = any, R = any> = (payload: P, ctx: JobContext) => Promise<R>;
export type ProcessorMap = Record<string, Processor>;

export interface QueueCounts {
  waiting: number;
  active: number;
}

export interface JobQueue {
  /** Admission (fair FIFO per group and class), then the job, then release. Rejects with JobTimeoutError or JobFailedError. */
  run<R = unknown, P = unknown>(req: JobRequest<P>): Promise<R>;
  /**
   * For metrics. Keys `<group>/<class>` are admission queues (active = holding a slot, waiting = queued for one);
   * keys `kind:<kind>` count jobs after admission (active = running in a processor, waiting = queued for a worker).
   */
  stats(): Promise<Record<string, QueueCounts>>;
  close(): Promise<void>;
}

export interface WorkerHandle {
  close(): Promise<void>;
}
