export type { RgbImage } from '@loupe/fingerprint';

/** A box in pixels; x1/y1 are exclusive. */
export interface PixelBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A rectangle of docs/protocol.md §8: percentages of the image width (left/right) and height (top/bottom). */
export interface Rect {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export interface OcrWord {
  text: string;
  /** 0-100, as tesseract reports it. */
  confidence: number;
  box: PixelBox;
}

export interface OcrLine {
  text: string;
  confidence: number;
  box: PixelBox;
  words: OcrWord[];
}

/** Wine label metadata (docs/protocol.md §8). */
export interface WineMetadata {
  variety_type?: string;
  variety_rect?: Rect;
  vintage_year?: number;
  vintage_rect?: Rect;
  color_type?: string;
  color_rect?: Rect;
  region_name?: string;
  region_rect?: Rect;
  country_name?: string;
  country_rect?: Rect;
  country_name_inferred?: string;
  misc_info?: string[];
  label_rect?: Rect;
  text_lines: string[];
  text_tokens: string[];
}
