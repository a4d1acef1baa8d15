import type { Queryable } from './db';

/** ROLLBACK itself failed: the connection is in an unknown state and must not be reused. `cause` is the first error. */
export class RollbackFailedError extends Error {
  constructor(rollbackError: unknown, cause: unknown) {
    super(`ROLLBACK failed: ${rollbackError instanceof Error ? rollbackError.message : String(rollbackError)}`, { cause });
    this.name = 'RollbackFailedError';
  }
}

/**
 * Runs `fn` between BEGIN and COMMIT on one connection, rolling back when it throws. The handle given to `fn` stops
 * working once the transaction is over, so a query fired late (an un-awaited promise) fails loudly instead of
 * running outside the transaction.
 */
export async function runInTransaction<T>(
  connection: Queryable,
  fn: (tx: Queryable) => Promise<T>,
): Promise<T> {
  let open = true;
  const tx: Queryable = {
    query: (sql, params) => {
      if (!open) return Promise.reject(new Error('transaction handle used after COMMIT/ROLLBACK'));
      return connection.query(sql, params);
    },
  };
  await connection.query('BEGIN');
  try {
    const result = await fn(tx);
    open = false;
    await connection.query('COMMIT');
    return result;
  } catch (error) {
    open = false;
    try {
      await connection.query('ROLLBACK');
    } catch (rollbackError) {
      throw new RollbackFailedError(rollbackError, error);
    }
    throw error;
  }
}
