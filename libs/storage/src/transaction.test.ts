import { describe, expect, it } from 'vitest';
import type { Queryable } from './db';
import { CommitUnconfirmedError, RollbackFailedError, runInTransaction } from './transaction';

/**
 * A connection cut at the statement `cutAt` (the first that is not BEGIN, or COMMIT): it fails with `first`, and ROLLBACK
 * after it fails too unless `rollbackWorks` (the server answered an error but the connection lives).
 */
function cutConnection(first: Error, cutAt: 'first statement' | 'COMMIT' = 'first statement', rollbackWorks = false): Queryable & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    async query(sql: string) {
      sent.push(sql);
      if (sql === 'BEGIN') return { rows: [], rowCount: 0 };
      if (sql === 'ROLLBACK') {
        if (rollbackWorks) return { rows: [], rowCount: 0 };
        throw new Error('Client has encountered a connection error and is not queryable');
      }
      if (cutAt === 'COMMIT' && sql !== 'COMMIT') return { rows: [], rowCount: 1 };
      throw first;
    },
  } as Queryable & { sent: string[] };
}

describe('runInTransaction when ROLLBACK fails too', () => {
  it("speaks as the first error: its message first and its code, so a lost server is still told apart from Loupe's faults", async () => {
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const connection = cutConnection(terminated);
    const error = await runInTransaction(connection, (tx) => tx.query('INSERT INTO t VALUES (1)')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RollbackFailedError);
    expect((error as RollbackFailedError).message).toBe(
      'terminating connection due to administrator command (then ROLLBACK failed: Client has encountered a connection error and is not queryable)',
    );
    expect((error as RollbackFailedError).code).toBe('57P01');
    expect((error as RollbackFailedError).cause).toBe(terminated);
    expect(connection.sent).toEqual(['BEGIN', 'INSERT INTO t VALUES (1)', 'ROLLBACK']);
  });

  it('takes the code of the ROLLBACK error when the first error has none', async () => {
    const error = new RollbackFailedError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), new Error('Connection terminated unexpectedly'));
    expect(error.code).toBe('ECONNRESET');
    expect(error.message).toMatch(/^Connection terminated unexpectedly \(then ROLLBACK failed: read ECONNRESET\)$/);
  });
});

describe('runInTransaction when COMMIT fails', () => {
  it('says the outcome is unknown when the connection went with it (ROLLBACK fails too): the rows may be in', async () => {
    const connection = cutConnection(new Error('Connection terminated unexpectedly'), 'COMMIT');
    const error = await runInTransaction(connection, (tx) => tx.query('INSERT INTO t VALUES (1)')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommitUnconfirmedError);
    expect(error).toBeInstanceOf(RollbackFailedError);
    expect((error as Error).message).toMatch(/^Connection terminated unexpectedly/);
    expect(connection.sent).toEqual(['BEGIN', 'INSERT INTO t VALUES (1)', 'COMMIT', 'ROLLBACK']);
  });

  it("rethrows the server's refusal as it is when ROLLBACK works: nothing was committed", async () => {
    const refused = Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
    const error = await runInTransaction(cutConnection(refused, 'COMMIT', true), (tx) => tx.query('INSERT INTO t VALUES (1)')).catch((e: unknown) => e);
    expect(error).toBe(refused);
  });

  it('is not unconfirmed when a statement before COMMIT was cut off: nothing was committed', async () => {
    const error = await runInTransaction(cutConnection(new Error('Connection terminated unexpectedly')), (tx) => tx.query('INSERT INTO t VALUES (1)')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RollbackFailedError);
    expect(error).not.toBeInstanceOf(CommitUnconfirmedError);
  });
});
