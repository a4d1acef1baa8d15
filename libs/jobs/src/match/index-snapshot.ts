import { GlobalHashIndex, InvertedIndex, type SectionReader } from '@loupe/fingerprint';
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * What a snapshot must match to be replayed: the database it was made from, the vocabulary its words come from and
 * the collection. The change log position `seq` says where replaying the log resumes.
 */
export interface SnapshotIdentity {
  databaseIdentity: number;
  vocabularyId: string;
  accountId: number;
  service: string;
  /** The shard set a partitioned collection's owner holds (`0-7`); absent for a whole collection. */
  shards?: string;
}

/** A collection's search structures as of change log position `seq`. */
export interface CollectionState {
  index: InvertedIndex;
  hashes: GlobalHashIndex;
  paths: Map<number, string>;
  seq: number;
}

/**
 * 3: the whole-image signatures carry colour sets (GlobalHashIndex "LGH2"). Files of older layouts (2: postings with
 * term frequencies in their own bytes, "LII2") are reloaded from rows.
 */
const LAYOUT = 3;
/** Paths are written in groups, so that no single buffer of a million paths is built. */
const PATHS_PER_GROUP = 50_000;

/**
 * Snapshots of collection indexes in a local folder (INDEX_SNAPSHOT_DIR): a replica that starts loads a large
 * collection's index from its snapshot and replays only the change log after it, instead of reading and decoding every
 * image's words from the database (minutes at a million images). A file is written beside its final name and renamed,
 * so a reader sees a whole snapshot or the previous one, and several processes may share the folder.
 */
export class IndexSnapshots {
  constructor(private readonly dir: string) {}

  /**
   * The collection's snapshot, or null when there is none, it was made from another database or vocabulary, or it
   * cannot be read (cut short by a full disk, damaged): the caller then loads from the database and writes a new one.
   */
  async read(identity: SnapshotIdentity): Promise<CollectionState | null> {
    try {
      return await this.readFile(identity);
    } catch (error) {
      process.emitWarning(`The index snapshot ${this.fileOf(identity)} cannot be read (${(error as Error).message}); loading the collection from the database instead.`);
      return null;
    }
  }

  private async readFile(identity: SnapshotIdentity): Promise<CollectionState | null> {
    const handle = await open(this.fileOf(identity), 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (!handle) return null;
    try {
      let position = 0;
      // A buffer of its own per read (never Buffer's shared pool): the index keeps it, and typed views start at 0.
      const read: SectionReader = async (byteLength) => {
        const buffer = new Uint8Array(byteLength);
        for (let done = 0; done < byteLength; ) {
          const { bytesRead } = await handle.read(buffer, done, byteLength - done, position + done);
          if (bytesRead === 0) throw new Error('The index snapshot ends early');
          done += bytesRead;
        }
        position += byteLength;
        return buffer;
      };
      const headerLength = new DataView((await read(4)).buffer).getUint32(0, true);
      const header = JSON.parse(Buffer.from((await read(headerLength)).buffer).toString('utf8')) as SnapshotIdentity & { layout: number; seq: number; paths: number };
      if (
        header.layout !== LAYOUT || header.databaseIdentity !== identity.databaseIdentity || header.vocabularyId !== identity.vocabularyId ||
        header.accountId !== identity.accountId || header.service !== identity.service ||
        (header.shards ?? null) !== (identity.shards ?? null)
      ) {
        return null;
      }
      const index = await InvertedIndex.fromSections(read);
      const hashes = await GlobalHashIndex.fromSections(read);
      const paths = new Map<number, string>();
      for (let left = header.paths; left > 0; left -= PATHS_PER_GROUP) {
        const count = Math.min(PATHS_PER_GROUP, left);
        const keys = new Float64Array((await read(count * 8)).buffer);
        const lengths = new Uint32Array((await read(count * 4)).buffer);
        const text = Buffer.from((await read(lengths.reduce((sum, n) => sum + n, 0))).buffer);
        let at = 0;
        keys.forEach((key, i) => {
          paths.set(key, text.toString('utf8', at, at + lengths[i]));
          at += lengths[i];
        });
      }
      return { index, hashes, paths, seq: header.seq };
    } finally {
      await handle.close();
    }
  }

  /** Writes the collection's state as its snapshot, replacing the previous one. */
  async write(identity: SnapshotIdentity, state: CollectionState): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const file = this.fileOf(identity);
    const partial = `${file}.${randomBytes(6).toString('hex')}.partial`;
    const handle = await open(partial, 'w');
    try {
      const write = async (bytes: Uint8Array) => {
        for (let done = 0; done < bytes.byteLength; ) done += (await handle.write(bytes, done, bytes.byteLength - done)).bytesWritten;
      };
      // Every section is taken before the first write, so the file is one state even if the caller changed it meanwhile.
      const indexSections = state.index.toSections();
      const hashSections = state.hashes.toSections().map((section) => section.slice());
      const entries = [...state.paths.entries()];
      const header = Buffer.from(JSON.stringify({ layout: LAYOUT, ...identity, seq: state.seq, paths: entries.length }), 'utf8');
      const headerLength = Buffer.alloc(4);
      headerLength.writeUInt32LE(header.length, 0);
      for (const section of [headerLength, header, ...indexSections, ...hashSections]) await write(section);
      for (let start = 0; start < entries.length; start += PATHS_PER_GROUP) {
        const group = entries.slice(start, start + PATHS_PER_GROUP);
        const texts = group.map(([, filepath]) => Buffer.from(filepath, 'utf8'));
        const keys = Float64Array.from(group, ([key]) => key);
        const lengths = Uint32Array.from(texts, (t) => t.length);
        await write(new Uint8Array(keys.buffer));
        await write(new Uint8Array(lengths.buffer));
        await write(Buffer.concat(texts));
      }
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(partial, { force: true });
      throw error;
    }
    await handle.close();
    await rename(partial, file);
  }

  private fileOf(identity: SnapshotIdentity): string {
    const part = identity.shards === undefined ? '' : `-shards-${identity.shards}`;
    return path.join(this.dir, `collection-${identity.accountId}-${identity.service}${part}.index`);
  }
}
