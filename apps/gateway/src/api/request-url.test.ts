import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { signedRequestUrls } from './request-url';

const request = (url: string, headers: Record<string, string>) => ({ url, headers, socket: {} }) as unknown as IncomingMessage;

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
});
