import { createHash, randomUUID } from 'node:crypto';

/**
 * Blob layout: `collections/<account>/<service>/<sha1(filepath)>/<uuid>/…`. A fresh uuid per stored version means a
 * crashed or replaced ingest never overwrites blobs that a committed row still points to.
 */
export function collectionBlobPrefix(account: string, service: string, filepath: string): string {
  const pathHash = createHash('sha1').update(filepath).digest('hex');
  return `collections/${account}/${service}/${pathHash}/${randomUUID()}`;
}

/**
 * Uploads and downloads wait here between the gateway and their job, which deletes them when it ends (or the gateway
 * does when the call fails). A process killed in between leaves them behind: StagingSweeper removes those by age.
 */
export const STAGING_PREFIX = 'staging/';

export function stagingKey(): string {
  return `${STAGING_PREFIX}${randomUUID()}`;
}
