import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { createWorker, OEM, type Worker, type Page } from 'tesseract.js';
import { intersectionArea, unionBox } from './box';
import type { Cylinder } from './cylinder';
import type { GrayImage } from './grey';
import { DEFAULT_PREPARE, prepareForOcr, type PrepareOptions } from './ocr-prepare';
import { bandMosaic, findTextBands, mosaicToSource, type TextBand } from './text-bands';
import { traced, type StageTrace } from './trace';
import type { OcrLine, PixelBox, RgbImage } from './types';

export interface RecognizeOptions {
  /** Reports each stage's time (profiling). */
  trace?: StageTrace;
  /**
   * Whether the first reading's lines (boxes in the image's pixels) already give the caller what it reads for: then
   * the bands it missed are not read again. Without it every missed band is read.
   */
  firstReadingSuffices?: (lines: OcrLine[]) => boolean;
  /** The cylinder the region is wrapped round (labelCylinder): the region is laid flat before it is read. */
  cylinder?: Cylinder | null;
}

export interface OcrPool {
  /** Lines of text in the image (or in region of it), boxes in the image's pixels, top to bottom. */
  recognize(img: RgbImage, region?: PixelBox, options?: RecognizeOptions): Promise<OcrLine[]>;
  /** Bands of print of a grey image read together (`bandMosaic`, one reading): each band's lines, in the image's pixels. */
  readBands(grey: GrayImage, bands: TextBand[]): Promise<OcrLine[][]>;
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

/**
 * A grey image as binary PGM: tesseract's image reader (leptonica) takes it as it is, where a PNG costs an encode
 * here and a decode in the worker (9-12 ms a reading of a label at 1000 px).
 */
function toPgm(grey: GrayImage): Buffer {
  const header = Buffer.from(`P5\n${grey.width} ${grey.height}\n255\n`, 'latin1');
  return Buffer.concat([header, Buffer.from(grey.data.buffer, grey.data.byteOffset, grey.data.length)]);
}

/**
 * Label print photographed at the wine service's preferred 1000 px (docs/protocol.md §9) is in the range tesseract
 * is tuned for at 300 dpi.
 */
const ASSUMED_DPI = 300;

/** Tesseract reports words with no letters or digits for specks and rules of the label's frame. */
const HAS_TEXT = /[\p{L}\p{N}]/u;

/**
 * Lines of a tesseract page; `map` takes its boxes to the caller's pixels (null: the word is dropped), and words
 * under minConfidence are dropped too.
 */
function toLines(page: Page, map: (b: PixelBox) => PixelBox | null, minConfidence = 0): OcrLine[] {
  const lines: OcrLine[] = [];
  for (const block of page.blocks ?? []) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        const words = line.words
          .filter((w) => HAS_TEXT.test(w.text) && w.confidence >= minConfidence)
          .flatMap((w) => {
            const box = map(w.bbox);
            return box ? [{ text: w.text, confidence: w.confidence, box }] : [];
          });
        if (words.length === 0) continue;
        lines.push({
          text: words.map((w) => w.text).join(' '),
          confidence: line.confidence,
          box: unionBox(words.map((w) => w.box)),
          words,
        });
      }
    }
  }
  return lines;
}

/**
 * Bands also catch a bottle's edge or a speck beside the print, which come back as unsure letters ("Hl", "IR"):
 * on dark labels photographed on bottles such words read at 0-36 (a few at 54-61), the print beside them at 90-96.
 */
const MIN_BAND_WORD_CONFIDENCE = 40;

/** A first-pass line stands for a band when it read real text (this confident, this many characters)... */
const COVER_CONFIDENCE = 70;
const COVER_MIN_CHARS = 3;
/** ...spans most of the band's height... */
const COVER_HEIGHT_SHARE = 0.6;
/** ...and reaches its ink at both ends, within this share of the band's height (a lost first capital is not). */
const COVER_END_SLACK = 0.5;

function covers(line: OcrLine, band: TextBand): boolean {
  const b = band.box;
  const h = b.y1 - b.y0;
  const overlap = Math.min(line.box.y1, b.y1) - Math.max(line.box.y0, b.y0);
  return (
    line.confidence >= COVER_CONFIDENCE &&
    line.text.replace(/[^\p{L}\p{N}]/gu, '').length >= COVER_MIN_CHARS &&
    overlap >= COVER_HEIGHT_SHARE * h &&
    line.box.y1 - line.box.y0 >= COVER_HEIGHT_SHARE * h &&
    line.box.x0 <= b.x0 + COVER_END_SLACK * h &&
    line.box.x1 >= b.x1 - COVER_END_SLACK * h
  );
}

/** Letters and digits read, each weighted by the confidence of its word. */
function weight(lines: OcrLine[]): number {
  return lines.reduce((sum, l) => sum + l.words.reduce((s, w) => s + (w.text.replace(/[^\p{L}\p{N}]/gu, '').length * w.confidence) / 100, 0), 0);
}

/** Lines the first reading found, from this many on, show where the print is; the bands are looked for there. */
const MIN_LINES_FOR_COLUMNS = 2;
/** Missed lines may be wider than the ones read: this share of the image's width is added on each side. */
const COLUMN_MARGIN_SHARE = 0.1;

function printColumns(lines: OcrLine[], width: number): { x0: number; x1: number } | undefined {
  const sure = lines.filter((l) => l.confidence >= COVER_CONFIDENCE);
  if (sure.length < MIN_LINES_FOR_COLUMNS) return undefined;
  const extent = unionBox(sure.map((l) => l.box));
  return { x0: extent.x0 - COLUMN_MARGIN_SHARE * width, x1: extent.x1 + COLUMN_MARGIN_SHARE * width };
}

/** A first-pass line is replaced by a band's second reading when most of it lies in that band. */
function within(line: OcrLine, band: TextBand): boolean {
  const overlap = Math.min(line.box.y1, band.box.y1) - Math.max(line.box.y0, band.box.y0);
  return overlap >= 0.5 * (line.box.y1 - line.box.y0);
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

  const read = async (grey: GrayImage, trace: StageTrace | undefined, stage: string): Promise<Page> => {
    const pgm = toPgm(grey);
    const worker = await acquire();
    try {
      if (closed) throw new OcrPoolClosedError();
      return await traced(trace, `${stage}: tesseract`, async () => (await worker.recognize(pgm, {}, { blocks: true, text: false })).data);
    } finally {
      release(worker);
    }
  };

  return {
    size,
    async recognize(img, region, options = {}) {
      const { trace } = options;
      if (closed) throw new OcrPoolClosedError();
      const prepared = await traced(trace, 'prepare', () => prepareForOcr(img, region, prepare, options.cylinder));
      const { grey } = prepared;
      if (grey.width === 0 || grey.height === 0) return [];
      const first = toLines(await read(grey, trace, 'first reading'), (b) => b);
      const inOriginal = (found: OcrLine[]) =>
        found
          .map((line) => ({ ...line, box: prepared.toOriginal(line.box), words: line.words.map((w) => ({ ...w, box: prepared.toOriginal(w.box) })) }))
          .sort((a, b) => a.box.y0 - b.box.y0 || a.box.x0 - b.box.x0);
      if (options.firstReadingSuffices?.(inOriginal(first))) return inOriginal(first);
      // Second reading: the bands the first one missed or garbled, each at tesseract's size and polarity.
      const missed = await traced(trace, 'bands', () => findTextBands(grey, printColumns(first, grey.width)).filter((band) => !first.some((line) => covers(line, band))));
      let lines = first;
      if (missed.length > 0) {
        const mosaic = await traced(trace, 'mosaic', () => bandMosaic(grey, missed));
        const second = toLines(await read(mosaic.image, trace, 'band reading'), (b) => mosaicToSource(mosaic, b), MIN_BAND_WORD_CONFIDENCE);
        // Per band, the reading with more confident text wins: a band the first reading got right stays as it was.
        const better = missed.filter((band) => weight(second.filter((l) => within(l, band))) > weight(first.filter((l) => within(l, band))));
        lines = [
          ...first.filter((line) => !better.some((band) => within(line, band))),
          ...second.filter((line) => better.some((band) => within(line, band))),
        ];
      }
      return inOriginal(lines);
    },
    async readBands(grey, bands) {
      if (closed) throw new OcrPoolClosedError();
      if (bands.length === 0) return [];
      const mosaic = bandMosaic(grey, bands);
      const lines = toLines(await read(mosaic.image, undefined, 'band reading'), (b) => mosaicToSource(mosaic, b), MIN_BAND_WORD_CONFIDENCE);
      const perBand = bands.map((): OcrLine[] => []);
      for (const line of lines) {
        const overlaps = mosaic.placements.map((p) => intersectionArea(line.box, p.source));
        const best = overlaps.indexOf(Math.max(...overlaps));
        if (overlaps[best] > 0) perBand[best].push(line);
      }
      return perBand;
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
