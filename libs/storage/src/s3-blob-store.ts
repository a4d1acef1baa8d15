import type { Readable } from 'node:stream';
import { Client } from 'minio';
import type { BlobStore, BlobStoreOptions } from './blob-store';
import { assertValidKey, assertValidPrefix } from './blob-key';

const DEFAULT_BUCKET = 'loupe';
/** MinIO's default region; also what AWS uses when a region is not given. */
const DEFAULT_REGION = 'us-east-1';
/** S3 DeleteObjects accepts at most 1000 keys per request. */
const DELETE_BATCH = 1000;
/** S3 error codes meaning the object is not there. */
const MISSING_CODES = new Set(['NoSuchKey', 'NotFound']);

/** Objects in one bucket of an S3-compatible server (MinIO, s3rver, AWS), addressed path-style. */
export async function openS3BlobStore(opts: BlobStoreOptions & { endpoint: string }): Promise<BlobStore> {
  const url = new URL(opts.endpoint);
  const useSSL = url.protocol === 'https:';
  const bucket = opts.bucket ?? DEFAULT_BUCKET;
  const region = opts.region ?? DEFAULT_REGION;
  const client = new Client({
    endPoint: url.hostname,
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey: opts.accessKey,
    secretKey: opts.secretKey,
    region,
    pathStyle: true,
  });
  await ensureBucket(client, bucket, region);

  return {
    kind: 's3',
    async put(key, data, contentType) {
      assertValidKey(key);
      await client.putObject(bucket, key, data, data.length, contentType ? { 'Content-Type': contentType } : {});
    },
    async get(key) {
      assertValidKey(key);
      try {
        return await readAll(await client.getObject(bucket, key));
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async exists(key) {
      assertValidKey(key);
      try {
        await client.statObject(bucket, key);
        return true;
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },
    async delete(key) {
      assertValidKey(key);
      await client.removeObject(bucket, key); // S3 answers 204 for an absent key too
    },
    async deletePrefix(prefix) {
      assertValidPrefix(prefix);
      let deleted = 0;
      let batch: string[] = [];
      const flush = async (): Promise<void> => {
        await removeBatch(client, bucket, batch);
        deleted += batch.length;
        batch = [];
      };
      // ListObjects V1 pages by marker (the last key seen), so deleting behind it is safe. V2 is avoided because
      // s3rver cannot build continuation tokens on Node 20 (DES is gone from OpenSSL 3) and answers 500.
      for await (const item of client.listObjects(bucket, prefix, true)) {
        if (item.name) batch.push(item.name);
        if (batch.length === DELETE_BATCH) await flush();
      }
      if (batch.length > 0) await flush();
      return deleted;
    },
    async *list(prefix) {
      assertValidPrefix(prefix);
      // V1 listing, for the reason given in deletePrefix.
      for await (const item of client.listObjects(bucket, prefix, true)) {
        if (item.name) yield { key: item.name, size: item.size, modifiedAt: item.lastModified };
      }
    },
    async ping() {
      if (!(await client.bucketExists(bucket))) throw new Error(`bucket ${bucket} does not exist`);
    },
  };
}

/** Another process may create the bucket between our check and our create; that is success, not an error. */
async function ensureBucket(client: Client, bucket: string, region: string): Promise<void> {
  if (await client.bucketExists(bucket)) return;
  try {
    await client.makeBucket(bucket, region);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw error;
  }
}

async function removeBatch(client: Client, bucket: string, keys: string[]): Promise<void> {
  const results = await client.removeObjects(bucket, keys);
  const failed = results.find((result) => result?.Error)?.Error;
  if (failed) throw new Error(`deleting ${failed.Key}: ${failed.Code} ${failed.Message}`);
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}

function isMissing(error: unknown): boolean {
  return MISSING_CODES.has((error as { code?: string } | undefined)?.code ?? '');
}
