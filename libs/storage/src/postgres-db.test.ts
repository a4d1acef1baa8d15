import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from './db';
import { migrate, type Migration } from './migrate';
import { openDatabase } from './open-database';
import { createTestDatabase } from './testing';

const baseUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!baseUrl)('Postgres', () => {
  let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: Db;
  beforeAll(async () => {
    testDb = await createTestDatabase(baseUrl as string);
    db = await openDatabase({ url: testDb.url, poolSize: 4 });
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it('returns int8 and numeric as numbers where exact, BigInt or text where not', async () => {
    const { rows } = await db.query(`SELECT count(*) AS n, 9007199254740993::int8 AS huge, ARRAY[1, 2]::int8[] AS ids,
      12.5::numeric AS price, 1234567890.1234567::numeric AS precise, '\\x00ff'::bytea AS bin`);
    expect(rows[0]).toEqual({ n: 1, huge: 9007199254740993n, ids: [1, 2], price: 12.5, precise: '1234567890.1234567', bin: Buffer.from([0, 255]) });
  });

  it('runs several statements without params and returns the last result', async () => {
    const result = await db.query('CREATE TABLE multi (v int); INSERT INTO multi VALUES (4), (5); SELECT sum(v) AS s FROM multi');
    expect(result.rows).toEqual([{ s: 9 }]);
  });

  it('rolls a transaction back when its function throws, and commits otherwise', async () => {
    await db.query('CREATE TABLE ledger (id bigserial PRIMARY KEY, note text)');
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO ledger (note) VALUES ($1)', ['doomed']);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const id = await db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: number }>('INSERT INTO ledger (note) VALUES ($1) RETURNING id', ['kept']);
      return rows[0]?.id;
    });
    const { rows } = await db.query('SELECT note FROM ledger');
    expect(rows).toEqual([{ note: 'kept' }]);
    expect(typeof id).toBe('number');
  });

  it('applies each migration exactly once when two processes migrate at the same time', async () => {
    const migrations: Migration[] = Array.from({ length: 5 }, (_, i) => ({
      id: i + 1,
      name: `step${i + 1}`,
      // Not idempotent on purpose: running a step twice would fail on the existing table.
      up: `CREATE TABLE step${i + 1} (id int); SELECT pg_sleep(0.02);`,
    }));
    const [a, b] = await Promise.all([openDatabase({ url: testDb.url }), openDatabase({ url: testDb.url })]);
    try {
      const [appliedByA, appliedByB] = await Promise.all([migrate(a, migrations), migrate(b, migrations)]);
      expect([...appliedByA, ...appliedByB].sort()).toEqual([1, 2, 3, 4, 5]);
      expect(await migrate(a, migrations)).toEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    const { rows } = await db.query('SELECT count(*) AS n FROM schema_migrations');
    expect(rows).toEqual([{ n: 5 }]);
  });

  it('survives a connection cut in the middle of a transaction: the call fails, the process lives, the pool goes on', async () => {
    // A checked-out client whose socket closes emits 'error'; with no listener that is an uncaught exception that kills
    // the process (a worker died this way when Postgres was stopped during an add, in the fault suite).
    const outcome = db.transaction(async (tx) => {
      const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const killer = new Client({ connectionString: testDb.url });
      await killer.connect();
      try {
        await killer.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      } finally {
        await killer.end();
      }
      await tx.query('SELECT pg_sleep(2)');
    });
    const error = await outcome.then(() => null, (thrown: unknown) => thrown as Error & { code?: string });
    // The failure says first that the connection was lost, which callers answer as an outage (503), not as a fault of
    // their own: the ROLLBACK that then fails on the dead connection must not take its place (the gateway's
    // isBackendUnavailable reads these words; a flaky 500 in the outage fault suite came from that).
    expect(error?.message).toMatch(/^(terminating connection due to administrator command|Client has encountered a connection error)/);
    // Give the closed socket's events time to arrive after the rejection.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { rows } = await db.query<{ ok: number }>('SELECT 1 AS ok');
    expect(rows).toEqual([{ ok: 1 }]);
  });

  it('drops the test database even while a connection is still open', async () => {
    const scratch = await createTestDatabase(baseUrl as string);
    const lingering = new Client({ connectionString: scratch.url });
    await lingering.connect();
    lingering.on('error', () => undefined); // the drop terminates it
    await scratch.drop();
    const name = new URL(scratch.url).pathname.slice(1);
    const { rows } = await db.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    expect(rows).toEqual([]);
  });
});
