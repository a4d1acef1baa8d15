import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed requests of the public index API (docs/protocol.md §5). Pure functions: the
 * gateway gathers the request's parts, looks up the private key, and asks `verifySignature`; nonce and date
 * bookkeeping live in nonce-store.ts.
 */

/** Arguments that carry the signature itself and never take part in the signed parameter string. */
export const SIGNATURE_ARGUMENTS: ReadonlySet<string> = new Set(['api_key', 'api_sig', 'date', 'nonce', 'image_upload']);

/** docs/protocol.md §5: 8 to 255 characters of `a-zA-Z0-9-_=.,*^`. */
export const NONCE_PATTERN = /^[A-Za-z0-9\-_=.,*^]{8,255}$/;

/**
 * docs/protocol.md §5: a date more than 15 minutes from server time is refused. The same window bounds how long a
 * nonce must be remembered: a request is replayable only while its date is inside the window.
 */
export const MAX_CLOCK_SKEW_SECONDS = 15 * 60;

/** Hex lengths of the two accepted digests (docs/protocol.md §5): HMAC-SHA1 and HMAC-SHA256 (`tineye-api` 1.x). */
const DIGEST_OF_HEX_LENGTH: Readonly<Record<number, 'sha1' | 'sha256'>> = { 40: 'sha1', 64: 'sha256' };

export interface SignedRequest {
  method: 'GET' | 'POST';
  date: string;
  nonce: string;
  /** API base plus `<operation>/`, as the client addressed it, e.g. `http://host/api/rest/search/`. */
  requestUrl: string;
  /** Every parameter as received (decoded), signature arguments included; they are filtered here. */
  params: ReadonlyArray<readonly [string, string]>;
  /** POST only: the multipart boundary and the uploaded file's name. */
  boundary?: string;
  filename?: string;
}

/**
 * How clients percent-encode `image_url` and the upload's file name before lower-casing. They disagree on a few
 * characters, so each variant is tried and a signature matching any of them is accepted:
 * - `node`: `encodeURIComponent`, `%20`→`+`, `!`→`%21` (`tineye-api` for `image_url`; its file name keeps `!`),
 * - `python3`: `urllib.parse.quote_plus(v, safe='')`: leaves only `A-Za-z0-9_.-~` unescaped,
 * - `python2`: Python 2's `quote_plus`, which also escapes `~`.
 */
export type EncodingVariant = 'node' | 'node-keep-bang' | 'python3' | 'python2';
export const ENCODING_VARIANTS: readonly EncodingVariant[] = ['node', 'node-keep-bang', 'python3', 'python2'];

const UNRESERVED: Record<EncodingVariant, RegExp> = {
  node: /[A-Za-z0-9\-_.~*'()]/,
  'node-keep-bang': /[A-Za-z0-9\-_.~*'()!]/,
  python3: /[A-Za-z0-9\-_.~]/,
  python2: /[A-Za-z0-9\-_.]/,
};

/** Percent-encodes UTF-8 bytes outside the variant's unreserved set, spaces as `+` (form encoding). */
export function encodeSignedValue(value: string, variant: EncodingVariant): string {
  const keep = UNRESERVED[variant];
  let out = '';
  for (const char of value) {
    if (char === ' ') out += '+';
    else if (keep.test(char)) out += char;
    else for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** `key=value` pairs other than the signature arguments, sorted by key, `image_url` encoded and lower-cased. */
export function signedParamString(params: SignedRequest['params'], variant: EncodingVariant = 'node'): string {
  const pairs = params
    .filter(([key]) => !SIGNATURE_ARGUMENTS.has(key.toLowerCase()))
    .map(([key, value]) => {
      const lower = key.toLowerCase();
      return [lower, lower === 'image_url' ? encodeSignedValue(value, variant).toLowerCase() : value] as const;
    });
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return pairs.map(([key, value]) => `${key}=${value}`).join('&');
}

/** The text that is signed (docs/protocol.md §5), for one encoding variant. */
export function canonicalString(privateKey: string, req: SignedRequest, variant: EncodingVariant = 'node'): string {
  const tail = `${req.date}${req.nonce}${req.requestUrl}${signedParamString(req.params, variant)}`;
  if (req.method === 'GET') return `${privateKey}GET${tail}`;
  const filename = encodeSignedValue(req.filename ?? '', variant).toLowerCase();
  return `${privateKey}POST${`multipart/form-data; boundary=${req.boundary ?? ''}`}${filename}${tail}`;
}

export function sign(privateKey: string, req: SignedRequest, algorithm: 'sha1' | 'sha256' = 'sha256', variant: EncodingVariant = 'node'): string {
  return createHmac(algorithm, privateKey).update(canonicalString(privateKey, req, variant)).digest('hex');
}

/** True when `signature` (40 or 64 hex digits, any case) is the HMAC of the request under `privateKey`. */
export function verifySignature(privateKey: string, req: SignedRequest, signature: string): boolean {
  const algorithm = DIGEST_OF_HEX_LENGTH[signature.length];
  if (!algorithm || !/^[0-9a-fA-F]+$/.test(signature)) return false;
  const given = Buffer.from(signature.toLowerCase(), 'hex');
  const tried = new Set<string>();
  for (const variant of ENCODING_VARIANTS) {
    const text = canonicalString(privateKey, req, variant);
    if (tried.has(text)) continue;
    tried.add(text);
    const expected = createHmac(algorithm, privateKey).update(text).digest();
    if (timingSafeEqual(expected, given)) return true;
  }
  return false;
}

/** Seconds between the request's date and now; null when the date is not an integer. */
export function clockSkewSeconds(date: string, nowSeconds: number): number | null {
  if (!/^\d{1,12}$/.test(date)) return null;
  return Math.abs(Number(date) - nowSeconds);
}

/**
 * Until when a nonce must be remembered (Unix seconds): as long as a request carrying it could still pass the
 * date check, i.e. until its date leaves the skew window.
 */
export function nonceExpiry(date: string): number {
  return Number(date) + MAX_CLOCK_SKEW_SECONDS;
}
