import { AuthError } from '@loupe/envelope';
import type { BlobStore, ImageRepository } from '@loupe/storage';
import type { IncomingMessage } from 'node:http';
import { AuthThrottledError, type BasicAuthService } from '../http/basic-auth.service';
import { SERVICE_NAMES, ServiceName } from '../services/operation';

export interface ImageAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

const TEXT = { 'content-type': 'text/plain; charset=utf-8' };

/**
 * Read-only access to the normalised copy of a collection image (`GET /<service>/<account>/rest/image/<filepath>`),
 * for the web console: the copy the index works on, so `target_match_rect` can be drawn on it as it is. Same Basic
 * auth as every operation; an unknown service, path or image is a 404 that says nothing about other accounts.
 */
export class CollectionImages {
  constructor(
    private readonly auth: BasicAuthService,
    private readonly images: ImageRepository,
    private readonly blobs: BlobStore,
  ) {}

  async normalized(req: IncomingMessage, service: string, accountName: string, filepath: string): Promise<ImageAnswer> {
    if (!(SERVICE_NAMES as readonly string[]).includes(service)) return { status: 404, headers: TEXT, body: `There is no service named "${service}".` };
    try {
      const account = await this.auth.authenticate(accountName, req);
      const row = (await this.images.findByPaths({ accountId: account.id, service: service as ServiceName }, [filepath])).get(filepath);
      const data = row ? await this.blobs.get(row.norm_blob_key) : null;
      if (!data) return { status: 404, headers: TEXT, body: `${filepath}: This file does not exist in the image collection.` };
      return { status: 200, headers: { 'content-type': 'image/jpeg', 'cache-control': 'private, no-cache' }, body: data };
    } catch (error) {
      if (error instanceof AuthThrottledError) return { status: 429, headers: { ...TEXT, 'retry-after': String(error.retryAfterSeconds) }, body: error.message };
      if (error instanceof AuthError) return { status: 401, headers: { ...TEXT, 'www-authenticate': 'Basic realm="Loupe", charset="UTF-8"' }, body: error.message };
      throw error;
    }
  }
}
