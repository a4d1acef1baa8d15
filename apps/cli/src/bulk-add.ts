import { createProcessors, IngestItem, IngestPayload, IngestResult, JobKind, stagingKey, WineLabelReader } from '@loupe/jobs';
import type { Infrastructure } from '@loupe/runtime';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { CollectionService, INGEST_POLICY } from './ingest-policy';
import type { ProgressCounts } from './progress';

/** Images per ingest job: the add operation's limit (specification 8), so a CLI batch is a gateway add. */
export const BATCH_SIZE = 10;
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
 * fingerprints, hooks and transactions as a gateway add). Resumable: paths already in the collection are skipped,
 * so a second run after an interruption continues where the first stopped.
 */
export async function bulkAdd(
  infra: Infrastructure,
  accountName: string,
  service: CollectionService,
  images: readonly SourceImage[],
  onProgress: (counts: ProgressCounts, failures: string[]) => void = () => undefined,
): Promise<BulkAddResult> {
  const account = await infra.accounts.find(accountName);
  if (!account) throw new Error(`There is no account named "${accountName}".`);
  const ref = { accountId: account.id, service };
  const labelReader = new WineLabelReader();
  const ingest = createProcessors(infra, undefined, labelReader)[JobKind.Ingest];
  const result: BulkAddResult = { done: 0, total: images.length, added: 0, skipped: 0, failed: 0, errors: [] };
  try {
    for (let start = 0; start < images.length; start += BATCH_SIZE) {
      const batch = images.slice(start, start + BATCH_SIZE);
      const present = await infra.images.findByPaths(ref, batch.map((i) => i.filepath));
      const failures: string[] = [];
      const items: IngestItem[] = [];
      for (const image of batch) {
        if (present.has(image.filepath)) {
          result.skipped++;
          continue;
        }
        const data = await readFile(image.file).catch(() => null);
        if (!data || data.length === 0) {
          failures.push(`${image.filepath}: ${data ? 'the file is empty' : `cannot read ${image.file}`}.`);
          continue;
        }
        const key = stagingKey();
        await infra.blobs.put(key, data);
        items.push({ filepath: image.filepath, image_id: image.image_id ?? null, staged_key: key, ...(image.metadata ? { metadata: image.metadata } : {}) });
      }
      if (items.length > 0) {
        const payload: IngestPayload = { account_id: account.id, account: account.name, service, items, ...INGEST_POLICY[service] };
        try {
          const outcome = (await ingest(payload, { kind: JobKind.Ingest, group: account.name, attempt: 1 })) as IngestResult;
          result.added += outcome.added.length;
          failures.push(...outcome.errors);
        } catch (error) {
          await Promise.all(items.map((item) => infra.blobs.delete(item.staged_key)));
          failures.push(...items.map((item) => `${item.filepath}: ${error instanceof Error ? error.message : String(error)}`));
        }
      }
      result.failed += failures.length;
      result.errors.push(...failures);
      result.done += batch.length;
      onProgress({ ...result }, failures);
    }
  } finally {
    await labelReader.close();
  }
  return result;
}
