import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from './db';
import { FolderLockedError } from './folder-lock';
import { openDatabase } from './open-database';

describe('PGlite in memory', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase({});
    await db.query('CREATE TABLE events (id bigserial PRIMARY KEY, label text NOT NULL, payload bytea)');
  });
  afterAll(() => db.close());

  it('returns bigserial ids, counts and int8 arrays as numbers', async () => {
    const inserted = await db.query<{ id: unknown }>("INSERT INTO events (label) VALUES ('x') RETURNING id", []);
    expect(typeof inserted.rows[0]?.id).toBe('number');
    const { rows } = await db.query('SELECT count(*) AS n, array_agg(id) AS ids, 2.5::numeric AS price FROM events');
    expect(rows[0]).toEqual({ n: 1, ids: [inserted.rows[0]?.id], price: 2.5 });
  });

  it('returns bytea as a Buffer, as node-postgres does', async () => {
    const payload = Buffer.from([0, 1, 254, 255]);
    const { rows } = await db.query<{ payload: unknown }>(
      "INSERT INTO events (label, payload) VALUES ('bin', $1) RETURNING payload",
      [payload],
    );
    expect(Buffer.isBuffer(rows[0]?.payload)).toBe(true);
    expect(rows[0]?.payload).toEqual(payload);
  });

  it('stores bytea parameters byte for byte: a Buffer, a view into a larger buffer, a plain Uint8Array, and refuses other values', async () => {
    const backing = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37) % 256));
    const values = [backing, backing.subarray(3, 260), new Uint8Array([0, 255, 16, 1]), Buffer.alloc(0)];
    for (const value of values) {
      const { rows } = await db.query<{ payload: Buffer }>("INSERT INTO events (label, payload) VALUES ('bytes', $1) RETURNING payload", [value]);
      expect(rows[0].payload.equals(Buffer.from(value))).toBe(true);
    }
    await expect(db.query("INSERT INTO events (label, payload) VALUES ('bytes', $1)", [[1, 2, 3]])).rejects.toThrow(/Invalid input for bytea/);
  });

  it('runs several statements without params and returns the last result', async () => {
    const result = await db.query("CREATE TEMP TABLE t (v int); INSERT INTO t VALUES (1), (2); SELECT sum(v) AS s FROM t");
    expect(result.rows).toEqual([{ s: 3 }]);
  });

  it('counts rows returned by a SELECT and rows touched by an UPDATE', async () => {
    const selected = await db.query('SELECT * FROM events');
    expect(selected.rowCount).toBe(selected.rows.length);
    const updated = await db.query("UPDATE events SET label = label || '!' WHERE label <> $1", ['none']);
    expect(updated.rowCount).toBe(selected.rows.length);
  });

  it('rolls a transaction back when its function throws', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO events (label) VALUES ('doomed')", []);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const { rowCount } = await db.query("SELECT 1 FROM events WHERE label = 'doomed'");
    expect(rowCount).toBe(0);
  });

  it('queues concurrent transactions and queries so none runs inside another transaction', async () => {
    await db.query('CREATE TABLE steps (seq bigserial PRIMARY KEY, who text NOT NULL)');
    const worker = (who: string) =>
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO steps (who) VALUES ($1)', [who]);
        await sleep(20); // give other callers every chance to slip a statement in
        await tx.query('INSERT INTO steps (who) VALUES ($1)', [who]);
      });
    await Promise.all([worker('a'), db.query("INSERT INTO steps (who) VALUES ('q')"), worker('b'), worker('c')]);
    const { rows } = await db.query<{ who: string }>('SELECT who FROM steps ORDER BY seq');
    expect(rows.map((r) => r.who).join('')).toBe('aaqbbcc');
  });

  it('refuses db.query inside a transaction instead of deadlocking on the single connection', async () => {
    await expect(db.transaction(() => db.query('SELECT 1'))).rejects.toThrow(/use the tx handle/);
  });

  it('refuses a transaction handle used after COMMIT', async () => {
    const leaked = await db.transaction(async (tx) => tx);
    await expect(leaked.query('SELECT 1')).rejects.toThrow(/after COMMIT/);
  });
});

describe('PGlite on disk', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loupe-pglite-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('keeps data across close and reopen, and refuses a second open while the first is open', async () => {
    const first = await openDatabase({ dataDir: dir });
    await first.query("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')");
    await expect(openDatabase({ dataDir: dir })).rejects.toBeInstanceOf(FolderLockedError);
    await first.close();

    const reopened = await openDatabase({ dataDir: dir });
    const { rows } = await reopened.query('SELECT v FROM kept');
    await reopened.close();
    expect(rows).toEqual([{ v: 'still here' }]);
  });

  it('takes over the lock of a process that has exited', async () => {
    const deadPid = await pidOfExitedProcess();
    await writeFile(join(dir, 'pg.lock'), `${deadPid}\n`);
    const db = await openDatabase({ dataDir: dir });
    await db.close();
  });

  it('refuses a folder locked by another running process', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      await writeFile(join(dir, 'pg.lock'), `${child.pid}\n`);
      await expect(openDatabase({ dataDir: dir })).rejects.toThrow(`held by running process ${child.pid}`);
    } finally {
      child.kill();
      await rm(join(dir, 'pg.lock'), { force: true });
    }
  });
});

async function pidOfExitedProcess(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  if (child.pid === undefined) throw new Error('child process did not start');
  return child.pid;
}
