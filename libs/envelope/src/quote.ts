/** Most characters of a client's value that an error message quotes back. */
export const QUOTED_CHARS = 64;

/** The first `max` code points of a longer value and its length in code points, or null when it is short enough. */
function cut(value: string, max: number): { head: string; length: number } | null {
  if (value.length <= max) return null;
  const points = Array.from(value);
  if (points.length <= max) return null;
  return { head: points.slice(0, max).join(''), length: points.length };
}

/**
 * A client's value as an error message shows it: whole when short, else its first `max` characters, "…" and its
 * length. Messages name the input so the client can find it, but a 100 kB value echoed back makes a 100 kB answer (and
 * log line) out of one bad parameter. Counted in code points, and never cut inside a surrogate pair.
 */
export function shortInput(value: string, max = QUOTED_CHARS): string {
  const long = cut(value, max);
  return long ? `${long.head}… (${long.length} characters)` : value;
}

/** `shortInput` in double quotes, the length (if cut) after the closing quote: `"xxxx…" (100000 characters)`. */
export function quoteInput(value: string, max = QUOTED_CHARS): string {
  const long = cut(value, max);
  return long ? `"${long.head}…" (${long.length} characters)` : `"${value}"`;
}

/**
 * Longest file name or URL that names an input in messages (the collection path limit): long enough to tell any two
 * real inputs apart, while a 100 kB URL or a 16 kB multipart file name is not echoed whole into every message.
 */
export const LABEL_CHARS = 1024;

/** A file name or URL as it names an input in messages, cut to LABEL_CHARS. */
export function inputLabel(text: string): string {
  return shortInput(text, LABEL_CHARS);
}
