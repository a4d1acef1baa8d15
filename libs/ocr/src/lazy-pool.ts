import { createOcrPool, OcrPoolClosedError, type OcrPool } from './ocr-pool';

/**
 * An OCR pool started by its first use, so that a process which never reads print never pays the workers' start-up
 * (about 0.5 s each) or memory. One instance is shared by everything in a process that reads (wine labels, the names of
 * aligned designs); `close` ends it with the process's other workers.
 */
export class LazyOcrPool {
  private pool: Promise<OcrPool> | null = null;
  private closed = false;

  /** `size`: tesseract workers, one per core by default (`createOcrPool`). */
  constructor(private readonly size?: number) {}

  get(): Promise<OcrPool> {
    if (this.closed) return Promise.reject(new OcrPoolClosedError());
    if (!this.pool) {
      const starting = createOcrPool({ size: this.size });
      // A failed start is not cached: the next use tries again.
      starting.catch(() => {
        if (this.pool === starting) this.pool = null;
      });
      this.pool = starting;
    }
    return this.pool;
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = null;
    if (pool) await (await pool.catch(() => null))?.close();
  }
}
