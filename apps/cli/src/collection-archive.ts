import type { Infrastructure } from '@loupe/runtime';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bulkAdd, BulkAddResult, MANIFEST_NAME, readSource } from './bulk-add';
import type { CollectionService } from './ingest-policy';
import type { ProgressCounts } from './progress';
import { MAX_TAR_NAME_BYTES, readTar, TarWriter } from './tar';

/** Rows read per round trip while exporting. */
const EXPORT_PAGE = 200;
const ORIGINALS_DIR = 'images';

/**
 * Where an original goes in an export: under its own filepath when that is a plain relative path short enough for a
 * tar name, else under a hash of it (the manifest keeps the real filepath either way).
 */
export function archiveName(filepath: string, format: string): string {
  const plain = `${ORIGINALS_DIR}/${filepath}`;
  // Control characters (\0-\x1f) in a name are exactly what this refuses.
  // eslint-disable-next-line no-control-regex
  const safe = filepath.split('/').every((s) => s !== '' && s !== '.' && s !== '..' && !/[\\\0-\x1f]/.test(s)) && Buffer.byteLength(plain) <= MAX_TAR_NAME_BYTES;
  return safe ? plain : `${ORIGINALS_DIR}/_/${createHash('sha1').update(filepath).digest('hex')}.${format || 'bin'}`;
}

interface Sink {
  put(name: string, data: Buffer): Promise<void>;
  close(): Promise<void>;
}

async function folderSink(root: string): Promise<Sink> {
  await mkdir(root, { recursive: true });
  return {
    put: async (name, data) => {
      const target = path.join(root, ...name.split('/'));
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, data);
    },
    close: async () => undefined,
  };
}

/**
 * Writes a collection's originals and `manifest.jsonl` (one line per image: file, filepath, image_id, metadata) to a
 * folder, or to a tar file when the target ends in `.tar`. The manifest is the `add` manifest format, so `import`
 * (or `add` on the folder) restores the collection.
 */
export async function exportCollection(
  infra: Infrastructure,
  accountName: string,
  service: CollectionService,
  target: string,
  onProgress: (done: number, total: number) => void = () => undefined,
): Promise<{ exported: number; missing: string[] }> {
  const account = await infra.accounts.find(accountName);
  if (!account) throw new Error(`There is no account named "${accountName}".`);
  const ref = { accountId: account.id, service };
  const total = await infra.images.count(ref);
  const sink: Sink = target.endsWith('.tar') ? await TarWriter.create(target).then((w) => ({ put: (n, d) => w.add(n, d), close: () => w.close() })) : await folderSink(target);
  const lines: string[] = [];
  const missing: string[] = [];
  try {
    for (let offset = 0; ; offset += EXPORT_PAGE) {
      const paths = await infra.images.listPaths(ref, offset, EXPORT_PAGE);
      if (paths.length === 0) break;
      const rows = await infra.images.findByPaths(ref, paths);
      for (const filepath of paths) {
        const row = rows.get(filepath);
        const data = row ? await infra.blobs.get(row.blob_key) : null;
        if (!row || !data) {
          missing.push(filepath);
          continue;
        }
        const name = archiveName(filepath, row.format);
        await sink.put(name, data);
        const metadata = row.metadata && Object.keys(row.metadata).length > 0 ? { metadata: row.metadata } : {};
        lines.push(JSON.stringify({ file: name, filepath, image_id: row.image_id, ...metadata }));
      }
      onProgress(Math.min(offset + paths.length, total), total);
    }
    await sink.put(MANIFEST_NAME, Buffer.from(lines.length > 0 ? `${lines.join('\n')}\n` : ''));
  } finally {
    await sink.close();
  }
  return { exported: lines.length, missing };
}

/**
 * Adds the images of an export (a folder with `manifest.jsonl`, or a `.tar` of one) to a collection, resumably,
 * through the same batches as `add`.
 */
export async function importCollection(
  infra: Infrastructure,
  accountName: string,
  service: CollectionService,
  source: string,
  onProgress?: (counts: ProgressCounts, failures: string[]) => void,
  threads?: number,
): Promise<BulkAddResult> {
  if (!source.endsWith('.tar')) return bulkAdd(infra, accountName, service, await readSourceExport(source), onProgress, threads);
  const folder = await mkdtemp(path.join(os.tmpdir(), 'loupe-import-'));
  try {
    const sink = await folderSink(folder);
    for await (const entry of readTar(source)) {
      // Only names an export writes; nothing may land outside the temporary folder.
      if (entry.name.split('/').some((s) => s === '..' || s === '') || path.isAbsolute(entry.name)) continue;
      await sink.put(entry.name, entry.data);
    }
    return await bulkAdd(infra, accountName, service, await readSourceExport(folder), onProgress, threads);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

async function readSourceExport(folder: string) {
  const manifest = path.join(folder, MANIFEST_NAME);
  if (!(await stat(manifest).then((s) => s.isFile(), () => false))) {
    throw new Error(`${folder}: there is no ${MANIFEST_NAME}; import reads what export writes (add takes a plain folder).`);
  }
  return readSource(manifest);
}
