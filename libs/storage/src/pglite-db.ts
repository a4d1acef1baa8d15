import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite, type ParserOptions, type Results } from '@electric-sql/pglite';
import type { Db, Queryable, QueryResult } from './db';
import { acquireFolderLock, type FolderLock } from './folder-lock';
import { Mutex } from './mutex';
import { PG_TYPE_INT8, PG_TYPE_NUMERIC, parseInt8, parseNumeric } from './numeric-parsers';
import { runInTransaction } from './transaction';

const PG_TYPE_BYTEA = 17;

/**
 * Same values as the Postgres adapter: int8/numeric as numbers where exact, bytea as Buffer (PGlite would give a
 * Uint8Array). PGlite applies an element type's parser to array elements itself, so no array entries are needed.
 */
const parsers: ParserOptions = {
  [PG_TYPE_INT8]: parseInt8,
  [PG_TYPE_NUMERIC]: parseNumeric,
  [PG_TYPE_BYTEA]: (text: string) => Buffer.from(text.slice(2), 'hex'),
};

/**
 * PGlite is one connection. Every top-level query and every whole transaction runs under one mutex, so a
 * transaction never sees another caller's statement between its BEGIN and COMMIT.
 */
export async function openPglite(dataDir?: string): Promise<Db> {
  let lock: FolderLock | undefined;
  if (dataDir !== undefined) {
    await mkdir(dataDir, { recursive: true });
    lock = await acquireFolderLock(join(dataDir, 'pg.lock'));
  }
  let pg: PGlite;
  try {
    pg = await PGlite.create({ dataDir: dataDir === undefined ? undefined : join(dataDir, 'pg'), parsers });
  } catch (error) {
    await lock?.release();
    throw error;
  }

  const mutex = new Mutex();
  const insideTransaction = new AsyncLocalStorage<true>();
  const connection: Queryable = { query: (sql, params) => runQuery(pg, sql, params) };

  /** Waiting on the mutex from inside a transaction would wait on ourselves forever: fail with the reason instead. */
  const assertNotInTransaction = (what: string): void => {
    if (insideTransaction.getStore()) {
      throw new Error(`${what} inside a PGlite transaction would deadlock (one connection); use the tx handle`);
    }
  };

  let closing: Promise<void> | undefined;
  return {
    kind: 'pglite',
    async query<T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> {
      assertNotInTransaction('db.query');
      return mutex.run(() => runQuery<T>(pg, sql, params));
    },
    async transaction(fn) {
      assertNotInTransaction('db.transaction');
      return mutex.run(() => insideTransaction.run(true, () => runInTransaction(connection, fn)));
    },
    // Closing twice (a failed start-up path, then the owner's shutdown) must not throw: the second call waits for the first.
    close() {
      closing ??= (async () => {
        await mutex.idle();
        try {
          await pg.close();
        } finally {
          await lock?.release();
        }
      })();
      return closing;
    },
  };
}

/** `exec` accepts several statements but no parameters; `query` the reverse. Pick by whether there are params. */
async function runQuery<T>(pg: PGlite, sql: string, params?: unknown[]): Promise<QueryResult<T>> {
  if (params && params.length > 0) return toResult<T>(await pg.query<T>(sql, params));
  const results = await pg.exec(sql);
  return toResult<T>((results[results.length - 1] as Results<T> | undefined) ?? { rows: [], fields: [] });
}

/** PGlite reports affectedRows 0 for a SELECT; pg's rowCount is the number of rows returned. */
function toResult<T>(result: Results<T>): QueryResult<T> {
  return { rows: result.rows, rowCount: Math.max(result.affectedRows ?? 0, result.rows.length) };
}
