import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from './db';
import { openPglite, parseLsn } from './pglite-db';

/** Bytes of the WAL segment files of a PGlite data dir (what a long embedded run would fill the disk with). */
async function walBytes(dataDir: string): Promise<number> {
  const folder = join(dataDir, 'pg', 'pg_wal');
  let total = 0;
  for (const name of await readdir(folder)) {
    if (/^[0-9A-F]{24}$/.test(name)) total += (await stat(join(folder, name))).size;
  }
  return total;
}

describe('PGlite write-ahead log', () => {
  let dataDir: string;
  let db: Db;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'loupe-wal-'));
    db = await openPglite(dataDir);
    await db.query('CREATE TABLE blobs (id bigserial PRIMARY KEY, payload bytea NOT NULL)');
  });
  afterAll(async () => {
    await db.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stays bounded while rows keep arriving: PGlite has no checkpointer, the adapter checkpoints', async () => {
    // 160 rows of 1 MB of random bytes (not compressible), made by the server: PGlite takes ~0.5 s to pass 1 MB of
    // parameters. Without checkpoints pg_wal holds every byte of it, 12 segments.
    const oneRandomMegabyte = "SELECT decode(string_agg(md5(random()::text), ''), 'hex') FROM generate_series(1, 65536)";
    let largest = 0;
    for (let i = 0; i < 160; i++) {
      if (i % 2 === 0) await db.query(`INSERT INTO blobs (payload) ${oneRandomMegabyte}`);
      else await db.transaction((tx) => tx.query(`INSERT INTO blobs (payload) ${oneRandomMegabyte}`, []));
      if (i % 10 === 9) largest = Math.max(largest, await walBytes(dataDir));
    }
    const { rows } = await db.query<{ mb: number }>('SELECT (sum(octet_length(payload)) / 1048576)::int AS mb FROM blobs', []);
    expect(rows[0].mb).toBeGreaterThanOrEqual(160);
    // Five segments of 16 MB: two recycled (min_wal_size), two for the 32 MB between checkpoints (plus what up to 16
    // statements write before the adapter looks at the WAL position again), one being written. Without checkpoints: 190 MB.
    expect(largest).toBeLessThanOrEqual(80 * 1024 * 1024);
  }, 120_000);
});

describe('parseLsn', () => {
  it('reads both hex halves of a WAL position', () => {
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
  });
});
