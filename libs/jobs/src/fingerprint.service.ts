import { extractFeatures, fingerprintHealth, serializeFeatures } from '@loupe/fingerprint';
import { assessImage, decodeToRgb, grayImageOf, ImageFormat } from '@loupe/imaging';
import type { BlobStore, ImageRepository } from '@loupe/storage';
import { FingerprintPayload, FingerprintResult } from './contracts';
import type { SearchIndexHook } from './match/search-index.hook';

/**
 * Recomputes the features of stored images from their normalised copies: run after the feature extractor or the
 * image checks change, or to repair a collection. On the matching services the visual words and whole-image hash follow
 * in the same transaction, and every worker's cached index picks them up. Images still refused as too small or of a
 * single colour stay (or become) unsearchable.
 */
export class FingerprintService {
  constructor(
    private readonly images: ImageRepository,
    private readonly blobs: BlobStore,
    /** The search index a service's images are in (matching services), which must follow their new features. */
    private readonly searchIndexOf: (service: string) => SearchIndexHook | null = () => null,
  ) {}

  async refingerprint(payload: FingerprintPayload): Promise<FingerprintResult> {
    const ref = { accountId: payload.account_id, service: payload.service };
    const paths = payload.filepaths ?? (await this.images.listPaths(ref, 0, 0));
    const rows = await this.images.findByPaths(ref, paths);
    const searchIndex = this.searchIndexOf(payload.service);
    const result: FingerprintResult = { updated: 0, failed: [] };
    for (const path of paths) {
      const row = rows.get(path);
      if (!row) {
        result.failed.push(`${path}: This file does not exist in the image collection.`);
        continue;
      }
      const data = await this.blobs.get(row.norm_blob_key);
      if (data === null) {
        result.failed.push(`${path}: The stored image is missing from the blob store.`);
        continue;
      }
      const rgb = await decodeToRgb(data);
      const gray = grayImageOf(rgb);
      const assessment = assessImage(rgb, { format: row.format as ImageFormat, width: row.width, height: row.height });
      const features = assessment.reason === null ? await extractFeatures(gray) : null;
      await this.images.transaction(async (tx) => {
        await this.images.replaceFeatures(
          row.id,
          {
            count: features?.count ?? 0,
            data: features ? serializeFeatures(features) : Buffer.alloc(0),
            health: features ? fingerprintHealth(features) : 0,
            searchable: features !== null,
            reason: assessment.reason,
          },
          tx,
        );
        await searchIndex?.reindex(tx, row.id, features, rgb, gray);
      });
      result.updated += 1;
    }
    return result;
  }
}
