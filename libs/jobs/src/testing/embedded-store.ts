import { BlobStore, Db, migrate, MIGRATIONS, openBlobStore, openDatabase } from '@loupe/storage';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** What a job service's test stores into, as embedded mode does: PGlite with Loupe's schema, a blob folder, an account. */
export interface EmbeddedStore {
  db: Db;
  blobs: BlobStore;
  /** The id of the account `acme`. */
  accountId: number;
  /** Closes the database and removes the blob folder. */
  close(): Promise<void>;
}

export async function openEmbeddedStore(name: string): Promise<EmbeddedStore> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `loupe-${name}-`));
  const db = await openDatabase({});
  await migrate(db, MIGRATIONS);
  const blobs = await openBlobStore({ dataDir: dir });
  const accountId = (await db.query<{ id: number }>(`INSERT INTO accounts (name) VALUES ('acme') RETURNING id`)).rows[0].id;
  return {
    db,
    blobs,
    accountId,
    close: async () => {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
