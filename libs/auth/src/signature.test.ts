import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalString, clockSkewSeconds, encodeSignedValue, NONCE_PATTERN, sign, signedParamString, SignedRequest, verifySignature } from './signature';

// The public Node client, used here only as an independent reference for what customers' code signs.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ApiRequest = require('tineye-api/lib/api_request.js');

const BASE = 'http://api.example.com/rest/';

describe('signed requests', () => {
  it('accepts the GET signature the tineye-api client computes (HMAC-SHA256), image_url encoded and lower-cased', () => {
    const client = new ApiRequest(BASE, 'pub', 'secret-key');
    const params = { image_url: 'http://Example.com/My Image (1)!.JPG?a=b&c=%20', limit: 10, offset: 0, sort: 'score', order: 'desc' };
    const signature = client.generateGetHmacSignature('search', 'nonce-123456789', 1700000000, params);
    const req: SignedRequest = {
      method: 'GET',
      date: '1700000000',
      nonce: 'nonce-123456789',
      requestUrl: `${BASE}search/`,
      params: [...Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]), ['api_key', 'pub'], ['api_sig', signature]],
    };
    expect(signature).toHaveLength(64);
    expect(verifySignature('secret-key', req, signature)).toBe(true);
    expect(verifySignature('other-key', req, signature)).toBe(false);
    const tampered: Array<readonly [string, string]> = [...req.params.filter(([k]) => k !== 'limit'), ['limit', '11'] as const];
    expect(verifySignature('secret-key', { ...req, params: tampered }, signature)).toBe(false);
  });

  it('accepts the POST signature of an upload, with boundary and a file name holding spaces and "!"', () => {
    const client = new ApiRequest(BASE, 'pub', 'secret-key');
    const signature = client.generatePostHmacSignature('search', '----b0und4ry', 'nonce-abcdefgh', 1700000001, 'My Photo!.jpg', { limit: 5 });
    const req: SignedRequest = {
      method: 'POST', date: '1700000001', nonce: 'nonce-abcdefgh', requestUrl: `${BASE}search/`, boundary: '----b0und4ry', filename: 'My Photo!.jpg',
      params: [['limit', '5']],
    };
    expect(verifySignature('secret-key', req, signature)).toBe(true);
    expect(verifySignature('secret-key', { ...req, boundary: '----other' }, signature)).toBe(false);
    expect(verifySignature('secret-key', { ...req, filename: 'other.jpg' }, signature)).toBe(false);
  });

  it('accepts HMAC-SHA1 (40 hex digits) computed as docs/protocol.md §5 describes, with Python quote_plus encoding', () => {
    const url = "http://x.org/a b/100%/~tilde*'.jpg";
    // Python 3: quote_plus(url, safe='') keeps A-Za-z0-9_.-~ and writes spaces as '+'.
    const quoted = 'http%3A%2F%2Fx.org%2Fa+b%2F100%25%2F~tilde%2A%27.jpg'.toLowerCase();
    const text = `keyGET1700000002nonce-zzzzzzzz${BASE}search/image_url=${quoted}&limit=3`;
    const signature = createHmac('sha1', 'key').update(`key${text.slice(3)}`).digest('hex');
    const req: SignedRequest = { method: 'GET', date: '1700000002', nonce: 'nonce-zzzzzzzz', requestUrl: `${BASE}search/`, params: [['limit', '3'], ['image_url', url]] };
    expect(canonicalString('key', req, 'python3')).toBe(text);
    expect(verifySignature('key', req, signature)).toBe(true);
    expect(verifySignature('key', req, signature.toUpperCase())).toBe(true);
  });

  it('refuses signatures of other lengths or with non-hex digits', () => {
    const req: SignedRequest = { method: 'GET', date: '1', nonce: 'nnnnnnnn', requestUrl: `${BASE}image_count/`, params: [] };
    const good = sign('k', req, 'sha256');
    expect(verifySignature('k', req, good)).toBe(true);
    expect(verifySignature('k', req, good.slice(0, 63))).toBe(false);
    expect(verifySignature('k', req, `${good.slice(0, 63)}g`)).toBe(false);
    expect(verifySignature('k', req, '')).toBe(false);
  });

  it('leaves signature arguments out of the parameter string and sorts the rest by key', () => {
    expect(signedParamString([['offset', '0'], ['api_sig', 'x'], ['nonce', 'n'], ['date', '1'], ['api_key', 'k'], ['limit', '10']])).toBe('limit=10&offset=0');
    expect(encodeSignedValue('a b!~', 'node')).toBe('a+b%21~');
    expect(encodeSignedValue('a b!~', 'python2')).toBe('a+b%21%7E');
    expect(encodeSignedValue('é', 'python3')).toBe('%C3%A9');
  });

  it('checks nonces and dates', () => {
    expect(NONCE_PATTERN.test('abcdefgh')).toBe(true);
    expect(NONCE_PATTERN.test('abc-_=.,*^DEF0')).toBe(true);
    expect(NONCE_PATTERN.test('short')).toBe(false);
    expect(NONCE_PATTERN.test('has space')).toBe(false);
    expect(NONCE_PATTERN.test('x'.repeat(256))).toBe(false);
    expect(clockSkewSeconds('1000', 1900)).toBe(900);
    expect(clockSkewSeconds('12.5', 0)).toBeNull();
    expect(clockSkewSeconds('-5', 0)).toBeNull();
  });
});
