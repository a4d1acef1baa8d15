import { createOcrPool, detectLabel, OcrPool, parseWineMetadata, RgbImage } from '@loupe/ocr';
import { Stopwatch } from '../stopwatch';
import type { WineLabelMetadata } from './contracts';

/** What reading one label produced, with the seconds spent finding the label and reading its text. */
export interface LabelReading {
  metadata: WineLabelMetadata;
  /** False when no text at all was read: there is no label to speak of. */
  found: boolean;
  time_detect_label: number;
  time_extract_text: number;
}

export class LabelReaderClosedError extends Error {
  constructor() {
    super('The label reader is closed');
    this.name = 'LabelReaderClosedError';
  }
}

/**
 * Finds the label on a (normalised) photo and reads it: label detection, OCR of the label region (of the whole
 * image when no label stands out, or when the region held no text), then label metadata from the lines.
 * The OCR pool (tesseract.js, offline, one worker per core) starts on the first read, so processes that never
 * read a label never pay its start-up or memory; close() ends it with the processors.
 */
export class WineLabelReader {
  private pool: Promise<OcrPool> | null = null;
  private closed = false;

  constructor(private readonly poolSize?: number) {}

  async read(img: RgbImage): Promise<LabelReading> {
    const detectWatch = new Stopwatch().start();
    const box = detectLabel(img) ?? undefined;
    detectWatch.stop();
    const textWatch = new Stopwatch().start();
    const pool = await this.ocr();
    let lines = await pool.recognize(img, box);
    let labelBox = box;
    if (lines.length === 0 && box) {
      // A bright region without text was taken for the label (a reflection, a price tag): read the whole photo.
      lines = await pool.recognize(img);
      labelBox = undefined;
    }
    const metadata = parseWineMetadata(lines, img, labelBox) as unknown as WineLabelMetadata;
    textWatch.stop();
    return { metadata, found: lines.length > 0, time_detect_label: detectWatch.elapsed, time_extract_text: textWatch.elapsed };
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = null;
    if (pool) await (await pool.catch(() => null))?.close();
  }

  private ocr(): Promise<OcrPool> {
    if (this.closed) return Promise.reject(new LabelReaderClosedError());
    if (!this.pool) {
      const starting = createOcrPool({ size: this.poolSize });
      // A failed start is not cached: the next read tries again.
      starting.catch(() => {
        if (this.pool === starting) this.pool = null;
      });
      this.pool = starting;
    }
    return this.pool;
  }
}
