import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import S3rver from 's3rver';

/**
 * A fresh database `loupe_test_<random>` on the server of `baseUrl`, for tests that need real Postgres.
 * `drop()` terminates whatever is still connected (a pool a failed test did not close) and drops it.
 */
export async function createTestDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `loupe_test_${randomBytes(6).toString('hex')}`;
  await withClient(baseUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      withClient(baseUrl, async (client) => {
        await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [
          name,
        ]);
        await client.query(`DROP DATABASE IF EXISTS ${name}`);
      }),
  };
}

async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** s3rver's fixed credentials. */
const S3RVER_CREDENTIAL = 'S3RVER';

/**
 * An in-process S3 server on 127.0.0.1 with a free port. Without `dir` it stores in a temporary folder that
 * `close()` removes. It answers 501 to multipart uploads: keep test objects below the client's part size (64 MiB).
 */
export async function startS3Server(
  dir?: string,
): Promise<{ endpoint: string; accessKey: string; secretKey: string; close(): Promise<void> }> {
  const directory = dir ?? (await mkdtemp(join(tmpdir(), 'loupe-s3rver-')));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    accessKey: S3RVER_CREDENTIAL,
    secretKey: S3RVER_CREDENTIAL,
    async close() {
      await server.close();
      if (dir === undefined) await rm(directory, { recursive: true, force: true });
    },
  };
}
