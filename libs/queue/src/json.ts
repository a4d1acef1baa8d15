/**
 * A JSON round trip. The in-process adapter applies it to payloads and results so that embedded mode fails the
 * same way Redis mode would when someone slips a Buffer, a Date or a class instance into a job.
 */
export function jsonCopy<T>(value: T): T {
  if (value === undefined) return value;
  return JSON.parse(JSON.stringify(value)) as T;
}
