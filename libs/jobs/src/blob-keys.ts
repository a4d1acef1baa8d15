import { createHash, randomUUID } from 'node:crypto';

/**
 * Blob layout: `collections/<account>/<service>/<sha1(filepath)>/<version>/…`. The version is the staging token of
 * the upload the blobs were made from (`staging/<uuid>` gives `<uuid>`), so it is new for every stored version and a
 * replaced ingest never overwrites blobs that a committed row still points to; and an ingest job that a dead worker
 * left half done writes the same keys again when it is retried, instead of leaving the first attempt's blobs behind
 * with no row pointing to them.
 */
export function collectionBlobPrefix(account: string, service: string, filepath: string, stagedKey: string): string {
  const pathHash = createHash('sha1').update(filepath).digest('hex');
  const version = stagedKey.startsWith(STAGING_PREFIX) ? stagedKey.slice(STAGING_PREFIX.length) : createHash('sha1').update(stagedKey).digest('hex');
  return `${COLLECTIONS_PREFIX}${account}/${service}/${pathHash}/${version}`;
}

/** Every collection image's blobs are below this (see collectionBlobPrefix). */
export const COLLECTIONS_PREFIX = 'collections/';

/**
 * Uploads and downloads wait here between the gateway and their job, which deletes them when it ends (or the gateway
 * does when the call fails). A process killed in between leaves them behind: StagingSweeper removes those by age.
 */
export const STAGING_PREFIX = 'staging/';

export function stagingKey(): string {
  return `${STAGING_PREFIX}${randomUUID()}`;
}
