import type { Db, Queryable } from './db';

export interface Migration {
  id: number;
  name: string;
  /** SQL text; may hold several statements. */
  up: string;
}

/** A migration's SQL failed; its transaction was rolled back and later migrations were not attempted. */
export class MigrationError extends Error {
  constructor(
    readonly migration: Migration,
    cause: unknown,
  ) {
    super(`migration ${migration.id} (${migration.name}) failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'MigrationError';
  }
}

/**
 * Key of the transaction-scoped advisory lock every migrating process takes: an arbitrary constant, unique to
 * this schema's migrations ("LOUPE" in ASCII), so it cannot collide with row locks or other applications' keys.
 */
const MIGRATION_LOCK_KEY = 0x4c4f555045;

/**
 * Applies the migrations missing from schema_migrations in id order, each in its own transaction, and returns the
 * ids applied by this call. Two processes migrating at once serialise on the advisory lock; the loser finds each
 * id already recorded and skips it.
 */
export async function migrate(db: Db, migrations: readonly Migration[]): Promise<number[]> {
  const ordered = validated(migrations);
  // Concurrent CREATE TABLE IF NOT EXISTS can still fail on Postgres (pg_type unique violation): lock it too.
  await db.transaction(async (tx) => {
    await lockMigrations(tx);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      id         integer PRIMARY KEY,
      name       text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  });

  const { rows } = await db.query<{ id: number }>('SELECT id FROM schema_migrations');
  const recorded = new Set(rows.map((row) => row.id));
  const applied: number[] = [];
  for (const migration of ordered.filter((m) => !recorded.has(m.id))) {
    if (await applyOne(db, migration)) applied.push(migration.id);
  }
  return applied;
}

async function applyOne(db: Db, migration: Migration): Promise<boolean> {
  return db.transaction(async (tx) => {
    await lockMigrations(tx);
    const { rowCount } = await tx.query('SELECT 1 FROM schema_migrations WHERE id = $1', [migration.id]);
    if (rowCount > 0) return false;
    try {
      await tx.query(migration.up);
    } catch (error) {
      throw new MigrationError(migration, error);
    }
    await tx.query('INSERT INTO schema_migrations (id, name) VALUES ($1, $2)', [migration.id, migration.name]);
    return true;
  });
}

async function lockMigrations(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
}

function validated(migrations: readonly Migration[]): Migration[] {
  const seen = new Set<number>();
  for (const m of migrations) {
    if (!Number.isInteger(m.id) || m.id <= 0) throw new Error(`migration id must be a positive integer: ${m.id}`);
    if (seen.has(m.id)) throw new Error(`duplicate migration id ${m.id}`);
    seen.add(m.id);
  }
  return [...migrations].sort((a, b) => a.id - b.id);
}
