import { Pool, types as pgTypes, type CustomTypesConfig, type QueryResult as PgQueryResult } from 'pg';
import type { Db, QueryResult } from './db';
import {
  PG_TYPE_INT8,
  PG_TYPE_INT8_ARRAY,
  PG_TYPE_NUMERIC,
  PG_TYPE_NUMERIC_ARRAY,
  mapArrayLeaves,
  parseInt8,
  parseNumeric,
} from './numeric-parsers';
import { RollbackFailedError, runInTransaction } from './transaction';

/** text[]: its parser splits any array literal into strings (and nulls), which the numeric leaf parsers then read. */
const PG_TYPE_TEXT_ARRAY = 1009 as Parameters<typeof pgTypes.getTypeParser>[0]; // pg's TypeId enum omits array oids

/** node-postgres' own default, stated so the choice is visible. */
const DEFAULT_POOL_SIZE = 10;

/**
 * Parsers given to this pool only: pg's global `types.setTypeParser` would change every other pool in the process.
 * Binary format is never requested by this adapter, so only text parsers are overridden.
 */
const numberTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary') {
      if (oid === PG_TYPE_INT8) return parseInt8;
      if (oid === PG_TYPE_NUMERIC) return parseNumeric;
      if (oid === PG_TYPE_INT8_ARRAY || oid === PG_TYPE_NUMERIC_ARRAY) {
        const leaf = oid === PG_TYPE_INT8_ARRAY ? parseInt8 : parseNumeric;
        const splitArray = pgTypes.getTypeParser(PG_TYPE_TEXT_ARRAY, 'text');
        return (text: string) => mapArrayLeaves(splitArray(text), leaf);
      }
    }
    return pgTypes.getTypeParser(oid, format);
  }) as CustomTypesConfig['getTypeParser'],
};

export async function openPostgres(url: string, poolSize = DEFAULT_POOL_SIZE): Promise<Db> {
  const pool = new Pool({ connectionString: url, max: poolSize, types: numberTypes });
  // An idle client losing its connection emits 'error' on the pool; unhandled it would crash the process.
  pool.on('error', () => undefined);
  // Fail at startup, not on the first request, when the server is unreachable or the credentials are wrong.
  await pool.query('SELECT 1');

  let closing: Promise<void> | undefined;
  return {
    kind: 'postgres',
    async query<T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> {
      return toResult<T>(await pool.query(sql, params));
    },
    async transaction(fn) {
      const client = await pool.connect();
      // pg's pool listens for 'error' on idle clients only. A checked-out client whose connection is cut (Postgres
      // stopped, the backend terminated) emits 'error' after failing its queries; unheard, that event is an uncaught
      // exception that kills the process. The failed queries already reject this call, so the event only marks the
      // client as not to be reused.
      let connectionLost: Error | undefined;
      const onConnectionLost = (error: Error) => (connectionLost = error);
      client.on('error', onConnectionLost);
      const release = (error?: Error) => {
        client.removeListener('error', onConnectionLost);
        client.release(error ?? connectionLost);
      };
      try {
        const result = await runInTransaction(
          { query: async <T>(sql: string, params?: unknown[]) => toResult<T>(await client.query(sql, params)) },
          fn,
        );
        release();
        return result;
      } catch (error) {
        // A failed ROLLBACK leaves the connection in an unknown state: destroy it rather than return it to the pool.
        release(error instanceof RollbackFailedError ? error : undefined);
        throw error;
      }
    },
    // Idempotent, like the PGlite adapter: pg's Pool throws when ended twice.
    close: () => (closing ??= pool.end()),
  };
}

/** A multi-statement text yields one result per statement; callers get the last one, as with PGlite. */
function toResult<T>(result: PgQueryResult | PgQueryResult[]): QueryResult<T> {
  const last = Array.isArray(result) ? result[result.length - 1] : result;
  return { rows: (last?.rows ?? []) as T[], rowCount: last?.rowCount ?? 0 };
}
