import { randomBytes } from 'node:crypto';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';

/** Another live process (or this one) already holds the folder. */
export class FolderLockedError extends Error {
  constructor(
    readonly lockPath: string,
    readonly ownerPid: number,
  ) {
    super(`${lockPath} is held by running process ${ownerPid}; PGlite allows one process per data folder`);
    this.name = 'FolderLockedError';
  }
}

export interface FolderLock {
  release(): Promise<void>;
}

/**
 * Each pass takes the lock, refuses, or removes one stale file. Three passes absorb a racer creating or deleting
 * the file between our steps, and bound the loop when something keeps recreating a dead owner's file.
 */
const MAX_ATTEMPTS = 3;

/**
 * A pid lock file. The content is written to a private file first and then hard-linked into place, so the lock
 * appears atomically and complete: a racer never reads a half-written pid and mistakes it for stale.
 */
export async function acquireFolderLock(lockPath: string): Promise<FolderLock> {
  const pid = process.pid;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (await tryCreate(lockPath, pid)) return { release: () => releaseIfOwned(lockPath, pid) };
    const owner = await readOwner(lockPath);
    if (owner === 'absent') continue;
    if (owner !== null && isAlive(owner)) throw new FolderLockedError(lockPath, owner);
    await removeStale(lockPath, owner);
  }
  const owner = await readOwner(lockPath);
  throw new FolderLockedError(lockPath, typeof owner === 'number' ? owner : -1);
}

async function tryCreate(lockPath: string, pid: number): Promise<boolean> {
  const draft = `${lockPath}.${pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(draft, `${pid}\n`);
  try {
    await link(draft, lockPath);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(draft);
  }
}

/**
 * Moves the stale file aside before deleting it, and checks what was moved: if a racer replaced the stale lock
 * with a live one in between, it is put back and the caller is refused.
 */
async function removeStale(lockPath: string, stalePid: number | null): Promise<void> {
  const aside = `${lockPath}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return;
    throw error;
  }
  const moved = await readOwner(aside);
  if (typeof moved === 'number' && moved !== stalePid && isAlive(moved)) {
    await link(aside, lockPath).catch(() => undefined);
    await unlink(aside);
    throw new FolderLockedError(lockPath, moved);
  }
  await unlink(aside);
}

async function releaseIfOwned(lockPath: string, pid: number): Promise<void> {
  if ((await readOwner(lockPath)) === pid) await unlink(lockPath).catch(() => undefined);
}

/** The owner pid; null when the file holds no pid (garbage is treated as stale); 'absent' when there is no file. */
async function readOwner(path: string): Promise<number | null | 'absent'> {
  try {
    const pid = Number.parseInt(await readFile(path, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 'absent';
    throw error;
  }
}

/** Signal 0 only checks existence; EPERM means the process exists but belongs to another user. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
