import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { arrivedOverHttps, signedRequestUrls } from './request-url';

const request = (url: string, headers: Record<string, string>, encrypted = false) => ({ url, headers, socket: { encrypted } }) as unknown as IncomingMessage;

describe('the URL a client signed', () => {
  it('is the address it used, with the trailing slash restored and the query left out', () => {
    expect(signedRequestUrls(request('/api/rest/search?api_key=x', { host: '127.0.0.1:8080' }), false)).toEqual(['http://127.0.0.1:8080/api/rest/search/']);
    expect(signedRequestUrls(request('/api/rest/search/', { host: 'api.example.com' }), false)).toEqual(['http://api.example.com/api/rest/search/', 'http://api.example.com:80/api/rest/search/']);
  });

  it('follows X-Forwarded-* only behind a trusted proxy', () => {
    const headers = { host: 'gateway:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'images.example.net, proxy2', 'x-forwarded-prefix': '/public/' };
    expect(signedRequestUrls(request('/api/rest/image_count/', headers), true)[0]).toBe('https://images.example.net/public/api/rest/image_count/');
    expect(signedRequestUrls(request('/api/rest/image_count/', headers), false)[0]).toBe('http://gateway:8080/api/rest/image_count/');
  });

  it('is the URL of an absolute-form request line (RFC 9112 3.2.2), not Host plus that URL', () => {
    const req = request('http://api.example.com:8080/rest/search/?api_key=x&date=1', { host: 'api.example.com:8080' });
    expect(signedRequestUrls(req, false)).toEqual(['http://api.example.com:8080/rest/search/']);
    // The target's authority wins over Host, and a default port may be written or not.
    expect(signedRequestUrls(request('HTTP://images.example.net/api/rest/image_count', { host: 'other' }), true)).toEqual([
      'http://images.example.net/api/rest/image_count/',
      'http://images.example.net:80/api/rest/image_count/',
    ]);
    expect(signedRequestUrls(request('https://user@api.example.com:443/rest/search', {}), false)).toEqual(['https://api.example.com:443/rest/search/', 'https://api.example.com/rest/search/']);
  });
});

describe('a call over HTTPS', () => {
  it('is a TLS socket, or X-Forwarded-Proto https from a trusted proxy only', () => {
    expect(arrivedOverHttps(request('/rest/search/', {}, true), false)).toBe(true);
    expect(arrivedOverHttps(request('/rest/search/', { 'x-forwarded-proto': 'https' }), true)).toBe(true);
    expect(arrivedOverHttps(request('/rest/search/', { 'x-forwarded-proto': 'https' }), false)).toBe(false);
    expect(arrivedOverHttps(request('https://api.example.com/rest/search/', {}), false)).toBe(false);
    expect(arrivedOverHttps(request('/rest/search/', { 'x-forwarded-proto': 'http, https' }), true)).toBe(false);
  });
});
