import { inputLabel, ParamError, Params, seconds } from '@loupe/envelope';
import { IngestItem, stagingKey } from '@loupe/jobs';
import type { BlobStore } from '@loupe/storage';
import { performance } from 'node:perf_hooks';
import { DownloadError, DownloadScope, UrlDownloader } from '../inputs/url-fetcher';

/** Specification 8: images or URLs per add/update request. */
export const MAX_IMAGES_PER_REQUEST = 10;
/** Specification 2.3: image_id length. */
export const MAX_IMAGE_ID_LENGTH = 255;
/** Collection paths are keys shown back to users; a bound keeps indexes and messages sane. */
export const MAX_FILEPATH_LENGTH = 1024;

export interface StagedImages {
  items: IngestItem[];
  errors: string[];
  /** Seconds spent downloading URL inputs. */
  timeDownload: number;
}

interface Candidate {
  filepath: string | undefined;
  imageId: string | undefined;
  /** How the input is named in messages when it has no usable filepath. */
  label: string;
  upload?: Buffer;
  url?: string;
}

/**
 * A filepath must be printable text: control characters would corrupt messages, XML and logs (and a NUL byte is
 * refused by Postgres itself).
 */
function checkFilepath(filepath: string): string | null {
  if (filepath.length > MAX_FILEPATH_LENGTH) return `${filepath.slice(0, 60)}…: filepath is longer than ${MAX_FILEPATH_LENGTH} characters.`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(filepath)) return `${JSON.stringify(filepath)}: filepath contains control characters.`;
  return null;
}

/**
 * Refuses a path to look up (get_info, delete, search by filepath…) that add would refuse: it cannot be in a
 * collection, a 100 kB one was echoed whole in "does not exist", and one with a NUL byte made Postgres fail (HTTP 500).
 */
export function refuseBadPath(filepath: string): void {
  const problem = checkFilepath(filepath);
  if (problem) throw new ParamError(problem);
}

/**
 * Reads the four add/update forms of specification 4.12 (one or several uploads, one or several URLs; they may be
 * combined), checks each input, downloads URLs and stages every image in the blob store for the worker. Problems with
 * one input become messages naming it; the others still go ahead.
 */
export class ImageInputs {
  constructor(
    private readonly blobs: BlobStore,
    private readonly downloader: UrlDownloader,
  ) {}

  collect(params: Params): Candidate[] {
    const candidates: Candidate[] = [];
    const single = params.file('image');
    if (single) {
      candidates.push({
        upload: single.data,
        filepath: params.string('filepath') ?? (single.filename || undefined),
        imageId: params.string('image_id'),
        label: inputLabel(single.filename || 'image'),
      });
    }
    const uploads = params.files('images');
    const uploadPaths = params.indexed('filepaths');
    const uploadIds = params.indexed('image_ids');
    uploads.forEach((file, i) => {
      candidates.push({
        upload: file.data,
        filepath: uploadPaths.get(i) || file.filename || undefined,
        imageId: uploadIds.get(i) || undefined,
        label: inputLabel(file.filename || `images[${i}]`),
      });
    });
    const url = params.string('url');
    if (url !== undefined) {
      candidates.push({ url, filepath: single ? undefined : params.string('filepath'), imageId: params.string('image_id'), label: inputLabel(url) });
    }
    // With several uploads, filepaths[n] belong to them; URLs then continue the numbering (images first, then urls).
    const urlOffset = uploads.length;
    params.list('urls').forEach((u, i) => {
      candidates.push({ url: u, filepath: uploadPaths.get(urlOffset + i) || undefined, imageId: uploadIds.get(urlOffset + i) || undefined, label: inputLabel(u) });
    });
    if (candidates.length === 0) {
      throw new ParamError('Please send an image: image, images[n], url or urls[n].');
    }
    if (candidates.length > MAX_IMAGES_PER_REQUEST) {
      throw new ParamError(`At most ${MAX_IMAGES_PER_REQUEST} images or URLs may be sent per request; ${candidates.length} were sent.`);
    }
    return candidates;
  }

  /**
   * `extras` adds service fields to the item of the candidate at a position (uploads first, then URLs, the order of
   * `filepaths[n]`), e.g. the color service's `metadata[n]`.
   */
  async stage(params: Params, scope: DownloadScope, extras?: (position: number) => Partial<IngestItem>): Promise<StagedImages> {
    const candidates = this.collect(params);
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
   * Stages query images (searches and extractions), which need no filepath: `image`, `images[n]`, `url`, `urls[n]`
   * as far as the operation accepts them (`several` false: only the single forms). Each is labelled by its file
   * name or URL for messages.
   */
  async stageQueryImages(
    params: Params,
    options: { several: boolean } & DownloadScope,
  ): Promise<{ images: Array<{ staged_key: string; label: string }>; errors: string[]; timeDownload: number; urls: number }> {
    const single = params.file('image');
    const uploads = [...(single ? [single] : []), ...(options.several ? params.files('images') : [])];
    const urls = [...(params.string('url') !== undefined ? [params.string('url') as string] : []), ...(options.several ? params.list('urls').filter((u) => u !== '') : [])];
    const total = uploads.length + urls.length;
    if (total > MAX_IMAGES_PER_REQUEST) {
      throw new ParamError(`At most ${MAX_IMAGES_PER_REQUEST} images or URLs may be sent per request; ${total} were sent.`);
    }
    const staged = { items: [] as IngestItem[], errors: [] as string[], timeDownload: 0 };
    const sources: Array<{ label: string; data: Buffer | null }> = uploads.map((f, i) => ({ label: inputLabel(f.filename || (i === 0 ? 'image' : `images[${i}]`)), data: f.data }));
    for (const url of urls) sources.push({ label: inputLabel(url), data: await this.downloadInto(url, options, staged) });
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

  private check(candidate: Candidate): string | null {
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
