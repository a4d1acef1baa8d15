/**
 * A local S3-compatible server (s3rver) for tests and for trying the S3 blob store without MinIO:
 *   npx tsx tools/dev/s3-server.ts [port] [directory]
 * Credentials are S3RVER / S3RVER. It listens on 127.0.0.1 only.
 */
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serialiseS3rverWrites } from '@loupe/storage/src/testing';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver');

const port = Number(process.argv[2] ?? 4568);
const directory = process.argv[3] ?? path.join(os.tmpdir(), `loupe-s3rver-${port}`);
mkdirSync(directory, { recursive: true });
serialiseS3rverWrites();
new S3rver({ port, address: '127.0.0.1', directory, silent: true })
  .run()
  .then(() => console.log(`s3rver listening on http://127.0.0.1:${port} (data in ${directory})`))
  .catch((error: Error) => {
    console.error(`s3rver could not start: ${error.message}`);
    process.exit(1);
  });
