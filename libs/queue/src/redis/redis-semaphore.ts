import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { QueueCounts } from '../contracts';
import { JobFailedError, QueueErrorCode } from '../errors';
import { admissionQueueName, ConcurrencyClass, QueuePolicy } from '../policy';
import { admissionPrefix, openRedis, type QueueWarning } from './connection';
import { ENQUEUE, HEARTBEAT, RELEASE, TRY_ADMIT } from './semaphore-scripts';

/**
 * Fair FIFO semaphores shared by every gateway on one Redis, one per (group, class). Each caller takes a ticket
 * (arrival order decided by Redis), waits until it is among the `limit` oldest, and keeps its ticket alive with a
 * heartbeat so that a crashed gateway's tickets expire and stop blocking the queue.
 * Wake-ups: a release publishes the semaphore id; polling covers lost messages and silently expired leases.
 */
export interface AdmissionKey {
  group: string;
  cls: ConcurrencyClass;
}

export type ReleaseSlot = () => Promise<void>;

export interface RedisSemaphore {
  /** Resolves once admitted; rejects with `signal.reason` if aborted while waiting. */
  acquire(key: AdmissionKey, limit: number, signal?: AbortSignal): Promise<ReleaseSlot>;
  /** Holders and waiters of every semaphore in Redis (all gateways), keyed like `admissionQueueName`. */
  counts(policy: QueuePolicy): Promise<Record<string, QueueCounts>>;
  /** Rejects local waiters, gives back local slots and disconnects. */
  close(): Promise<void>;
}

export interface RedisSemaphoreOptions {
  redisUrl: string;
  prefix: string;
  leaseMs?: number;
  /** Where connection trouble is reported (the process's logger); standard error by default. */
  warn?: QueueWarning;
}

/**
 * How long a ticket outlives its last heartbeat. A crashed gateway blocks its groups for at most this long; it is
 * long enough that a multi-second GC pause or Redis failover does not expire a live caller's slot.
 */
export const DEFAULT_LEASE_MS = 15_000;
/** Three heartbeats per lease: two can be lost or late before a live ticket expires. */
const HEARTBEATS_PER_LEASE = 3;
/** Upper bound on admission delay when a wake-up message is lost (pub/sub is at-most-once) or a lease expires. */
const POLL_MS = 250;
/** Tickets per SCAN step when counting: large enough that a few thousand groups need few round trips. */
const SCAN_COUNT = 1000;

interface Waiter {
  ticket: string;
  admit(): void;
  fail(error: Error): void;
}

interface Semaphore {
  id: string;
  keys: [tickets: string, leases: string, seq: string];
  limit: number;
  waiters: Waiter[];
  /** Tickets of this process, waiting or holding. */
  tickets: Set<string>;
  waking: boolean;
  wakeAgain: boolean;
}

type ScriptRunner = (keys: string[], args: (string | number)[]) => Promise<unknown>;

export function createRedisSemaphore(opts: RedisSemaphoreOptions): RedisSemaphore {
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const prefix = admissionPrefix(opts.prefix);
  const channel = `${prefix}:wake`;
  const commands = openRedis(opts.redisUrl, 'admission', opts.warn);
  const subscriber = openRedis(opts.redisUrl, 'admission', opts.warn);
  const scripts = {
    enqueue: defineScript(commands, 'loupeAdmEnqueue', ENQUEUE),
    tryAdmit: defineScript(commands, 'loupeAdmTry', TRY_ADMIT),
    release: defineScript(commands, 'loupeAdmRelease', RELEASE),
    heartbeat: defineScript(commands, 'loupeAdmHeartbeat', HEARTBEAT),
  };
  const semaphores = new Map<string, Semaphore>();
  let closed = false;

  subscriber.on('message', (_channel: string, id: string) => {
    const semaphore = semaphores.get(id);
    if (semaphore && semaphore.waiters.length > 0) void wake(semaphore);
  });
  const subscribed = subscriber.subscribe(channel);
  subscribed.catch(() => undefined);

  const semaphoreFor = ({ group, cls }: AdmissionKey, limit: number): Semaphore => {
    const id = `${encodeURIComponent(group)}|${cls}`;
    let semaphore = semaphores.get(id);
    if (!semaphore) {
      // The hash tag keeps a semaphore's keys in one cluster slot, as a multi-key script requires.
      const base = `${prefix}:{${id}}`;
      semaphore = { id, keys: [`${base}:tickets`, `${base}:leases`, `${base}:seq`], limit, waiters: [], tickets: new Set(), waking: false, wakeAgain: false };
      semaphores.set(id, semaphore);
    }
    semaphore.limit = limit;
    return semaphore;
  };

  const forgetTicket = (semaphore: Semaphore, ticket: string) => {
    semaphore.tickets.delete(ticket);
    if (semaphore.tickets.size === 0 && semaphore.waiters.length === 0) semaphores.delete(semaphore.id);
  };

  const giveBack = async (semaphore: Semaphore, ticket: string) => {
    forgetTicket(semaphore, ticket);
    // A failed release is not the caller's problem: the lease stops being refreshed, so the ticket expires anyway.
    await scripts.release(semaphore.keys, [ticket, channel, semaphore.id]).catch(() => undefined);
  };

  const releaser = (semaphore: Semaphore, ticket: string): ReleaseSlot => {
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      await giveBack(semaphore, ticket);
    };
  };

  async function wake(semaphore: Semaphore): Promise<void> {
    if (semaphore.waking) {
      semaphore.wakeAgain = true;
      return;
    }
    semaphore.waking = true;
    try {
      do {
        semaphore.wakeAgain = false;
        while (semaphore.waiters.length > 0) {
          const waiter = semaphore.waiters[0];
          const outcome = await scripts
            .tryAdmit(semaphore.keys, [waiter.ticket, semaphore.limit, channel, semaphore.id])
            .catch(() => 0);
          // The waiter gave up during the round trip; its abort handler already returned the ticket.
          if (semaphore.waiters[0] !== waiter) continue;
          // Local waiters queued in Redis order, so if the oldest one is not admitted, none behind it is.
          if (outcome === 0) break;
          semaphore.waiters.shift();
          if (outcome === 1) waiter.admit();
          else waiter.fail(new JobFailedError('the admission ticket expired while waiting', QueueErrorCode.AdmissionLost));
        }
      } while (semaphore.wakeAgain);
    } finally {
      semaphore.waking = false;
    }
  }

  let beating = false;
  const heartbeat = setInterval(async () => {
    if (beating) return;
    beating = true;
    try {
      await Promise.all(
        [...semaphores.values()]
          .filter((semaphore) => semaphore.tickets.size > 0)
          .map(async (semaphore) => {
            const lost = (await scripts
              .heartbeat(semaphore.keys, [leaseMs, channel, semaphore.id, ...semaphore.tickets])
              .catch(() => [])) as string[];
            // A lost holder cannot be stopped mid-job; forgetting it at least stops refreshing a dead ticket.
            for (const ticket of lost) if (!semaphore.waiters.some((w) => w.ticket === ticket)) forgetTicket(semaphore, ticket);
            if (lost.length > 0) void wake(semaphore);
          }),
      );
    } finally {
      beating = false;
    }
  }, leaseMs / HEARTBEATS_PER_LEASE);

  const poll = setInterval(() => {
    for (const semaphore of semaphores.values()) if (semaphore.waiters.length > 0) void wake(semaphore);
  }, POLL_MS);

  async function acquire(key: AdmissionKey, limit: number, signal?: AbortSignal): Promise<ReleaseSlot> {
    if (closed) throw new JobFailedError('the queue is closed', QueueErrorCode.QueueClosed);
    await subscribed;
    signal?.throwIfAborted();
    const semaphore = semaphoreFor(key, limit);
    const ticket = randomUUID();
    semaphore.tickets.add(ticket);
    let admitted: unknown;
    try {
      admitted = await scripts.enqueue(semaphore.keys, [ticket, leaseMs, limit, channel, semaphore.id]);
    } catch (error) {
      await giveBack(semaphore, ticket);
      throw error;
    }
    if (signal?.aborted) {
      await giveBack(semaphore, ticket);
      throw signal.reason;
    }
    if (admitted === 1) return releaser(semaphore, ticket);
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const onAbort = () => {
        semaphore.waiters = semaphore.waiters.filter((w) => w !== waiter);
        void giveBack(semaphore, ticket);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        ticket,
        admit: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(releaser(semaphore, ticket));
        },
        fail: (error) => {
          signal?.removeEventListener('abort', onAbort);
          void giveBack(semaphore, ticket);
          reject(error);
        },
      };
      semaphore.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      // A release may have been announced between the enqueue reply and this point.
      void wake(semaphore);
    });
  }

  async function counts(policy: QueuePolicy): Promise<Record<string, QueueCounts>> {
    const result: Record<string, QueueCounts> = {};
    const head = `${prefix}:{`;
    const tail = '}:tickets';
    let cursor = '0';
    do {
      const [next, keys] = await commands.scan(cursor, 'MATCH', `${head}*${tail}`, 'COUNT', SCAN_COUNT);
      cursor = next;
      for (const key of keys) {
        const [group, cls] = key.slice(head.length, -tail.length).split('|');
        if (cls !== 'read' && cls !== 'write') continue;
        const size = await commands.zcard(key);
        const active = Math.min(size, policy.limit(cls));
        result[admissionQueueName(decodeURIComponent(group), cls)] = { active, waiting: size - active };
      }
    } while (cursor !== '0');
    return result;
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    clearInterval(poll);
    const closedError = new JobFailedError('the queue is closed', QueueErrorCode.QueueClosed);
    const releases: Promise<void>[] = [];
    for (const semaphore of [...semaphores.values()]) {
      for (const waiter of semaphore.waiters.splice(0)) waiter.fail(closedError);
      for (const ticket of [...semaphore.tickets]) releases.push(giveBack(semaphore, ticket));
    }
    await Promise.all(releases);
    await Promise.all([commands.quit().catch(() => undefined), subscriber.quit().catch(() => undefined)]);
  }

  return { acquire, counts, close };
}

function defineScript(redis: Redis, name: string, lua: string): ScriptRunner {
  redis.defineCommand(name, { lua });
  const command = (redis as unknown as Record<string, (...args: (string | number)[]) => Promise<unknown>>)[name];
  // numberOfKeys left undefined in defineCommand means the first argument is the key count.
  return (keys, args) => command.call(redis, keys.length, ...keys, ...args);
}
