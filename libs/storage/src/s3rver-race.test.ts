import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openS3BlobStore } from './s3-blob-store';
import { startS3Server } from './testing';

describe('the test S3 server (s3rver) under concurrent writes into one folder', () => {
  it('survives puts racing with deletes that empty the folder', async () => {
    const s3 = await startS3Server();
    try {
      const store = await openS3BlobStore({ endpoint: s3.endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey, bucket: 'race' });
      // Each round empties staging/ (s3rver then removes the folder) while other puts create files in it. Unserialised,
      // a put opened its file in the folder just removed and the unhandled stream error ended the test process.
      for (let round = 0; round < 40; round++) {
        const keys = Array.from({ length: 6 }, (_, i) => `staging/${round}-${i}-${randomBytes(4).toString('hex')}`);
        await Promise.all(keys.slice(0, 3).map((key) => store.put(key, randomBytes(64))));
        await Promise.all([...keys.slice(0, 3).map((key) => store.delete(key)), ...keys.slice(3).map((key) => store.put(key, randomBytes(64)))]);
        for (const key of keys.slice(3)) expect(await store.get(key), key).not.toBeNull();
        await Promise.all(keys.slice(3).map((key) => store.delete(key)));
      }
    } finally {
      await s3.close();
    }
  });
});
