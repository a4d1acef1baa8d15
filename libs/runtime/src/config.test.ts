import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';

describe('HTTP server limits in the configuration', () => {
  it('defaults to 15 s for headers, 120 s for a whole request and 5 s for idle keep-alive', () => {
    expect(loadConfig({}).http).toEqual({ headersTimeoutMs: 15_000, requestTimeoutMs: 120_000, keepAliveTimeoutMs: 5_000 });
  });

  it('reads HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS and HTTP_KEEP_ALIVE_TIMEOUT_MS, 0 turning a limit off', () => {
    const env = { HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '0', HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000' };
    expect(loadConfig(env).http).toEqual({ headersTimeoutMs: 1_000, requestTimeoutMs: 0, keepAliveTimeoutMs: 65_000 });
  });

  it('refuses a headers timeout longer than the request timeout, which could never be reached', () => {
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '30000', HTTP_REQUEST_TIMEOUT_MS: '20000' })).toThrow(
      'HTTP_HEADERS_TIMEOUT_MS (30000) cannot exceed HTTP_REQUEST_TIMEOUT_MS (20000).',
    );
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: 'soon' })).toThrow(/HTTP_REQUEST_TIMEOUT_MS: "soon" is not a non-negative integer/);
  });
});
