import { detectLabel, LazyOcrPool, labelAroundText, labelCylinder, UNWRAP_BELOW_SQUEEZE, parseWineMetadata, traced, unionBox, type OcrLine, type PixelBox, type StageTrace, type WineMetadata, RgbImage } from '@loupe/ocr';
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

/**
 * A label prints several lines (producer, vintage, variety...) and at least a producer and a grape or a region in
 * letters: one line or none, or a few letters (the printed benchmark's miss: "20 me wj am" from the big light
 * figures of a dark label, taken for a bright region), means the wrong region.
 */
const MIN_LABEL_LINES = 2;
const MIN_LABEL_LETTERS = 10;
/** The stock region replaces the detected box when it holds it and is this much larger. */
const LARGER_LABEL_RATIO = 1.2;
/** Share of a box that must lie inside another for it to count as inside. */
const INSIDE_SHARE = 0.9;

function letters(lines: OcrLine[]): number {
  return lines.reduce((n, l) => n + l.text.replace(/[^\p{L}\p{N}]/gu, '').length, 0);
}

function area(b: PixelBox): number {
  return Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);
}

function containsMost(outer: PixelBox, inner: PixelBox): boolean {
  const overlap = area({ x0: Math.max(outer.x0, inner.x0), y0: Math.max(outer.y0, inner.y0), x1: Math.min(outer.x1, inner.x1), y1: Math.min(outer.y1, inner.y1) });
  return overlap >= INSIDE_SHARE * area(inner);
}

/**
 * A reading that found a vintage, a grape, a colour, a region and a country has every field extract_metadata
 * reports; reading the bands it missed again could only add tokens.
 */
type Fields = Pick<WineMetadata, 'vintage_year' | 'variety_type' | 'color_type' | 'region_name' | 'country_name' | 'country_name_inferred'>;

/**
 * Fields a reading found, the colour counting least: "Blanc" read alone is a colour, and the same word read whole
 * as "Sauvignon Blanc" is a grape that prints no colour.
 */
function fieldCount(meta: Fields): number {
  const main = [meta.vintage_year, meta.variety_type, meta.region_name, meta.country_name ?? meta.country_name_inferred].filter((v) => v !== undefined).length;
  return 2 * main + (meta.color_type !== undefined ? 1 : 0);
}

function hasEveryField(meta: Fields): boolean {
  return (
    meta.vintage_year !== undefined &&
    meta.variety_type !== undefined &&
    meta.color_type !== undefined &&
    meta.region_name !== undefined &&
    (meta.country_name ?? meta.country_name_inferred) !== undefined
  );
}

/**
 * Finds the label on a (normalised) photo and reads it: label detection, OCR of the label region (of the whole
 * image when no label stands out, or when the region held no text), then label metadata from the lines.
 * The OCR pool (tesseract.js, offline, one worker per core) starts on the first read (`LazyOcrPool`); close() ends it.
 */
export class WineLabelReader {
  /**
   * `unwrapWrapped`: a label whose reading lacks a field and whose print is squeezed at the sides (wrapped far
   * round the bottle) is read again laid flat, and the reading with more fields kept.
   */
  constructor(
    private readonly ocrPool: LazyOcrPool = new LazyOcrPool(),
    private readonly unwrapWrapped = true,
  ) {}

  /**
   * `fieldsOnly`: the caller wants the label's fields (extract_metadata), not every line of it, so when the first
   * reading already gives all of them the bands it missed are not read again. `trace` reports each stage's time
   * (profiling: tools/bench/wine/profile-extract.ts).
   */
  async read(img: RgbImage, options: { fieldsOnly?: boolean; trace?: StageTrace } = {}): Promise<LabelReading> {
    const { trace } = options;
    const detectWatch = new Stopwatch().start();
    const box = (await traced(trace, 'detect label', () => detectLabel(img))) ?? undefined;
    detectWatch.stop();
    const textWatch = new Stopwatch().start();
    const pool = await this.ocrPool.get();
    const firstReadingSuffices = options.fieldsOnly ? (found: OcrLine[]) => hasEveryField(parseWineMetadata(found, img)) : undefined;
    let lines = await pool.recognize(img, box, { trace, firstReadingSuffices });
    let labelBox = box;
    if (box && (lines.length < MIN_LABEL_LINES || letters(lines) < MIN_LABEL_LETTERS)) {
      // A bright region with little text was taken for the label (a reflection, a price tag, the big light
      // figures of a dark label): read the whole photo too and keep the fuller reading.
      const whole = await pool.recognize(img, undefined, { firstReadingSuffices, trace: trace && ((stage, wall, cpu) => trace(`whole photo, ${stage}`, wall, cpu)) });
      if (letters(whole) > letters(lines)) {
        lines = whole;
        labelBox = undefined;
      }
    }
    let metadata = await this.metadata(img, lines, labelBox, trace);
    if (this.unwrapWrapped && lines.length > 0 && !hasEveryField(metadata)) {
      // Print squeezed at the sides of a label wrapped far round the bottle may be what was missed.
      const region = labelBox;
      const cylinder = await traced(trace, 'cylinder', () => labelCylinder(img, region));
      if (cylinder && cylinder.edgeSqueeze < UNWRAP_BELOW_SQUEEZE) {
        const flat = await pool.recognize(img, region, { cylinder, firstReadingSuffices, trace: trace && ((stage, wall, cpu) => trace(`unwrapped, ${stage}`, wall, cpu)) });
        const flatMetadata = await this.metadata(img, flat, region, trace);
        if (fieldCount(flatMetadata) > fieldCount(metadata)) {
          lines = flat;
          metadata = flatMetadata;
        }
      }
    }
    textWatch.stop();
    return { metadata: metadata as unknown as WineLabelMetadata, found: lines.length > 0, time_detect_label: detectWatch.elapsed, time_extract_text: textWatch.elapsed };
  }

  /** The fields of a reading, with label_rect round the label the text stands on. */
  private async metadata(img: RgbImage, lines: OcrLine[], detected: PixelBox | undefined, trace: StageTrace | undefined): Promise<WineMetadata> {
    let labelBox = detected;
    if (lines.length > 0) {
      // Labels detectLabel cannot single out (light print on dark stock, a label filling the frame) are found
      // round their text instead; a detected box inside that larger stock region was only part of the label.
      const around = await traced(trace, 'label round text', () => labelAroundText(img, unionBox(lines.map((l) => l.box))));
      if (!labelBox || (containsMost(around, labelBox) && area(around) > area(labelBox) * LARGER_LABEL_RATIO)) labelBox = around;
    }
    return traced(trace, 'metadata', () => parseWineMetadata(lines, img, labelBox));
  }

  async close(): Promise<void> {
    await this.ocrPool.close();
  }
}
