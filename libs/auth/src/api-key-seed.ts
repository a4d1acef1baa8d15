import type { ApiKeySeed } from './api-keys';

/** How long the block given to a new API_KEYS account lasts: a year, the usual term of a prepaid block. */
export const SEED_BLOCK_DAYS = 365;

/** The storage operations seeding needs (AccountRepository and PublicApiRepository provide them). */
export interface ApiKeySeedStore {
  ensureAccount(name: string): Promise<{ id: number }>;
  upsertKey(accountId: number, publicKey: string, privateKey: string): Promise<void>;
  blockCount(accountId: number): Promise<number>;
  addBlock(accountId: number, searches: number, start: Date, expire: Date): Promise<unknown>;
}

/**
 * Ensures an API_KEYS entry: its account, the key pair, and, only when the account has never had a block, a block of
 * `searches` starting now. Restarting with the same setting never refills a spent block.
 */
export async function seedApiKey(store: ApiKeySeedStore, seed: ApiKeySeed, now: Date = new Date()): Promise<void> {
  const account = await store.ensureAccount(seed.account);
  await store.upsertKey(account.id, seed.publicKey, seed.privateKey);
  if ((await store.blockCount(account.id)) === 0 && seed.searches > 0) {
    await store.addBlock(account.id, seed.searches, now, new Date(now.getTime() + SEED_BLOCK_DAYS * 86_400_000));
  }
}
