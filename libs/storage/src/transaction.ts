import type { Queryable } from './db';

/**
 * ROLLBACK itself failed after `cause` (the first error): the connection is in an unknown state and must not be reused.
 * The error speaks as its cause (message first, same `code`), since that is what went wrong: most often the connection
 * was cut (Postgres stopped, the backend terminated) and the ROLLBACK failed on the dead connection, an outage that
 * callers answer with "retry", which a wrapper without the cause's code would turn into an internal error.
 */
export class RollbackFailedError extends Error {
  readonly code?: string;
  constructor(
    readonly rollbackError: unknown,
    cause: unknown,
  ) {
    super(`${messageOf(cause)} (then ROLLBACK failed: ${messageOf(rollbackError)})`, { cause });
    this.name = 'RollbackFailedError';
    const code = codeOf(cause) ?? codeOf(rollbackError);
    if (code !== undefined) this.code = code;
  }
}

/**
 * COMMIT failed and the ROLLBACK after it too: the connection was lost while COMMIT was on its way, so whether the
 * transaction committed is unknown until the database can be asked again. A caller must not undo what the
 * transaction's rows point to (e.g. delete the blobs of an image row) on this error: the rows may be there.
 */
export class CommitUnconfirmedError extends RollbackFailedError {
  constructor(rollbackError: unknown, cause: unknown) {
    super(rollbackError, cause);
    this.name = 'CommitUnconfirmedError';
  }
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
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
  let committing = false;
  try {
    const result = await fn(tx);
    open = false;
    committing = true;
    await connection.query('COMMIT');
    return result;
  } catch (error) {
    open = false;
    try {
      await connection.query('ROLLBACK');
    } catch (rollbackError) {
      throw committing ? new CommitUnconfirmedError(rollbackError, error) : new RollbackFailedError(rollbackError, error);
    }
    // A COMMIT that Postgres answered with an error (a deferred constraint) did not commit: ROLLBACK succeeded.
    throw error;
  }
}
