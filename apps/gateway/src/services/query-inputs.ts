import { inputLabel, ParamError, seconds } from '@loupe/envelope';
import { Inject, Injectable } from '@nestjs/common';
import { QuerySource, stagingKey } from '@loupe/jobs';
import type { BlobStore } from '@loupe/storage';
import { performance } from 'node:perf_hooks';
import { DownloadError, DownloadScope, UrlDownloader } from '../inputs/url-fetcher';
import type { QueryImage } from '../contracts';
import { BLOB_STORE } from './tokens';

export interface StagedQuery {
  source: QuerySource;
  kind: 'upload' | 'url' | 'collection';
  /** Seconds spent downloading a URL query. */
  timeDownload: number;
}

/**
 * Stages one query image given as an upload, a collection path or a URL (read by the contract's queryImage, under
 * names that may carry a suffix: `image1` for compare). Uploads and downloads are staged in the blob store for the
 * worker; a failed download is the caller's error.
 */
@Injectable()
export class QueryInputs {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(UrlDownloader) private readonly downloader: UrlDownloader,
  ) {}

  async stage({ upload, filepath, url }: QueryImage, suffix: string, scope: DownloadScope): Promise<StagedQuery> {
    if (filepath !== undefined) return { source: { filepath }, kind: 'collection', timeDownload: 0 };
    if (upload) {
      const name = `image${suffix}`;
      if (upload.data.length === 0) throw new ParamError(`${inputLabel(upload.filename || name)}: The file is empty.`);
      const key = stagingKey();
      await this.blobs.put(key, upload.data);
      return { source: { staged_key: key, label: inputLabel(upload.filename || name) }, kind: 'upload', timeDownload: 0 };
    }
    const started = performance.now();
    let data: Buffer;
    try {
      data = await this.downloader.download(url!, scope);
    } catch (error) {
      if (error instanceof DownloadError) throw new ParamError(`${inputLabel(url!)}: ${error.message}`);
      throw error;
    }
    const key = stagingKey();
    await this.blobs.put(key, data);
    return { source: { staged_key: key, label: inputLabel(url!) }, kind: 'url', timeDownload: seconds(performance.now() - started) };
  }

  async discard(staged: StagedQuery | undefined): Promise<void> {
    if (staged && 'staged_key' in staged.source) await this.blobs.delete(staged.source.staged_key);
  }
}
