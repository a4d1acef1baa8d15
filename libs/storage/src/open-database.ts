import type { DatabaseOptions, Db } from './db';
import { openPglite } from './pglite-db';
import { openPostgres } from './postgres-db';

/** `url` → Postgres pool; otherwise PGlite at `<dataDir>/pg`, or in memory when `dataDir` is undefined. */
export async function openDatabase(opts: DatabaseOptions): Promise<Db> {
  return opts.url ? openPostgres(opts.url, opts.poolSize) : openPglite(opts.dataDir);
}
