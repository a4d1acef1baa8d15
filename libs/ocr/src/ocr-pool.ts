import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { createWorker, OEM, type Worker, type Page } from 'tesseract.js';
import { DEFAULT_PREPARE, prepareForOcr, type PrepareOptions } from './ocr-prepare';
import type { OcrLine, PixelBox, RgbImage } from './types';

export interface OcrPool {
  /** Lines of text in the image (or in region of it), boxes in the image's pixels, top to bottom. */
  recognize(img: RgbImage, region?: PixelBox): Promise<OcrLine[]>;
  close(): Promise<void>;
  readonly size: number;
}

export interface OcrPoolOptions {
  /** Number of tesseract workers; default: number of CPU cores. */
  size?: number;
  /** Pre-processing before tesseract; default DEFAULT_PREPARE. */
  prepare?: PrepareOptions;
}

export class OcrPoolClosedError extends Error {
  constructor() {
    super('OCR pool is closed');
    this.name = 'OcrPoolClosedError';
  }
}

/** The English LSTM model shipped in @tesseract.js-data/eng: no network, no cache file in the working directory. */
function langPath(): string {
  return join(dirname(require.resolve('@tesseract.js-data/eng')), '4.0.0_best_int');
}

/** Label print photographed at the spec's preferred 1000 px is in the range tesseract is tuned for at 300 dpi. */
const ASSUMED_DPI = 300;

/** Tesseract reports words with no letters or digits for specks and rules of the label's frame. */
const HAS_TEXT = /[\p{L}\p{N}]/u;

function toLines(page: Page, toOriginal: (b: PixelBox) => PixelBox): OcrLine[] {
  const lines: OcrLine[] = [];
  for (const block of page.blocks ?? []) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        const words = line.words
          .filter((w) => HAS_TEXT.test(w.text))
          .map((w) => ({ text: w.text, confidence: w.confidence, box: toOriginal(w.bbox) }));
        if (words.length === 0) continue;
        lines.push({
          text: words.map((w) => w.text).join(' '),
          confidence: line.confidence,
          box: toOriginal(line.bbox),
          words,
        });
      }
    }
  }
  return lines.sort((a, b) => a.box.y0 - b.box.y0 || a.box.x0 - b.box.x0);
}

/**
 * A fixed set of tesseract.js workers; recognize() waits for a free one, so callers may fire many at once.
 * Start-up costs ~0.5 s per worker; workers are started in parallel.
 */
export async function createOcrPool(opts: OcrPoolOptions = {}): Promise<OcrPool> {
  const size = Math.max(1, opts.size ?? cpus().length);
  const prepare = opts.prepare ?? DEFAULT_PREPARE;
  const workers = await Promise.all(
    Array.from({ length: size }, () =>
      createWorker('eng', OEM.LSTM_ONLY, { langPath: langPath(), gzip: true, cacheMethod: 'none' }),
    ),
  );
  // The PNGs carry no resolution; without this tesseract warns and guesses 70 dpi for every image.
  await Promise.all(workers.map((w) => w.setParameters({ user_defined_dpi: String(ASSUMED_DPI) })));
  const idle: Worker[] = [...workers];
  const waiting: ((w: Worker) => void)[] = [];
  let closed = false;

  const acquire = (): Promise<Worker> => {
    const w = idle.pop();
    return w ? Promise.resolve(w) : new Promise((resolve) => waiting.push(resolve));
  };
  const release = (w: Worker): void => {
    const next = waiting.shift();
    if (next) next(w);
    else idle.push(w);
  };

  return {
    size,
    async recognize(img, region) {
      if (closed) throw new OcrPoolClosedError();
      const prepared = prepareForOcr(img, region, prepare);
      const { grey } = prepared;
      if (grey.width === 0 || grey.height === 0) return [];
      const png = await sharp(Buffer.from(grey.data.buffer, grey.data.byteOffset, grey.data.length), {
        raw: { width: grey.width, height: grey.height, channels: 1 },
      })
        .png({ compressionLevel: 1 })
        .toBuffer();
      const worker = await acquire();
      try {
        if (closed) throw new OcrPoolClosedError();
        const { data } = await worker.recognize(png, {}, { blocks: true, text: false });
        return toLines(data, prepared.toOriginal);
      } finally {
        release(worker);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
