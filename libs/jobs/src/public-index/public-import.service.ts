import { runInThisThread, TaskRunner } from '@loupe/fingerprint';
import { encodeWords, type BlobStore, type PublicIndexRepository } from '@loupe/storage';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { matchVocabulary } from '../match/vocabulary';
import type { ManifestEntry } from './manifest';
import { preparePublicEntryTask } from './public-image';
/** A manifest entry's bytes may not exceed this (a public-index image is a web image, not a print scan). */
const MAX_IMAGE_BYTES = 25 * 1024 * 1024;
/** Time limit of one image download during an import. */
const DOWNLOAD_TIMEOUT_MS = 20_000;

export type ImportOutcome = 'added' | 'backlink' | 'skipped' | 'failed';

export interface ImportReport {
  outcome: ImportOutcome;
  message?: string;
}

/** Identity of a manifest entry for resumption: the same image source found on the same page. */
export function entryKey(entry: Pick<ManifestEntry, 'source' | 'image_url' | 'backlink'>): Buffer {
  return createHash('sha1').update(`${entry.image_url}\n${entry.backlink}\n${entry.source}`).digest();
}

/** Reads an entry's bytes from disk or over http(s), bounded in time and size. */
export async function readSource(source: string): Promise<Buffer> {
  if (!/^https?:\/\//i.test(source)) return readFile(source);
  const res = await fetch(source, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS), redirect: 'follow' });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > MAX_IMAGE_BYTES) throw new Error('larger than 25 MB');
  const data = Buffer.from(await res.arrayBuffer());
  if (data.length > MAX_IMAGE_BYTES) throw new Error('larger than 25 MB');
  return data;
}

/**
 * Adds manifest entries to the public index. Idempotent: identical bytes are one image (content hash), a backlink is
 * stored once, and every finished entry is recorded, so re-running a manifest skips what is done (resumable).
 */
export class PublicImportService {
  constructor(
    private readonly repo: PublicIndexRepository,
    private readonly blobs: BlobStore,
    private readonly read: (source: string) => Promise<Buffer> = readSource,
    /** Where images are prepared: the CLI passes its compute threads, so an import with concurrency ≥ threads uses every core. */
    private readonly run: TaskRunner = runInThisThread,
  ) {}

  /** Which of these entries are already imported (hex entry keys), for a batch skip without reading any image. */
  async done(entries: readonly ManifestEntry[]): Promise<Set<string>> {
    return this.repo.importedEntries(entries.map(entryKey));
  }

  async importEntry(entry: ManifestEntry): Promise<ImportReport> {
    const key = entryKey(entry);
    const backlink = { image_url: entry.image_url, backlink: entry.backlink, domain: entry.domain, crawl_date: entry.crawl_date };
    let data: Buffer;
    try {
      data = await this.read(entry.source);
    } catch (error) {
      // Not marked done: a failed download is worth retrying on the next run.
      return { outcome: 'failed', message: `${entry.source}: could not be read (${(error as Error).message}).` };
    }
    const contentHash = createHash('sha256').update(data).digest();
    const existing = await this.repo.imageIdByHash(contentHash);
    if (existing !== null) {
      await this.repo.addBacklink(existing, backlink, key);
      return { outcome: 'backlink' };
    }
    const image = await this.run(preparePublicEntryTask, { data, label: entry.source });
    if ('refused' in image) {
      // The bytes will not change on a retry: record the entry so a resume does not fingerprint it again.
      await this.repo.markEntry(key);
      return { outcome: 'failed', message: image.refused };
    }
    const normBlobKey = `public-index/${contentHash.toString('hex')}/normalized.jpg`;
    await this.blobs.put(normBlobKey, Buffer.from(image.jpeg.buffer, image.jpeg.byteOffset, image.jpeg.byteLength), 'image/jpeg');
    const { created } = await this.repo.insertImage(
      {
        content_hash: contentHash,
        format: image.info.format,
        width: image.info.width,
        height: image.info.height,
        filesize: data.length,
        norm_width: image.norm.width,
        norm_height: image.norm.height,
        norm_blob_key: normBlobKey,
        feature_count: image.featureCount,
        features: Buffer.from(image.features.buffer, image.features.byteOffset, image.features.byteLength),
        vocabulary: matchVocabulary().id,
        words: encodeWords(image.words),
      },
      backlink,
      key,
    );
    return { outcome: created ? 'added' : 'backlink' };
  }
}
