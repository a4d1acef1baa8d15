import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite, type ParserOptions, type Results, type SerializerOptions } from '@electric-sql/pglite';
import type { Db, Queryable, QueryResult } from './db';
import { acquireFolderLock, type FolderLock } from './folder-lock';
import { Mutex } from './mutex';
import { PG_TYPE_INT8, PG_TYPE_NUMERIC, parseInt8, parseNumeric } from './numeric-parsers';
import { runInTransaction } from './transaction';

const PG_TYPE_BYTEA = 17;

/**
 * PGlite runs Postgres as one single-user backend: there is no checkpointer process, and a standalone backend does not
 * request a checkpoint when WAL passes max_wal_size (only a backend under a postmaster does). Without checkpoints no
 * WAL segment is ever recycled, so pg_wal grew by as much as was written: 20 GB after 300k ingested images. The adapter
 * checkpoints itself once this much WAL has been written since the last checkpoint's redo point; a checkpoint then
 * recycles or removes every segment before that point. 32 MB is two segments: small enough for a laptop, and at
 * ~60 KB of WAL per ingested image one checkpoint per ~500 images (each ~0.1 s), which ingest does not notice.
 */
export const CHECKPOINT_WAL_BYTES = 32 * 1024 * 1024;

/**
 * Recycled segments kept for reuse after a checkpoint. Postgres's default (80 MB) is sized for servers; two segments
 * are enough for a writer that checkpoints every 32 MB, and keep an idle embedded database's pg_wal near 64 MB.
 */
const MIN_WAL_SIZE = '32MB';

/** The WAL position is looked at once statements have carried this much since the last look... */
const WAL_CHECK_BYTES_SENT = 1024 * 1024;
/** ...or after this many top-level operations, for writes that carry little (UPDATE ... SET over many rows). */
const WAL_CHECK_OPERATIONS = 16;

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
 * bytea parameters as hex through Buffer's native encoder: PGlite's own serializer builds the hex text one byte at a
 * time in JavaScript, about 16 ms of CPU for a 43 kB features row, most of an ingest's time on its calling thread.
 */
const serializers: SerializerOptions = {
  [PG_TYPE_BYTEA]: (value: unknown) => {
    if (!(value instanceof Uint8Array)) throw new Error('Invalid input for bytea type');
    return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  },
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
  let redoLsn: bigint;
  try {
    pg = await PGlite.create({
      dataDir: dataDir === undefined ? undefined : join(dataDir, 'pg'),
      parsers,
      serializers,
      startParams: [...PGlite.defaultStartParams, '-c', `min_wal_size=${MIN_WAL_SIZE}`],
    });
    // A data dir left with a long WAL (by an older version) is checkpointed at the first look at the WAL position.
    redoLsn = await lastCheckpointRedoLsn(pg);
  } catch (error) {
    await lock?.release();
    throw error;
  }

  const mutex = new Mutex();
  // Asking for the WAL position costs about as much as a small query, so it is asked only once enough was sent to have
  // written a noticeable amount: WAL follows what statements carry (rows, bytea), or after many small operations.
  let sentSinceWalCheck = 0;
  let operationsSinceWalCheck = 0;
  const noteSent = (sql: string, params?: unknown[]): void => {
    sentSinceWalCheck += sql.length + (params ?? []).reduce<number>((sum, p) => sum + approximateBytes(p), 0);
  };
  /**
   * Runs under the mutex after every top-level query and transaction. A failed checkpoint does not fail the operation
   * before it (that one is committed); it is tried again at the next check, since the WAL is still as long.
   */
  const checkpointIfDue = async (): Promise<void> => {
    operationsSinceWalCheck += 1;
    if (sentSinceWalCheck < WAL_CHECK_BYTES_SENT && operationsSinceWalCheck < WAL_CHECK_OPERATIONS) return;
    sentSinceWalCheck = 0;
    operationsSinceWalCheck = 0;
    try {
      if ((await currentWalInsertLsn(pg)) - redoLsn < BigInt(CHECKPOINT_WAL_BYTES)) return;
      await pg.exec('CHECKPOINT');
      redoLsn = await lastCheckpointRedoLsn(pg);
    } catch {
      // See above: tried again at the next check.
    }
  };
  const thenCheckpointIfDue = async <T>(operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation();
    } finally {
      await checkpointIfDue();
    }
  };
  const runCounted = <T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> => {
    noteSent(sql, params);
    return runQuery<T>(pg, sql, params);
  };
  const insideTransaction = new AsyncLocalStorage<true>();
  const connection: Queryable = { query: (sql, params) => runCounted(sql, params) };

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
      return mutex.run(() => thenCheckpointIfDue(() => runCounted<T>(sql, params)));
    },
    async transaction(fn) {
      assertNotInTransaction('db.transaction');
      return mutex.run(() => thenCheckpointIfDue(() => insideTransaction.run(true, () => runInTransaction(connection, fn))));
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

/** What a parameter adds to the statement sent; rows written follow it closely enough to decide when to look at the WAL. */
function approximateBytes(param: unknown): number {
  if (typeof param === 'string') return param.length;
  if (param instanceof Uint8Array) return param.byteLength;
  if (Array.isArray(param)) return param.length * 8;
  return 8;
}

/** Where recovery would start: WAL before it is what a checkpoint lets Postgres recycle. */
async function lastCheckpointRedoLsn(pg: PGlite): Promise<bigint> {
  const { rows } = await pg.query<{ lsn: string }>('SELECT redo_lsn::text AS lsn FROM pg_control_checkpoint()');
  return parseLsn(rows[0].lsn);
}

async function currentWalInsertLsn(pg: PGlite): Promise<bigint> {
  const { rows } = await pg.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
  return parseLsn(rows[0].lsn);
}

/** An LSN's text form is two hex halves of a 64-bit WAL position, "16/B374D848". */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
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
