/**
 * Which admission queue a job kind waits in, and how many of that queue may run at once (specification 8).
 * The policy is pure data so the gateway replicas and the embedded mode agree on it without talking to each other.
 */
export type ConcurrencyClass = 'read' | 'write';

export interface QueuePolicy {
  classOf(kind: string): ConcurrencyClass;
  limit(cls: ConcurrencyClass): number;
}

/** Specification 8: "Simultaneous search operations ... 4; further requests are queued and run in arrival order". */
const READ_LIMIT = 4;
/** Specification 8: "Simultaneous add, update or delete requests ... 1; extra requests are queued". */
const WRITE_LIMIT = 1;

/** Kinds that change a collection. Everything else only reads it. */
// fingerprint rewrites an image's index entries, so it queues with the other writes of the account.
// color_metadata (update_metadata) rewrites images' metadata: a write like update.
const WRITE_KINDS: ReadonlySet<string> = new Set(['ingest', 'add', 'update', 'delete', 'fingerprint', 'color_metadata']);

export const DEFAULT_POLICY: QueuePolicy = {
  // Unknown kinds count as reads: the read queue is the wider one, so an unlisted kind can slow a group down at
  // worst, never serialise it behind the writes.
  classOf: (kind) => (WRITE_KINDS.has(kind) ? 'write' : 'read'),
  limit: (cls) => (cls === 'write' ? WRITE_LIMIT : READ_LIMIT),
};

/** Admission queues are keyed by (group, class): reads never wait behind writes and vice versa. */
export function admissionQueueName(group: string, cls: ConcurrencyClass): string {
  return `${group}/${cls}`;
}
