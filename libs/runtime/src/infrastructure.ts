import {
  AccountRepository, BlobStore, Db, ImageRepository, MatchIndexRepository, migrate, MIGRATIONS, openBlobStore, openDatabase, PublicApiRepository,
  PublicIndexRepository,
} from '@loupe/storage';
import path from 'node:path';
import type { AppConfig } from './config';

/** The outside things every process needs: the index database (migrated) and the blob store, with repositories over them. */
export interface Infrastructure {
  db: Db;
  blobs: BlobStore;
  accounts: AccountRepository;
  images: ImageRepository;
  matchIndex: MatchIndexRepository;
  /** Public index API: keys, search blocks, nonces and rate buckets; and the shared image index. */
  publicApi: PublicApiRepository;
  publicIndex: PublicIndexRepository;
  close(): Promise<void>;
}

export async function openInfrastructure(config: AppConfig): Promise<Infrastructure> {
  const db = await openDatabase({ url: config.databaseUrl, dataDir: config.databaseUrl ? undefined : config.dataDir });
  try {
    await migrate(db, MIGRATIONS);
    const blobs = await openBlobStore({
      ...config.s3,
      dataDir: config.s3.endpoint ? undefined : path.join(config.dataDir),
    });
    return {
      db,
      blobs,
      accounts: new AccountRepository(db),
      images: new ImageRepository(db),
      matchIndex: new MatchIndexRepository(db),
      publicApi: new PublicApiRepository(db),
      publicIndex: new PublicIndexRepository(db),
      close: () => db.close(),
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
