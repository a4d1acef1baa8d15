import type { JobQueue } from '@loupe/queue';
import { randomUUID } from 'node:crypto';

/**
 * Shard ownership across processes, shared by the public index (`PUBLIC_SHARD_SETS`) and partitioned collections
 * (`COLLECTION_SHARD_SETS`). A value like `0-7,8-15` splits an index's 16 shards into disjoint sets; each set becomes a
 * job kind, a worker owns a set by naming that kind in WORKER_QUEUES and only then loads those shards, and a search fans
 * out one job per set and merges the answers. The same value must be given to every process of a deployment.
 */
export type ShardSet = readonly number[];

/**
 * Parses a shard-set variable; null when unset. Throws unless the sets are disjoint and cover every shard: a shard no
 * set names would hold images that no search could ever find.
 */
export function parseShardSets(text: string | undefined, variable: string, shardCount: number): ShardSet[] | null {
  if (text === undefined || text.trim() === '') return null;
  const fail = (why: string): never => {
    throw new Error(`${variable}: "${text}" ${why} (expected disjoint ranges covering shards 0-${shardCount - 1}, e.g. "0-7,8-15").`);
  };
  const sets: ShardSet[] = [];
  const seen = new Set<number>();
  for (const part of text.split(',').map((p) => p.trim())) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) fail(`has "${part}", which is not a shard or a range a-b`);
    const from = Number(m![1]);
    const to = m![2] === undefined ? from : Number(m![2]);
    if (to < from || to >= shardCount) fail(`has the range "${part}" outside 0-${shardCount - 1} or reversed`);
    const set: number[] = [];
    for (let s = from; s <= to; s++) {
      if (seen.has(s)) fail(`names shard ${s} twice`);
      seen.add(s);
      set.push(s);
    }
    sets.push(set);
  }
  const missing = Array.from({ length: shardCount }, (_, s) => s).filter((s) => !seen.has(s));
  if (missing.length > 0) fail(`leaves out shards ${missing.join(', ')}`);
  return sets;
}

export function shardSetName(set: ShardSet): string {
  return set.length === 1 ? `${set[0]}` : `${set[0]}-${set[set.length - 1]}`;
}

/** How a process reaches an index's shard-set owners, as configured. */
export interface ShardSetOptions {
  /** The shard-set variable's value (`0-7,8-15`); unset = this process holds the whole index. */
  sets?: string;
  /** The queue that reaches the shard owners; needed only when `sets` is given. */
  queue?: () => JobQueue | null;
}

/** Where a search asks the owners of an index's shard sets, and what it calls the index in errors. */
export interface ShardOwners {
  sets: readonly ShardSet[];
  /** The job kind a set's owners take. */
  kindOf(set: ShardSet): string;
  /** Late-bound: the in-process queue is built from the processors that use it. */
  queue: () => JobQueue | null;
  /** The index's variable and name in errors: `PUBLIC_SHARD_SETS`, `public index`. */
  variable: string;
  label: string;
  timeoutMs: number;
}

/**
 * A job group of its own for one search's fan-out: the search itself was admitted under its account's (or API key's)
 * limit, and sub-jobs waiting for slots that their parent holds could deadlock.
 */
export function fanOutGroup(label: string): string {
  return `${label.replace(/ /g, '-')}:${randomUUID()}`;
}

/** Runs `payload` as one job per shard set (in `group`) and returns the owners' answers in set order. */
export async function askEveryShardSet<T>(owners: ShardOwners, group: string, payload: unknown): Promise<T[]> {
  const queue = owners.queue();
  if (!queue) throw new Error(`${owners.variable} is set but this process has no job queue to reach the shard owners.`);
  return Promise.all(
    owners.sets.map((set) =>
      queue.run<T>({ kind: owners.kindOf(set), group, payload, timeoutMs: owners.timeoutMs }).catch((error: unknown) => {
        // Said which set, so an operator sees which owner is missing or failing.
        throw new Error(`${owners.label} shard set ${shardSetName(set)}: ${error instanceof Error ? error.message : String(error)}`);
      }),
    ),
  );
}
