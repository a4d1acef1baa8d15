import { open, FileHandle } from 'node:fs/promises';

/** POSIX ustar, the subset export/import needs: regular files with names under 100 bytes. */
const BLOCK = 512;
export const MAX_TAR_NAME_BYTES = 99;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, size: number, mtime: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  if (Buffer.byteLength(name) > MAX_TAR_NAME_BYTES) throw new Error(`tar: name too long: ${name}`);
  block.write(name, 0, 100, 'utf8');
  block.write(octal(0o644, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii');
  block.write(octal(0, 8), 116, 'ascii');
  block.write(octal(size, 12), 124, 'ascii');
  block.write(octal(Math.floor(mtime / 1000), 12), 136, 'ascii');
  block.write('        ', 148, 'ascii');
  block.write('0', 156, 'ascii');
  block.write('ustar\0', 257, 'ascii');
  block.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

/** Writes a tar file entry by entry (the originals are never all in memory). */
export class TarWriter {
  private constructor(private readonly file: FileHandle) {}

  static async create(target: string): Promise<TarWriter> {
    return new TarWriter(await open(target, 'w'));
  }

  async add(name: string, data: Buffer): Promise<void> {
    await this.file.write(header(name, data.length, Date.now()));
    await this.file.write(data);
    const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
    if (pad > 0) await this.file.write(Buffer.alloc(pad));
  }

  async close(): Promise<void> {
    await this.file.write(Buffer.alloc(BLOCK * 2));
    await this.file.close();
  }
}

/** The regular files of a tar archive, name by name. */
export async function* readTar(source: string): AsyncGenerator<{ name: string; data: Buffer }> {
  const file = await open(source, 'r');
  try {
    let position = 0;
    const block = Buffer.alloc(BLOCK);
    for (;;) {
      const { bytesRead } = await file.read(block, 0, BLOCK, position);
      if (bytesRead < BLOCK || block.every((b) => b === 0)) return;
      const field = (start: number, length: number) => block.toString('utf8', start, start + length).replace(/\0.*$/s, '');
      const prefix = field(345, 155);
      const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
      const size = parseInt(field(124, 12).trim() || '0', 8);
      const type = field(156, 1);
      position += BLOCK;
      if (type === '0' || type === '') {
        const data = Buffer.alloc(size);
        await file.read(data, 0, size, position);
        yield { name, data };
      }
      position += Math.ceil(size / BLOCK) * BLOCK;
    }
  } finally {
    await file.close();
  }
}
