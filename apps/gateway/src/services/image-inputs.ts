import { inputLabel, seconds } from '@loupe/envelope';
import { Inject, Injectable } from '@nestjs/common';
import { IngestItem, stagingKey } from '@loupe/jobs';
import type { BlobStore } from '@loupe/storage';
import { performance } from 'node:perf_hooks';
import { AddCandidate, checkFilepath, MAX_IMAGE_ID_LENGTH, QueryImages } from '../contracts';
import { DownloadError, DownloadScope, UrlDownloader } from '../inputs/url-fetcher';
import { BLOB_STORE } from './tokens';

export interface StagedImages {
  items: IngestItem[];
  errors: string[];
  /** Seconds spent downloading URL inputs. */
  timeDownload: number;
}

/**
 * Stages the images of an add or update (read by the contract's addInputs) and the query images of extractions:
 * checks each input, downloads URLs and puts every image in the blob store for the worker. Problems with one input
 * become messages naming it; the others still go ahead.
 */
@Injectable()
export class ImageInputs {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(UrlDownloader) private readonly downloader: UrlDownloader,
  ) {}

  /**
   * `extras` adds service fields to the item of the candidate at a position (uploads first, then URLs, the order of
   * `filepaths[n]`), e.g. the color service's `metadata[n]`.
   */
  async stage(candidates: readonly AddCandidate[], scope: DownloadScope, extras?: (position: number) => Partial<IngestItem>): Promise<StagedImages> {
    const staged: StagedImages = { items: [], errors: [], timeDownload: 0 };
    for (const [position, candidate] of candidates.entries()) {
      const problem = this.check(candidate);
      if (problem) {
        staged.errors.push(problem);
        continue;
      }
      const data = candidate.url !== undefined ? await this.downloadInto(candidate.url, scope, staged) : candidate.upload;
      if (data === null) continue;
      if (!data || data.length === 0) {
        staged.errors.push(`${candidate.filepath}: The file is empty.`);
        continue;
      }
      const key = stagingKey();
      await this.blobs.put(key, data);
      staged.items.push({ filepath: candidate.filepath!, image_id: candidate.imageId ?? null, staged_key: key, ...extras?.(position) });
    }
    return staged;
  }

  /**
   * Stages query images (searches and extractions), which need no filepath: uploads first, then URLs. Each is
   * labelled by its file name or URL for messages.
   */
  async stageQueryImages(
    { uploads, urls }: QueryImages,
    scope: DownloadScope,
  ): Promise<{ images: Array<{ staged_key: string; label: string }>; errors: string[]; timeDownload: number; urls: number }> {
    const staged = { items: [] as IngestItem[], errors: [] as string[], timeDownload: 0 };
    const sources: Array<{ label: string; data: Buffer | null }> = uploads.map((f, i) => ({ label: inputLabel(f.filename || (i === 0 ? 'image' : `images[${i}]`)), data: f.data }));
    for (const url of urls) sources.push({ label: inputLabel(url), data: await this.downloadInto(url, scope, staged) });
    const images: Array<{ staged_key: string; label: string }> = [];
    for (const source of sources) {
      if (source.data === null) continue;
      if (source.data.length === 0) {
        staged.errors.push(`${source.label}: The file is empty.`);
        continue;
      }
      const key = stagingKey();
      await this.blobs.put(key, source.data);
      images.push({ staged_key: key, label: source.label });
    }
    return { images, errors: staged.errors, timeDownload: staged.timeDownload, urls: urls.length };
  }

  /** Downloads a URL input; on failure records a message naming the URL and returns null. */
  private async downloadInto(url: string, scope: DownloadScope, staged: Omit<StagedImages, 'items'>): Promise<Buffer | null> {
    const started = performance.now();
    try {
      return await this.downloader.download(url, scope);
    } catch (error) {
      if (!(error instanceof DownloadError)) throw error;
      staged.errors.push(`${inputLabel(url)}: ${error.message}`);
      return null;
    } finally {
      staged.timeDownload += seconds(performance.now() - started);
    }
  }

  /** Removes staged blobs that a job never consumed (the request failed or timed out before the worker ran). */
  async discard(items: readonly Pick<IngestItem, 'staged_key'>[]): Promise<void> {
    await Promise.all(items.map((item) => this.blobs.delete(item.staged_key)));
  }

  private check(candidate: AddCandidate): string | null {
    if (candidate.filepath === undefined) {
      return candidate.url !== undefined
        ? `${candidate.label}: a filepath is required when adding from a URL.`
        : `${candidate.label}: no filepath was given and the upload has no file name.`;
    }
    const pathProblem = checkFilepath(candidate.filepath);
    if (pathProblem) return pathProblem;
    if (candidate.imageId !== undefined && candidate.imageId.length > MAX_IMAGE_ID_LENGTH) {
      return `${candidate.filepath}: image_id is longer than ${MAX_IMAGE_ID_LENGTH} characters.`;
    }
    return null;
  }
}
