import { createHash, randomUUID } from 'node:crypto';

/**
 * Blob layout: `collections/<account>/<service>/<sha1(filepath)>/<uuid>/…`. A fresh uuid per stored version means a
 * crashed or replaced ingest never overwrites blobs that a committed row still points to.
 */
export function collectionBlobPrefix(account: string, service: string, filepath: string): string {
  const pathHash = createHash('sha1').update(filepath).digest('hex');
  return `collections/${account}/${service}/${pathHash}/${randomUUID()}`;
}

export function stagingKey(): string {
  return `staging/${randomUUID()}`;
}
