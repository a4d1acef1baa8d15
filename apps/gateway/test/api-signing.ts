import { createHmac, randomBytes } from 'node:crypto';

/**
 * An independent signer, written from docs/protocol.md §5 alone: Python's quote_plus for image_url and the file name
 * (only A-Za-z0-9_.-~ unescaped, spaces as '+'), lower-cased.
 */
export function quotePlus(value: string): string {
  return [...Buffer.from(value, 'utf8')]
    .map((b) => {
      const c = String.fromCharCode(b);
      if (/[A-Za-z0-9_.\-~]/.test(c)) return c;
      if (c === ' ') return '+';
      return `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

export interface Signing {
  publicKey: string;
  privateKey: string;
  algorithm?: 'sha1' | 'sha256';
  date?: number;
  nonce?: string;
  /** The base URL the client believes it talks to (defaults to the test gateway's). */
  base?: string;
}

export function signedQuery(method: 'GET' | 'POST', operation: string, params: Record<string, string>, s: Signing, base: string, upload?: { boundary: string; filename: string }): URLSearchParams {
  const date = String(s.date ?? Math.floor(Date.now() / 1000));
  const nonce = s.nonce ?? randomBytes(12).toString('hex');
  const sorted = Object.keys(params)
    .sort()
    .map((k) => `${k}=${k === 'image_url' ? quotePlus(params[k]).toLowerCase() : params[k]}`)
    .join('&');
  const url = `${s.base ?? base}${operation}/`;
  const text =
    method === 'GET'
      ? `${s.privateKey}GET${date}${nonce}${url}${sorted}`
      : `${s.privateKey}POSTmultipart/form-data; boundary=${upload!.boundary}${quotePlus(upload!.filename).toLowerCase()}${date}${nonce}${url}${sorted}`;
  const sig = createHmac(s.algorithm ?? 'sha1', s.privateKey).update(text).digest('hex');
  return new URLSearchParams({ api_key: s.publicKey, date, nonce, api_sig: sig, ...params });
}

export function multipart(boundary: string, filename: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image_upload"; filename="${filename}"\r\nContent-Type: image/jpeg\r\n\r\n`),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}
