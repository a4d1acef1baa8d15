import { createHmac, randomBytes } from 'node:crypto';
import { signedQuery } from '../api-signing';
import { FUZZ_ACCOUNT, FUZZ_API, FUZZ_AUTH } from './gateway-process';
import type { FuzzRequest } from './fuzzer';

export interface Part {
  name: string;
  value: string | Buffer;
  /** Present for a file part. */
  filename?: string;
  contentType?: string;
}

/** A multipart/form-data body written by hand, so that names, file names and values go on the wire exactly as given. */
export function multipartBody(boundary: string, parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const type = part.filename !== undefined ? `\r\nContent-Type: ${part.contentType ?? 'image/jpeg'}` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`, 'utf8'));
    chunks.push(typeof part.value === 'string' ? Buffer.from(part.value, 'utf8') : part.value);
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** Percent-encodes for a query string, keeping brackets as clients send them; lone surrogates become U+FFFD. */
export function encode(text: string): string {
  const wellFormed = (text as unknown as { toWellFormed(): string }).toWellFormed();
  return encodeURIComponent(wellFormed).replace(/%5B/g, '[').replace(/%5D/g, ']');
}

export function queryString(pairs: Array<[string, string]>): string {
  return pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
}

export function collectionPath(service: string, operation: string, query = ''): string {
  return `/${service}/${FUZZ_ACCOUNT}/rest/${encode(operation)}/${query ? `?${query}` : ''}`;
}

export type Transport = 'query' | 'urlencoded' | 'multipart' | 'multipart-chunked';

/** A collection call carrying `pairs` and `files` the way `transport` says (files force a multipart body). */
export function collectionRequest(
  service: string,
  operation: string,
  pairs: Array<[string, string]>,
  files: Part[],
  transport: Transport,
  method = 'POST',
): FuzzRequest {
  const headers = { authorization: FUZZ_AUTH };
  if (files.length === 0 && transport === 'query') return { method, path: collectionPath(service, operation, queryString(pairs)), headers, expect: 'collection' };
  if (files.length === 0 && transport === 'urlencoded') {
    return {
      method,
      path: collectionPath(service, operation),
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: Buffer.from(queryString(pairs)),
      expect: 'collection',
    };
  }
  const boundary = `----fuzz${randomBytes(8).toString('hex')}`;
  return {
    method,
    path: collectionPath(service, operation),
    headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: multipartBody(boundary, [...pairs.map(([name, value]) => ({ name, value })), ...files]),
    chunked: transport === 'multipart-chunked',
    expect: 'collection',
  };
}

/** A signed public API GET (signatures computed as docs/protocol.md §5 says, by the suite's independent signer). */
export function apiGet(base: string, operation: string, params: Record<string, string>): FuzzRequest {
  const query = signedQuery('GET', operation, params, FUZZ_API, `${base}/api/rest/`);
  return { method: 'GET', path: `/api/rest/${encode(operation)}/?${query}`, expect: 'api' };
}

/** A signed public API upload search: the signature covers boundary and file name, not the body. */
export function apiUpload(base: string, params: Record<string, string>, body: (boundary: string) => Buffer, filename = 'query.jpg', boundary = `----fuzz${randomBytes(8).toString('hex')}`): FuzzRequest {
  const query = signedQuery('POST', 'search', params, FUZZ_API, `${base}/api/rest/`, { boundary, filename });
  return {
    method: 'POST',
    path: `/api/rest/search/?${query}`,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: body(boundary),
    expect: 'api',
  };
}

/** A public API call with the signature fields themselves hostile (not a valid signature, except by accident). */
export function apiForged(operation: string, fields: Record<string, string>): FuzzRequest {
  const sig = createHmac('sha1', 'not-the-key').update(JSON.stringify(fields)).digest('hex');
  return { method: 'GET', path: `/api/rest/${encode(operation)}/?${queryString(Object.entries({ api_sig: sig, ...fields }))}`, expect: 'api' };
}
