import type { BlobStore, ImageRepository } from '@loupe/storage';
import type { DeletePayload, DeleteResult } from './contracts';

/** Removes images: rows first (one transaction), blobs after commit, so a crash never leaves a row without its blob. */
export class DeleteService {
  constructor(
    private readonly images: ImageRepository,
    private readonly blobs: BlobStore,
  ) {}

  async delete(payload: DeletePayload): Promise<DeleteResult> {
    const ref = { accountId: payload.account_id, service: payload.service };
    const removed = await this.images.transaction((tx) => this.images.deleteByPaths(ref, payload.filepaths, tx));
    await Promise.all(removed.flatMap((row) => [this.blobs.delete(row.blob_key), this.blobs.delete(row.norm_blob_key)]));
    return { deleted: removed.map((row) => row.filepath) };
  }
}
