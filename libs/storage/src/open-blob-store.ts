import type { BlobStore, BlobStoreOptions } from './blob-store';
import { openFolderBlobStore } from './folder-blob-store';
import { openS3BlobStore } from './s3-blob-store';

/** `endpoint` → S3-compatible server (bucket created when missing); otherwise files under `<dataDir>/blobs`. */
export async function openBlobStore(opts: BlobStoreOptions): Promise<BlobStore> {
  if (opts.endpoint) return openS3BlobStore({ ...opts, endpoint: opts.endpoint });
  if (!opts.dataDir) throw new Error('openBlobStore needs either endpoint (S3) or dataDir (folder)');
  return openFolderBlobStore(opts.dataDir);
}
