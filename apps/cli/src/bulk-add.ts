import { computeThreads, createProcessors, IngestItem, IngestPayload, IngestResult, JobKind, stagingKey } from '@loupe/jobs';
import { LazyOcrPool } from '@loupe/ocr';
import type { Infrastructure } from '@loupe/runtime';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { CollectionService, INGEST_POLICY } from './ingest-policy';
import type { ProgressCounts } from './progress';

/** Images per ingest job: the add operation's limit (docs/protocol.md §4), so a CLI batch is a gateway add. */
export const BATCH_SIZE = 10;
/**
 * Batches staged or being ingested at once. One batch alone leaves threads idle at its end (its last images prepare
 * while the others wait to be committed) and while the next one is read and staged; with two, the next batch's images
 * are prepared while the current one commits. The ingest service still commits one batch after the other.
 */
const BATCHES_IN_FLIGHT = 2;
/** Files a folder walk takes as images (the formats the services accept). */
const IMAGE_EXTENSIONS = /\.(jpe?g|png|webp|avif|gif|bmp|tiff?)$/i;
export const MANIFEST_NAME = 'manifest.jsonl';

/** One image to add: where its bytes are, and what the collection calls it. */
export interface SourceImage {
  file: string;
  filepath: string;
  image_id?: string | null;
  metadata?: Record<string, unknown>;
}

/** A manifest line: `file` (relative to the manifest's folder, or absolute), `filepath` (default: `file`), `image_id`, `metadata`. */
interface ManifestLine {
  file?: unknown;
  filepath?: unknown;
  image_id?: unknown;
  metadata?: unknown;
}

export function parseManifestLines(text: string, baseDir: string): SourceImage[] {
  const images: SourceImage[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    let entry: ManifestLine;
    try {
      entry = JSON.parse(line) as ManifestLine;
    } catch {
      throw new Error(`manifest line ${index + 1}: not JSON.`);
    }
    if (typeof entry.file !== 'string' || entry.file === '') throw new Error(`manifest line ${index + 1}: "file" is missing.`);
    if (entry.filepath !== undefined && typeof entry.filepath !== 'string') throw new Error(`manifest line ${index + 1}: "filepath" must be a string.`);
    if (entry.metadata !== undefined && (typeof entry.metadata !== 'object' || entry.metadata === null || Array.isArray(entry.metadata))) {
      throw new Error(`manifest line ${index + 1}: "metadata" must be an object.`);
    }
    images.push({
      file: path.resolve(baseDir, entry.file),
      filepath: (entry.filepath as string | undefined) ?? entry.file.split(path.sep).join('/'),
      image_id: typeof entry.image_id === 'string' ? entry.image_id : null,
      metadata: entry.metadata as Record<string, unknown> | undefined,
    });
  });
  return images;
}

async function walk(root: string, dir = root): Promise<string[]> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(root, full)));
    else if (entry.isFile() && IMAGE_EXTENSIONS.test(entry.name)) files.push(full);
  }
  return files;
}

/**
 * The images of a source: a `.jsonl` manifest, a folder holding `manifest.jsonl` (an export), or any other folder,
 * whose image files are added under their paths relative to it (`/`-separated, folders kept), in name order.
 */
export async function readSource(source: string): Promise<SourceImage[]> {
  const info = await stat(source).catch(() => null);
  if (!info) throw new Error(`${source}: no such file or folder.`);
  if (info.isFile()) return parseManifestLines(await readFile(source, 'utf8'), path.dirname(path.resolve(source)));
  const manifest = path.join(source, MANIFEST_NAME);
  if (await stat(manifest).then((s) => s.isFile(), () => false)) return parseManifestLines(await readFile(manifest, 'utf8'), path.resolve(source));
  const root = path.resolve(source);
  return (await walk(root)).map((file) => ({ file, filepath: path.relative(root, file).split(path.sep).join('/') }));
}

export interface BulkAddResult extends ProgressCounts {
  errors: string[];
}

/**
 * Adds images to a collection in batches of 10 through the ingest processor the workers run (same normalisation,
 * fingerprints, hooks and transactions as a gateway add), on every core: images are prepared on compute threads and
 * the next batch is staged and prepared while the current one commits (commits stay one at a time, in order).
 * Resumable: paths already in the collection are skipped, so a second run after an interruption continues where the
 * first stopped.
 */
export async function bulkAdd(
  infra: Infrastructure,
  accountName: string,
  service: CollectionService,
  images: readonly SourceImage[],
  onProgress: (counts: ProgressCounts, failures: string[]) => void = () => undefined,
  /** Compute threads (COMPUTE_THREADS); `computeThreads`' default when undefined. */
  threads?: number,
): Promise<BulkAddResult> {
  const account = await infra.accounts.find(accountName);
  if (!account) throw new Error(`There is no account named "${accountName}".`);
  const ref = { accountId: account.id, service };
  const ocr = new LazyOcrPool();
  const compute = computeThreads(threads);
  const ingest = createProcessors(infra, compute, ocr)[JobKind.Ingest];
  const result: BulkAddResult = { done: 0, total: images.length, added: 0, skipped: 0, failed: 0, errors: [] };

  /**
   * Stages a batch's new images and ingests them, calling the processor only after the previous batch called it: the
   * ingest service commits calls of one account in call order, so batches commit in source order. Resolves with what
   * to report (a failed ingest is reported per image).
   */
  const runBatch = async (batch: readonly SourceImage[], previousCalled: Promise<void>, called: () => void) => {
    const report = { size: batch.length, added: 0, skipped: 0, failures: [] as string[] };
    try {
      const present = await infra.images.findByPaths(ref, batch.map((i) => i.filepath));
      const items: IngestItem[] = [];
      for (const image of batch) {
        if (present.has(image.filepath)) {
          report.skipped++;
          continue;
        }
        const data = await readFile(image.file).catch(() => null);
        if (!data || data.length === 0) {
          report.failures.push(`${image.filepath}: ${data ? 'the file is empty' : `cannot read ${image.file}`}.`);
          continue;
        }
        const key = stagingKey();
        await infra.blobs.put(key, data);
        items.push({ filepath: image.filepath, image_id: image.image_id ?? null, staged_key: key, ...(image.metadata ? { metadata: image.metadata } : {}) });
      }
      await previousCalled;
      if (items.length === 0) return report;
      const payload: IngestPayload = { account_id: account.id, account: account.name, service, items, ...INGEST_POLICY[service] };
      const ingesting = ingest(payload, { kind: JobKind.Ingest, group: account.name, attempt: 1 }) as Promise<IngestResult>;
      called();
      try {
        const outcome = await ingesting;
        report.added += outcome.added.length;
        report.failures.push(...outcome.errors);
      } catch (error) {
        await Promise.all(items.map((item) => infra.blobs.delete(item.staged_key)));
        report.failures.push(...items.map((item) => `${item.filepath}: ${error instanceof Error ? error.message : String(error)}`));
      }
      return report;
    } finally {
      called();
    }
  };

  const inFlight: Array<{ paths: Set<string>; report: ReturnType<typeof runBatch> }> = [];
  let lastCalled: Promise<void> = Promise.resolve();
  const finishOldest = async () => {
    const report = await inFlight.shift()!.report;
    result.added += report.added;
    result.skipped += report.skipped;
    result.failed += report.failures.length;
    result.errors.push(...report.failures);
    result.done += report.size;
    onProgress({ ...result }, report.failures);
  };
  try {
    for (let start = 0; start < images.length; start += BATCH_SIZE) {
      const batch = images.slice(start, start + BATCH_SIZE);
      // A path repeated from a batch still in flight is looked up only once that batch is done, so it is skipped as
      // present (or tried again if that batch failed it), as one batch after another would.
      while (inFlight.length >= BATCHES_IN_FLIGHT || (inFlight.length > 0 && batch.some((i) => inFlight.some((f) => f.paths.has(i.filepath))))) {
        await finishOldest();
      }
      let called!: () => void;
      const previousCalled = lastCalled;
      lastCalled = new Promise<void>((resolve) => (called = resolve));
      inFlight.push({ paths: new Set(batch.map((i) => i.filepath)), report: runBatch(batch, previousCalled, called) });
    }
    while (inFlight.length > 0) await finishOldest();
  } finally {
    // A batch still running when another failed (the database went away) must end before the threads close.
    await Promise.allSettled(inFlight.map((f) => f.report));
    await Promise.all([ocr.close(), compute.close()]);
  }
  return result;
}
