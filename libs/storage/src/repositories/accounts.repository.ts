import type { Db, Queryable } from '..';
import { isStorableText } from './storable-text';

export interface AccountRow {
  id: number;
  name: string;
}

export interface UserRow {
  id: number;
  account_id: number;
  username: string;
  password_hash: string;
}

/** Accounts and their users. Password hashing happens in the caller: this layer only stores the hash. */
export class AccountRepository {
  constructor(private readonly db: Db) {}

  async find(name: string): Promise<AccountRow | null> {
    if (!isStorableText(name)) return null;
    const { rows } = await this.db.query<AccountRow>('SELECT id, name FROM accounts WHERE name = $1', [name]);
    return rows[0] ?? null;
  }

  async ensure(name: string, q: Queryable = this.db): Promise<AccountRow> {
    const { rows } = await q.query<AccountRow>(
      `INSERT INTO accounts (name) VALUES ($1)
       ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name
       RETURNING id, name`,
      [name],
    );
    return rows[0];
  }

  async list(): Promise<Array<AccountRow & { users: number; images: number }>> {
    const { rows } = await this.db.query<AccountRow & { users: number; images: number }>(
      `SELECT a.id, a.name,
              (SELECT count(*)::int FROM users u WHERE u.account_id = a.id) AS users,
              (SELECT count(*)::int FROM images i WHERE i.account_id = a.id) AS images
         FROM accounts a ORDER BY a.name`,
    );
    return rows;
  }

  /** Removes the account with its users and images; returns the blob keys its images held so they can be deleted. */
  async remove(name: string): Promise<string[] | null> {
    return this.db.transaction(async (tx) => {
      const account = await tx.query<{ id: number }>('SELECT id FROM accounts WHERE name = $1 FOR UPDATE', [name]);
      if (account.rows.length === 0) return null;
      const blobs = await tx.query<{ blob_key: string; norm_blob_key: string }>(
        'SELECT blob_key, norm_blob_key FROM images WHERE account_id = $1',
        [account.rows[0].id],
      );
      await tx.query('DELETE FROM accounts WHERE id = $1', [account.rows[0].id]);
      return blobs.rows.flatMap((r) => [r.blob_key, r.norm_blob_key]);
    });
  }

  async findUser(accountId: number, username: string): Promise<UserRow | null> {
    if (!isStorableText(username)) return null;
    const { rows } = await this.db.query<UserRow>(
      'SELECT id, account_id, username, password_hash FROM users WHERE account_id = $1 AND username = $2',
      [accountId, username],
    );
    return rows[0] ?? null;
  }

  /** Creates the user or replaces its password hash. */
  async upsertUser(accountId: number, username: string, passwordHash: string, q: Queryable = this.db): Promise<void> {
    await q.query(
      `INSERT INTO users (account_id, username, password_hash) VALUES ($1, $2, $3)
       ON CONFLICT (account_id, username) DO UPDATE SET password_hash = EXCLUDED.password_hash`,
      [accountId, username, passwordHash],
    );
  }

  async removeUser(accountId: number, username: string): Promise<boolean> {
    const { rowCount } = await this.db.query('DELETE FROM users WHERE account_id = $1 AND username = $2', [accountId, username]);
    return rowCount > 0;
  }

  async listUsers(accountId: number): Promise<string[]> {
    const { rows } = await this.db.query<{ username: string }>(
      'SELECT username FROM users WHERE account_id = $1 ORDER BY username',
      [accountId],
    );
    return rows.map((r) => r.username);
  }
}
