import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from './db';
import { migrate, MigrationError, type Migration } from './migrate';
import { openDatabase } from './open-database';

const createWidgets: Migration = {
  id: 1,
  name: 'widgets',
  up: 'CREATE TABLE widgets (id bigserial PRIMARY KEY, name text NOT NULL); CREATE INDEX widgets_name ON widgets (name);',
};
const addColour: Migration = { id: 2, name: 'colour', up: "ALTER TABLE widgets ADD COLUMN colour text NOT NULL DEFAULT 'red'" };
const broken: Migration = { id: 3, name: 'broken', up: 'ALTER TABLE widgets ADD COLUMN size int; SELECT * FROM no_such_table' };

describe('migrate on PGlite', () => {
  let db: Db;
  let schemaCount = 0;
  // One PGlite (opening one costs seconds); each test gets an empty schema of its own through search_path.
  beforeAll(async () => {
    db = await openDatabase({});
  });
  beforeEach(async () => {
    const schema = `test_${++schemaCount}`;
    await db.query(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`);
  });
  afterAll(() => db.close());

  it('applies migrations in id order whatever order they are listed in, and records them', async () => {
    expect(await migrate(db, [addColour, createWidgets])).toEqual([1, 2]);
    await db.query('INSERT INTO widgets (name) VALUES ($1)', ['w']);
    const { rows } = await db.query('SELECT id, name FROM schema_migrations ORDER BY id');
    expect(rows).toEqual([
      { id: 1, name: 'widgets' },
      { id: 2, name: 'colour' },
    ]);
  });

  it('applies nothing the second time, and only the new one when a migration is appended', async () => {
    await migrate(db, [createWidgets]);
    expect(await migrate(db, [createWidgets])).toEqual([]);
    expect(await migrate(db, [createWidgets, addColour])).toEqual([2]);
  });

  it('rolls back a failing migration entirely and names it, keeping the ones before', async () => {
    const failure = await migrate(db, [createWidgets, broken]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MigrationError);
    expect((failure as MigrationError).message).toMatch(/migration 3 \(broken\)/);
    const columns = await db.query(
      "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'widgets' AND column_name = 'size'",
    );
    expect(columns.rowCount).toBe(0);
    const { rows } = await db.query('SELECT id FROM schema_migrations');
    expect(rows).toEqual([{ id: 1 }]);
  });

  it('refuses duplicate ids before touching the database', async () => {
    await expect(migrate(db, [createWidgets, { ...addColour, id: 1 }])).rejects.toThrow('duplicate migration id 1');
  });
});
