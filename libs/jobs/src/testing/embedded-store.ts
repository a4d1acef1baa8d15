import { BlobStore, Db, migrate, MIGRATIONS, openBlobStore, openDatabase } from '@loupe/storage';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { stagingKey } from '../blob-keys';

/** What a job service's test stores into, as embedded mode does: PGlite with Loupe's schema, a blob folder, an account. */
export interface EmbeddedStore {
  db: Db;
  blobs: BlobStore;
  /** The data folder: the blob store's files are below `<dir>/blobs`. */
  dir: string;
  /** The id of the account `acme`. */
  accountId: number;
  /** Stages `data` as the gateway stages an uploaded query: a blob the job consumes, and the name the answer shows. */
  stage(data: Buffer, label: string): Promise<{ staged_key: string; label: string }>;
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
    dir,
    accountId,
    stage: async (data, label) => {
      const staged_key = stagingKey();
      await blobs.put(staged_key, data);
      return { staged_key, label };
    },
    close: async () => {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
