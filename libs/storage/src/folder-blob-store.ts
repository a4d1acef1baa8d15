import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, readFile, readdir, rename, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BlobInfo, BlobStore } from './blob-store';
import { assertValidKey, assertValidPrefix } from './blob-key';

/** Errors meaning "no blob under this key" (a missing file, or a path that runs through or onto a folder). */
const ABSENT_CODES = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);

/**
 * Blobs as files under `<dataDir>/blobs/<key>`. Writes go to `<dataDir>/blobs.tmp` and are renamed into place, so
 * a reader (another process sharing the folder) sees the old blob or the new one, never a partial file.
 * The content type is not stored: readers of this platform know what they wrote.
 */
export async function openFolderBlobStore(dataDir: string): Promise<BlobStore> {
  const root = join(dataDir, 'blobs');
  const tmpDir = join(dataDir, 'blobs.tmp');
  await mkdir(root, { recursive: true });
  await mkdir(tmpDir, { recursive: true });
  const pathOf = (key: string): string => {
    assertValidKey(key);
    return join(root, ...key.split('/'));
  };

  return {
    kind: 'folder',
    async put(key, data) {
      const target = pathOf(key);
      const tmp = join(tmpDir, `${process.pid}-${randomBytes(8).toString('hex')}`);
      await writeFile(tmp, data);
      try {
        await moveIntoPlace(tmp, target);
      } catch (error) {
        await unlink(tmp).catch(() => undefined);
        throw error;
      }
    },
    async get(key) {
      try {
        return await readFile(pathOf(key));
      } catch (error) {
        if (isAbsent(error)) return null;
        throw error;
      }
    },
    async exists(key) {
      try {
        return (await stat(pathOf(key))).isFile();
      } catch (error) {
        if (isAbsent(error)) return false;
        throw error;
      }
    },
    async delete(key) {
      await unlinkIfPresent(pathOf(key));
    },
    async deletePrefix(prefix) {
      assertValidPrefix(prefix);
      return deleteMatching(root, folderOf(prefix), prefix);
    },
    async *list(prefix) {
      assertValidPrefix(prefix);
      yield* listMatching(root, folderOf(prefix), prefix);
    },
    async ping() {
      await access(root, constants.R_OK | constants.W_OK);
      await access(tmpDir, constants.R_OK | constants.W_OK);
    },
  };
}

/**
 * deletePrefix prunes folders it empties; if that happens between our mkdir and rename, the rename finds no
 * folder. One retry re-creates it; a second loss in a row would mean a delete loop racing this very key.
 */
async function moveIntoPlace(tmp: string, target: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    await mkdir(dirname(target), { recursive: true });
    try {
      await rename(tmp, target);
      return;
    } catch (error) {
      if (attempt > 0 || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/** The deepest folder every key starting with `prefix` lies below ('' for the root). */
function folderOf(prefix: string): string {
  const slash = prefix.lastIndexOf('/');
  return slash < 0 ? '' : prefix.slice(0, slash);
}

/** Walks the folders below `dirKey` that can hold keys starting with `prefix`, one folder read at a time. */
async function* listMatching(root: string, dirKey: string, prefix: string): AsyncGenerator<BlobInfo> {
  const dirPath = dirKey === '' ? root : join(root, ...dirKey.split('/'));
  let entries;
  try {
    entries = await readdir(dirPath, { withFileTypes: true });
  } catch (error) {
    if (isAbsent(error)) return;
    throw error;
  }
  for (const entry of entries) {
    const key = dirKey === '' ? entry.name : `${dirKey}/${entry.name}`;
    if (entry.isDirectory()) {
      if (`${key}/`.startsWith(prefix) || prefix.startsWith(`${key}/`)) yield* listMatching(root, key, prefix);
    } else if (key.startsWith(prefix)) {
      try {
        const info = await stat(join(dirPath, entry.name));
        yield { key, size: info.size, modifiedAt: info.mtime };
      } catch (error) {
        // Deleted since the folder was read: it is simply not there any more.
        if (!isAbsent(error)) throw error;
      }
    }
  }
}

/** Deletes files whose key starts with `prefix` below folder `dirKey`, then removes folders left empty. */
async function deleteMatching(root: string, dirKey: string, prefix: string): Promise<number> {
  const dirPath = dirKey === '' ? root : join(root, ...dirKey.split('/'));
  let entries;
  try {
    entries = await readdir(dirPath, { withFileTypes: true });
  } catch (error) {
    if (isAbsent(error)) return 0;
    throw error;
  }
  let deleted = 0;
  for (const entry of entries) {
    const key = dirKey === '' ? entry.name : `${dirKey}/${entry.name}`;
    if (entry.isDirectory()) {
      // Descend only where keys below can still match: the folder is inside the prefix or on its path.
      if (`${key}/`.startsWith(prefix) || prefix.startsWith(`${key}/`)) deleted += await deleteMatching(root, key, prefix);
    } else if (key.startsWith(prefix)) {
      if (await unlinkIfPresent(join(dirPath, entry.name))) deleted++;
    }
  }
  if (dirKey !== '') await rmdir(dirPath).catch(() => undefined); // fails harmlessly while not empty
  return deleted;
}

/** False when the file was already gone (another process deleted it first). */
async function unlinkIfPresent(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (error) {
    if (isAbsent(error)) return false;
    throw error;
  }
}

function isAbsent(error: unknown): boolean {
  return ABSENT_CODES.has((error as NodeJS.ErrnoException | undefined)?.code ?? '');
}
