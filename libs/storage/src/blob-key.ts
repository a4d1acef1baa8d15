/** A key that could escape the store's root or that the folder store cannot represent. */
export class InvalidBlobKeyError extends Error {
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`invalid blob key ${JSON.stringify(key)}: ${reason}`);
    this.name = 'InvalidBlobKeyError';
  }
}

/**
 * S3's own limit on key length in bytes; the folder store's path segments are far below filesystem limits for the
 * keys this platform builds (account/service/hash paths).
 */
const MAX_KEY_BYTES = 1024;

/**
 * Keys are '/'-separated relative paths. Both stores apply the same rules so a key valid on one is valid on the
 * other: no absolute paths, no '.' or '..' segments, no empty segments, no backslashes or NUL.
 */
export function assertValidKey(key: string): void {
  if (key.length === 0) throw new InvalidBlobKeyError(key, 'empty');
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw new InvalidBlobKeyError(key, `longer than ${MAX_KEY_BYTES} bytes`);
  if (key.startsWith('/')) throw new InvalidBlobKeyError(key, 'absolute path');
  if (key.includes('\\') || key.includes('\0')) throw new InvalidBlobKeyError(key, 'backslash or NUL');
  for (const segment of key.split('/')) {
    if (segment === '') throw new InvalidBlobKeyError(key, 'empty path segment');
    if (segment === '.' || segment === '..') throw new InvalidBlobKeyError(key, `'${segment}' segment`);
  }
}

/**
 * A prefix may end in '/' ("collections/42/") or mid-segment ("img-00"); apart from that it follows the key rules.
 * The empty prefix is refused: deleting a whole store by accident is not worth the convenience.
 */
export function assertValidPrefix(prefix: string): void {
  assertValidKey(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
}
