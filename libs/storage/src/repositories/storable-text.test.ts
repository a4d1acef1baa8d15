import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../db';
import { migrate } from '../migrate';
import { MIGRATIONS } from '../migrations';
import { openDatabase } from '../open-database';
import { createTestDatabase } from '../testing';
import { AccountRepository } from './accounts.repository';
import { PublicApiRepository } from './public-index-api.repository';

const baseUrl = process.env.TEST_DATABASE_URL;

// Postgres answers a NUL in a text parameter with an error; a lookup of a name or key that holds one finds nothing.
describe.each([
  ['PGlite', undefined],
  ['Postgres', baseUrl],
] as const)('lookups of names and keys holding a NUL character (%s)', (label, url) => {
  const skip = label === 'Postgres' && !url;
  let db: Db;
  let dropDatabase: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    if (skip) return;
    if (url) {
      const testDb = await createTestDatabase(url);
      dropDatabase = testDb.drop;
      db = await openDatabase({ url: testDb.url, poolSize: 2 });
    } else {
      db = await openDatabase({});
    }
    await migrate(db, MIGRATIONS);
  });
  afterAll(async () => {
    await db?.close();
    await dropDatabase?.();
  });

  it.skipIf(skip)('find no account, user or API key instead of failing', async () => {
    const accounts = new AccountRepository(db);
    const keys = new PublicApiRepository(db);
    const account = await accounts.ensure('acme');
    await accounts.upsertUser(account.id, 'ann', 'hash');
    await keys.upsertKey(account.id, 'public-key', 'private-key');

    await expect(accounts.find('ac\u0000me')).resolves.toBeNull();
    await expect(accounts.findUser(account.id, 'a\u0000nn')).resolves.toBeNull();
    await expect(keys.findKey('a\u0000b')).resolves.toBeNull();
    await expect(keys.findKeyByPrivateKey('private\u0000key')).resolves.toBeNull();
    // The same lookups without the NUL still find what is there.
    expect((await accounts.find('acme'))?.id).toBe(account.id);
    expect((await accounts.findUser(account.id, 'ann'))?.username).toBe('ann');
    expect((await keys.findKey('public-key'))?.account).toBe('acme');
  });
});
