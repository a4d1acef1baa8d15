import { inputLabel, ParamError, Params, seconds } from '@loupe/envelope';
import { QuerySource, stagingKey } from '@loupe/jobs';
import type { BlobStore } from '@loupe/storage';
import { performance } from 'node:perf_hooks';
import { DownloadError, DownloadScope, UrlDownloader } from '../inputs/url-fetcher';
import { refuseBadPath } from './image-inputs';

export interface StagedQuery {
  source: QuerySource;
  kind: 'upload' | 'url' | 'collection';
  /** Seconds spent downloading a URL query. */
  timeDownload: number;
}

/**
 * Reads one query image given as an upload, a collection path or a URL (exactly one), under names that may carry a
 * suffix (`image1`, `filepath1`, `url1` for compare). Uploads and downloads are staged in the blob store for the worker;
 * a failed download is the caller's error.
 */
export class QueryInputs {
  constructor(
    private readonly blobs: BlobStore,
    private readonly downloader: UrlDownloader,
  ) {}

  async stage(params: Params, suffix: string, scope: DownloadScope): Promise<StagedQuery> {
    const names = { image: `image${suffix}`, filepath: `filepath${suffix}`, url: `url${suffix}` };
    const upload = params.file(names.image);
    const filepath = params.string(names.filepath);
    const url = params.string(names.url);
    const given = [upload && names.image, filepath !== undefined && names.filepath, url !== undefined && names.url].filter(Boolean);
    if (given.length === 0) throw new ParamError(`Please specify a query image: ${names.image}, ${names.filepath} or ${names.url}.`);
    if (given.length > 1) throw new ParamError(`Please specify only one of ${given.join(', ')}.`);
    if (filepath !== undefined) {
      refuseBadPath(filepath);
      return { source: { filepath }, kind: 'collection', timeDownload: 0 };
    }
    if (upload) {
      if (upload.data.length === 0) throw new ParamError(`${inputLabel(upload.filename || names.image)}: The file is empty.`);
      const key = stagingKey();
      await this.blobs.put(key, upload.data);
      return { source: { staged_key: key, label: inputLabel(upload.filename || names.image) }, kind: 'upload', timeDownload: 0 };
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
