import { Redis } from 'ioredis';

/**
 * `maxRetriesPerRequest: null` is what BullMQ requires (library-facts.md): commands wait through a reconnect instead
 * of failing, which for the semaphore means a Redis blip delays admission rather than failing requests.
 */
export function redisOptions(redisUrl: string) {
  return { url: redisUrl, maxRetriesPerRequest: null };
}

export function openRedis(redisUrl: string): Redis {
  return new Redis(redisUrl, { maxRetriesPerRequest: null });
}

/** Key layout shared by gateways and workers: BullMQ and the admission semaphores live under one prefix. */
export const DEFAULT_PREFIX = 'loupe';
export const bullPrefix = (prefix: string) => `${prefix}:bull`;
export const admissionPrefix = (prefix: string) => `${prefix}:adm`;
