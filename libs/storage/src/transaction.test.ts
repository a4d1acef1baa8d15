import { describe, expect, it } from 'vitest';
import type { Queryable } from './db';
import { RollbackFailedError, runInTransaction } from './transaction';

/** A connection whose statements after BEGIN fail as a cut connection does: the first with `first`, ROLLBACK after. */
function cutConnection(first: Error): Queryable & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    async query(sql: string) {
      sent.push(sql);
      if (sql === 'BEGIN') return { rows: [], rowCount: 0 };
      if (sql === 'ROLLBACK') throw new Error('Client has encountered a connection error and is not queryable');
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
