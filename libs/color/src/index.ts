export type { ColorForm, PaletteEntry, PaletteOptions, Rgb, RgbImage, WeightedColor } from './types';
export { ColorParseError, formatColor, parseColor } from './color-format';
export { CLASS_BOUNDARY_RATIO, COLOR_CLASS_NAMES, classifyColor } from './classify';
export { deltaE } from './oklab';
export {
  DEFAULT_MAX_COLORS,
  MAX_TARGET_COLORS,
  MERGE_DELTA_E,
  MIN_COLOR_PERCENT,
  extractPalette,
  paletteFromImageForQuery,
} from './palette';
export { combinePalettes } from './combine';
export { BACKGROUND_DELTA_E, BORDER_DOMINANCE_MIN, detectBackground } from './background';
export { SIMILARITY_DELTA_E, colorSearchScore, prepareQuery, preparePalette, rankPalettes, scorePrepared } from './search-score';
export type { PreparedPalette, PreparedQuery, RankedPalette } from './search-score';
export { FULL_AREA_MIN_PERCENT, PARTIAL_AREA_MIN_PERCENT, PRESENCE_DELTA_E, colorPresence } from './presence';
