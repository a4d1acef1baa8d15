/** An sRGB color, each component an integer 0-255. */
export type Rgb = readonly [number, number, number];

/** How a color is written in a response (docs/protocol.md §8): a three-integer list or lower-case six-digit hex. */
export type ColorForm = 'rgb' | 'hex';

export type { RgbImage } from '@loupe/fingerprint';

/** One color of a palette; weight is the percentage of the counted area (a palette's weights sum to 100). */
export interface PaletteEntry {
  rgb: Rgb;
  weight: number;
  class: string;
}

export interface PaletteOptions {
  /** A guideline for the number of colors; values above 10 act as 10. Default: chosen by content. */
  targetColors?: number;
  /** Leave out the background connected to the image border. Default false. */
  ignoreBackground?: boolean;
  /** Also leave out enclosed regions of the background color (implies ignoreBackground). Default false. */
  ignoreInteriorBackground?: boolean;
}

/** A color of a search query; weights are percentages. A wildcard's weight matches any color. */
export interface WeightedColor {
  rgb: Rgb | 'wildcard';
  weight: number;
}
