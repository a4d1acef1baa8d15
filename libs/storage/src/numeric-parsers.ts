/**
 * Postgres int8 and numeric arrive as text. Both backends turn them into JS numbers when no precision is lost, so
 * `count(*)` and bigserial ids are plain numbers everywhere.
 */

/** Doubles keep every decimal of a number with at most 15 significant digits (DBL_DIG). */
const MAX_EXACT_DECIMAL_DIGITS = 15;

/** int8 text → number when it is a safe integer, otherwise BigInt (never a silently rounded number). */
export function parseInt8(text: string): number | bigint {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : BigInt(text);
}

/** numeric text → number when the double reproduces it exactly, otherwise the text unchanged. */
export function parseNumeric(text: string): number | string {
  if (text === 'NaN') return Number.NaN;
  if (text === 'Infinity') return Number.POSITIVE_INFINITY;
  if (text === '-Infinity') return Number.NEGATIVE_INFINITY;
  return significantDigits(text) <= MAX_EXACT_DECIMAL_DIGITS ? Number(text) : text;
}

function significantDigits(text: string): number {
  const digits = text.replace(/[^0-9]/g, '');
  const trimmed = digits.replace(/^0+/, '').replace(/0+$/, '');
  return trimmed.length;
}

/** Applies `parse` to every leaf of a (possibly multi-dimensional) array already split by the driver. */
export function mapArrayLeaves(value: unknown, parse: (text: string) => unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => mapArrayLeaves(item, parse));
  return typeof value === 'string' ? parse(value) : value;
}

export const PG_TYPE_INT8 = 20;
export const PG_TYPE_NUMERIC = 1700;
export const PG_TYPE_INT8_ARRAY = 1016;
export const PG_TYPE_NUMERIC_ARRAY = 1231;
