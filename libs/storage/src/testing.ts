import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import S3rver from 's3rver';
import FilesystemStore from 's3rver/lib/stores/filesystem';

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

interface S3rverFilesystemStore {
  putObject(object: { bucket: string }): Promise<unknown>;
  deleteObject(bucket: string, key: string): Promise<unknown>;
  __loupeSerialised?: boolean;
}

/**
 * s3rver's folder store races with itself: deleting an object removes its folders once empty, and a put into the same
 * folder that made the folder a moment before then opens its file in a folder that is gone. The write stream's error
 * has no listener, so the whole server process dies (seen in CI under the fault suites' concurrent adds and deletes of
 * staged uploads). Puts and deletes of one bucket are run one at a time here; it is a test server, so throughput does
 * not matter and S3's real semantics are unchanged.
 */
export function serialiseS3rverWrites(): void {
  const store = FilesystemStore.prototype as S3rverFilesystemStore;
  if (store.__loupeSerialised) return;
  store.__loupeSerialised = true;
  const tails = new Map<string, Promise<unknown>>();
  const serially = <T>(bucket: string, work: () => Promise<T>): Promise<T> => {
    const run = (tails.get(bucket) ?? Promise.resolve()).catch(() => undefined).then(work);
    const tail = run.catch(() => undefined);
    tails.set(bucket, tail);
    void tail.then(() => {
      if (tails.get(bucket) === tail) tails.delete(bucket);
    });
    return run;
  };
  const { putObject, deleteObject } = store;
  store.putObject = function (this: S3rverFilesystemStore, object) {
    return serially(object.bucket, () => putObject.call(this, object));
  };
  store.deleteObject = function (this: S3rverFilesystemStore, bucket, key) {
    return serially(bucket, () => deleteObject.call(this, bucket, key));
  };
}

/**
 * An in-process S3 server on 127.0.0.1 with a free port. Without `dir` it stores in a temporary folder that
 * `close()` removes. It answers 501 to multipart uploads: keep test objects below the client's part size (64 MiB).
 */
export async function startS3Server(
  dir?: string,
): Promise<{ endpoint: string; accessKey: string; secretKey: string; close(): Promise<void> }> {
  const directory = dir ?? (await mkdtemp(join(tmpdir(), 'loupe-s3rver-')));
  serialiseS3rverWrites();
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
