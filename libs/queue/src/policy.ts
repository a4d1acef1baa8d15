import { JobFailedError, QueueErrorCode } from './errors';

/**
 * Which admission queue a job kind waits in, and how many of that queue may run at once (docs/protocol.md §4).
 * The policy is pure data so the gateway replicas and the embedded mode agree on it without talking to each other.
 */
export type ConcurrencyClass = 'read' | 'write';

export interface QueuePolicy {
  /** Throws JobFailedError (UNKNOWN_KIND) for a kind the policy does not know. */
  classOf(kind: string): ConcurrencyClass;
  limit(cls: ConcurrencyClass): number;
}

/** Searches and compares at once per account and service (docs/protocol.md §4); the rest wait in arrival order. */
const READ_LIMIT = 4;
/** Writes at once per account (docs/protocol.md §4); the rest wait in arrival order. */
const WRITE_LIMIT = 1;

/**
 * The policy of a set of job kinds, given each kind's class (`classOf` answers undefined for a kind it does not know).
 * An unknown kind is refused: counting it as a read would let a write that was forgotten in the table run four at a time.
 */
export function classTablePolicy(classOf: (kind: string) => ConcurrencyClass | undefined): QueuePolicy {
  return {
    classOf: (kind) => {
      const cls = classOf(kind);
      if (!cls) throw new JobFailedError(`job kind "${kind}" has no concurrency class`, QueueErrorCode.UnknownKind);
      return cls;
    },
    limit: (cls) => (cls === 'write' ? WRITE_LIMIT : READ_LIMIT),
  };
}

/** Admission queues are keyed by (group, class): reads never wait behind writes and vice versa. */
export function admissionQueueName(group: string, cls: ConcurrencyClass): string {
  return `${group}/${cls}`;
}
