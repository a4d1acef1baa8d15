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

describe('process settings in the configuration', () => {
  it('reads COMPUTE_THREADS, then its former name VERIFY_THREADS; unset leaves the default to the compute threads', () => {
    expect(loadConfig({ COMPUTE_THREADS: '3', VERIFY_THREADS: '1' }).computeThreads).toBe(3);
    expect(loadConfig({ VERIFY_THREADS: '0' }).computeThreads).toBe(0);
    expect(loadConfig({}).computeThreads).toBeUndefined();
    expect(() => loadConfig({ COMPUTE_THREADS: 'two' })).toThrow(/COMPUTE_THREADS must be a whole number/);
    expect(() => loadConfig({ COMPUTE_THREADS: '-1' })).toThrow(/COMPUTE_THREADS/);
  });

  it('reads the job kinds, concurrency and stalled-job interval of a worker, refusing what is not a count', () => {
    const config = loadConfig({ WORKER_QUEUES: ' search, compare ,', WORKER_CONCURRENCY: '3', WORKER_STALLED_INTERVAL_MS: '5000' });
    expect(config.workerQueues).toEqual(['search', 'compare']);
    expect(config.workerConcurrency).toBe(3);
    expect(config.workerStalledIntervalMs).toBe(5000);
    expect(loadConfig({})).toMatchObject({ workerQueues: [], workerConcurrency: 1, workerStalledIntervalMs: undefined });
    expect(() => loadConfig({ WORKER_CONCURRENCY: '0' })).toThrow('WORKER_CONCURRENCY: must be at least 1.');
    expect(() => loadConfig({ WORKER_CONCURRENCY: 'many' })).toThrow(/WORKER_CONCURRENCY: "many"/);
  });

  it('logs at LOG_LEVEL, info by default and nothing under tests', () => {
    expect(loadConfig({ LOG_LEVEL: 'debug', NODE_ENV: 'test' }).logLevel).toBe('debug');
    expect(loadConfig({}).logLevel).toBe('info');
    expect(loadConfig({ NODE_ENV: 'test' }).logLevel).toBe('silent');
  });
});
