import type { Db } from '..';
import { isStorableText } from './storable-text';

export interface ApiKeyRow {
  public_key: string;
  private_key: string;
  account_id: number;
  account: string;
}

export interface SearchBlockRow {
  id: number;
  account_id: number;
  searches: number;
  remaining: number;
  start_date: Date;
  expire_date: Date;
}

/** Why a search could not be charged to any block. */
export type QuotaRefusal = 'exhausted' | 'expired' | 'not_started' | 'none';

export type QuotaOutcome = { ok: true; blockId: number; remaining: number } | { ok: false; reason: QuotaRefusal; block: SearchBlockRow | null };

/**
 * Attempts of the charging UPDATE before a refusal is believed. Each retry follows a lost race for the last search
 * of one block while another block still had some; two blocks rarely run out at the same instant.
 */
const CHARGE_ATTEMPTS = 5;

/**
 * API keys, search blocks (quotas), and the Postgres fallbacks of nonce and rate bookkeeping used when no Redis is
 * configured. Every check-and-change is a single statement, so concurrent gateways never double spend.
 */
export class PublicApiRepository {
  constructor(private readonly db: Db) {}

  async findKey(publicKey: string): Promise<ApiKeyRow | null> {
    if (!isStorableText(publicKey)) return null;
    const { rows } = await this.db.query<ApiKeyRow>(
      `SELECT k.public_key, k.private_key, k.account_id, a.name AS account
         FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.public_key = $1`,
      [publicKey],
    );
    return rows[0] ?? null;
  }

  /** The key whose private key this is: key-header authentication (`x-api-key`) sends the private key alone. */
  async findKeyByPrivateKey(privateKey: string): Promise<ApiKeyRow | null> {
    if (!isStorableText(privateKey)) return null;
    const { rows } = await this.db.query<ApiKeyRow>(
      `SELECT k.public_key, k.private_key, k.account_id, a.name AS account
         FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.private_key = $1 ORDER BY k.created_at LIMIT 1`,
      [privateKey],
    );
    return rows[0] ?? null;
  }

  /** Creates the key or moves it to the given account and private key. */
  async upsertKey(accountId: number, publicKey: string, privateKey: string): Promise<void> {
    await this.db.query(
      `INSERT INTO api_keys (public_key, private_key, account_id) VALUES ($1, $2, $3)
       ON CONFLICT (public_key) DO UPDATE SET private_key = EXCLUDED.private_key, account_id = EXCLUDED.account_id`,
      [publicKey, privateKey, accountId],
    );
  }

  async removeKey(publicKey: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM api_keys WHERE public_key = $1', [publicKey])).rowCount > 0;
  }

  async listKeys(accountId?: number): Promise<Array<{ public_key: string; account: string; created_at: Date }>> {
    const { rows } = await this.db.query<{ public_key: string; account: string; created_at: Date }>(
      `SELECT k.public_key, a.name AS account, k.created_at FROM api_keys k JOIN accounts a ON a.id = k.account_id
        ${accountId === undefined ? '' : 'WHERE k.account_id = $1'} ORDER BY a.name, k.created_at`,
      accountId === undefined ? [] : [accountId],
    );
    return rows;
  }

  async addBlock(accountId: number, searches: number, startDate: Date, expireDate: Date): Promise<SearchBlockRow> {
    const { rows } = await this.db.query<SearchBlockRow>(
      `INSERT INTO api_search_blocks (account_id, searches, remaining, start_date, expire_date) VALUES ($1, $2, $2, $3, $4)
       RETURNING id, account_id, searches, remaining, start_date, expire_date`,
      [accountId, searches, startDate, expireDate],
    );
    return rows[0];
  }

  async blockCount(accountId: number): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_search_blocks WHERE account_id = $1', [accountId]);
    return rows[0].n;
  }

  async listBlocks(accountId: number): Promise<SearchBlockRow[]> {
    const { rows } = await this.db.query<SearchBlockRow>(
      'SELECT id, account_id, searches, remaining, start_date, expire_date FROM api_search_blocks WHERE account_id = $1 ORDER BY start_date, id',
      [accountId],
    );
    return rows;
  }

  /**
   * The block a search draws from now: started, not expired, searches left, the one expiring first. When none, the
   * block that best explains why (the latest started one), or null when the account never had one.
   */
  async currentBlock(accountId: number, now: Date = new Date()): Promise<{ active: SearchBlockRow | null; latest: SearchBlockRow | null }> {
    const blocks = await this.listBlocks(accountId);
    const t = now.getTime();
    const active = blocks
      .filter((b) => b.start_date.getTime() <= t && b.expire_date.getTime() > t && b.remaining > 0)
      .sort((a, b) => a.expire_date.getTime() - b.expire_date.getTime() || a.id - b.id)[0] ?? null;
    const started = blocks.filter((b) => b.start_date.getTime() <= t);
    const latest = (started.length > 0 ? started[started.length - 1] : blocks[0]) ?? null;
    return { active, latest };
  }

  /**
   * Charges one search atomically: one UPDATE … WHERE remaining > 0 RETURNING. Under concurrency Postgres re-checks
   * `remaining > 0` on the row it waited for, so N racing searches on a block with k left give exactly k successes.
   */
  async chargeSearch(accountId: number): Promise<QuotaOutcome> {
    for (let attempt = 0; attempt < CHARGE_ATTEMPTS; attempt++) {
      const { rows } = await this.db.query<{ id: number; remaining: number }>(
        `UPDATE api_search_blocks SET remaining = remaining - 1
          WHERE id = (SELECT id FROM api_search_blocks
                       WHERE account_id = $1 AND start_date <= now() AND expire_date > now() AND remaining > 0
                       ORDER BY expire_date, id LIMIT 1)
            AND remaining > 0
          RETURNING id, remaining`,
        [accountId],
      );
      if (rows.length > 0) return { ok: true, blockId: Number(rows[0].id), remaining: rows[0].remaining };
      const { active, latest } = await this.currentBlock(accountId);
      if (!active) return { ok: false, reason: refusalOf(latest), block: latest };
    }
    const { latest } = await this.currentBlock(accountId);
    return { ok: false, reason: 'exhausted', block: latest };
  }

  /** Gives a charged search back (the search failed before producing results). */
  async refundSearch(blockId: number): Promise<void> {
    await this.db.query('UPDATE api_search_blocks SET remaining = LEAST(searches, remaining + 1) WHERE id = $1', [blockId]);
  }

  /** Postgres nonce store: the row is new, or it replaces one that has expired. */
  async claimNonce(publicKey: string, nonce: string, expiresAt: number): Promise<boolean> {
    const { rows } = await this.db.query(
      `INSERT INTO api_nonces (public_key, nonce, expires_at) VALUES ($1, $2, to_timestamp($3))
       ON CONFLICT (public_key, nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE api_nonces.expires_at <= now()
       RETURNING 1`,
      [publicKey, nonce, expiresAt],
    );
    return rows.length > 0;
  }

  async deleteExpiredNonces(): Promise<number> {
    return (await this.db.query('DELETE FROM api_nonces WHERE expires_at <= now()')).rowCount;
  }

  /**
   * Rate buckets untouched for `idleSeconds`. A bucket refills to full within a minute, and a missing row is a full
   * bucket, so dropping idle rows changes no answer; it keeps keys that stopped searching from staying forever.
   */
  async deleteIdleRateBuckets(idleSeconds: number): Promise<number> {
    return (await this.db.query(`DELETE FROM api_rate_buckets WHERE updated_at < now() - $1::float8 * interval '1 second'`, [idleSeconds])).rowCount;
  }

  /** A cleanup cursor (maintenance_cursors), null before the first sweep. */
  async cursor(name: string): Promise<number | null> {
    const { rows } = await this.db.query<{ value: number }>('SELECT value FROM maintenance_cursors WHERE name = $1', [name]);
    return rows.length > 0 ? Number(rows[0].value) : null;
  }

  /** Moves a cursor forward only: two sweepers finishing in either order leave the further position. */
  async advanceCursor(name: string, value: number): Promise<void> {
    await this.db.query(
      `INSERT INTO maintenance_cursors (name, value) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET value = GREATEST(maintenance_cursors.value, EXCLUDED.value), updated_at = now()`,
      [name, value],
    );
  }

  /**
   * Postgres token bucket (same arithmetic as takeToken in @loupe/auth): the upsert refills and takes in one
   * statement under the row lock; no row back means no token.
   */
  async takeRateToken(bucket: string, perMinute: number): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
    const rate = perMinute / 60;
    const { rows } = await this.db.query(
      `INSERT INTO api_rate_buckets AS b (bucket, tokens, updated_at) VALUES ($1, $2::float8 - 1, now())
       ON CONFLICT (bucket) DO UPDATE
         SET tokens = LEAST($2::float8, b.tokens + GREATEST(0, extract(epoch FROM now() - b.updated_at)) * $3::float8) - 1,
             updated_at = now()
       WHERE LEAST($2::float8, b.tokens + GREATEST(0, extract(epoch FROM now() - b.updated_at)) * $3::float8) >= 1
       RETURNING tokens`,
      [bucket, perMinute, rate],
    );
    if (rows.length > 0) return { allowed: true, retryAfterSeconds: 0 };
    const state = await this.db.query<{ tokens: number }>(
      `SELECT LEAST($2::float8, tokens + GREATEST(0, extract(epoch FROM now() - updated_at)) * $3::float8)::float8 AS tokens
         FROM api_rate_buckets WHERE bucket = $1`,
      [bucket, perMinute, rate],
    );
    const tokens = Number(state.rows[0]?.tokens ?? 0);
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / rate)) };
  }
}

function refusalOf(latest: SearchBlockRow | null): QuotaRefusal {
  if (!latest) return 'none';
  const now = Date.now();
  if (latest.start_date.getTime() > now) return 'not_started';
  if (latest.expire_date.getTime() <= now) return 'expired';
  return 'exhausted';
}
