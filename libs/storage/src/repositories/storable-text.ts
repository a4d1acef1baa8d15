/**
 * Whether a string can be a value of a Postgres `text` column. Postgres refuses a NUL character in text outright (an
 * error, not a non-match), so a name or key that holds one cannot be stored and a lookup of it must find nothing
 * rather than reach the database: a client's junk must not turn into an internal error.
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000');
}
