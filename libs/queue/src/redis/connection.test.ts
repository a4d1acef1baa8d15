import { createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openRedis } from './connection';

/** A port nothing listens on: bound once to learn a free number, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('openRedis', () => {
  afterEach(() => vi.restoreAllMocks());

  it('handles the errors of an unreachable Redis and reports them once per interval, not on every retry', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const client = openRedis(`redis://127.0.0.1:${await closedPort()}`, 'probe');
    // Without a listener ioredis prints "Unhandled error event" for each of these reconnect failures.
    const failures = await new Promise<number>((resolve) => {
      let count = 0;
      client.on('error', () => {
        count += 1;
        if (count === 3) resolve(count);
      });
    });
    client.disconnect();
    expect(failures).toBe(3);
    expect(client.listenerCount('error')).toBe(2);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toMatch(/^\[probe\] Redis connection: .*ECONNREFUSED/);
  });
});
