import { afterAll, beforeAll } from 'vitest';
import type { Db } from '../db';
import { migrate } from '../migrate';
import { MIGRATIONS } from '../migrations';
import { openDatabase } from '../open-database';
import { createTestDatabase } from '../testing';

/** The databases a repository test runs on: PGlite always, Postgres when TEST_DATABASE_URL names a server. */
export const TEST_DATABASES = [
  ['PGlite', undefined],
  ['Postgres', process.env.TEST_DATABASE_URL],
] as const;

/** Whether a `TEST_DATABASES` entry cannot run here (Postgres without TEST_DATABASE_URL). */
export function unavailable(label: string, url: string | undefined): boolean {
  return label === 'Postgres' && !url;
}

/**
 * A migrated database for the enclosing describe block: a fresh Postgres database on the server of `url` (dropped
 * afterwards), or an in-memory PGlite without one. Read it through the returned function once the tests run.
 */
export function useMigratedDatabase(label: string, url: string | undefined): () => Db {
  let db: Db | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    if (unavailable(label, url)) return;
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
  return () => db!;
}
