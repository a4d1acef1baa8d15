export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

/**
 * Without params (or with an empty array) `sql` may hold several statements separated by `;`, and the result is the
 * last statement's: both node-postgres (simple protocol) and PGlite (`exec`) allow that, and migrations need it.
 */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** BEGIN/COMMIT, ROLLBACK when `fn` throws. Nested transactions are not supported. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres://… — when set, a pg Pool is used. */
  url?: string;
  /** PGlite keeps its files in `<dataDir>/pg`; undefined means in memory. Ignored when `url` is set. */
  dataDir?: string;
  /** Pool size for Postgres; default 10 (node-postgres default). */
  poolSize?: number;
}
