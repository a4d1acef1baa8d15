import type { GrayImage } from './grey';
import { BAND_MARGIN_SHARE, type TextBand } from './text-bands';
import { findTextLines } from './text-lines';
import type { OcrLine, PixelBox } from './types';

/**
 * Print compared where two aligned images show the same place: two designs of one template (two badges, two labels of
 * a range) share every shape and differ by a name. Their features fit as well as a copy's, and their edges and colours
 * agree everywhere but in the name's few cells, as a copy's do after JPEG and rotation blur, so only reading the names
 * tells them apart.
 */

/** A point of the collection image's pixels mapped into the query's. */
export type ToQuery = (x: number, y: number) => [number, number];

/** Lines of the collection image read, at most this many (the tallest): a name is a design's largest print. */
const MAX_LINES = 3;
/** Ground above and below a line that the query must show with it, as a share of its height. */
const LINE_MARGIN_SHARE = 0.3;
/**
 * Least width of a line's part the query shows, in heights of the line (about four capitals): fewer letters are too few
 * to tell a misreading from another word.
 */
const MIN_VISIBLE_HEIGHTS = 3;
/**
 * A reading decides only when it is this sure (tesseract's word confidence, 0-100)... A badge's name read 92 in the
 * collection image and 72 in a copy turned 12°, scaled 0.8 and saved as JPEG q40; stray marks read under 40.
 */
const SURE_CONFIDENCE = 60;
/** ...and its words of two letters or more hold at least this many letters. */
const SURE_LETTERS = 3;
/**
 * Widest part of a line read, in heights of the line (about ten bold capitals: "NORGOSYL" is 6.4 heights), about its
 * middle: tesseract's time grows with the line's length, and rows of figures across a pattern are long and decide
 * nothing.
 */
const MAX_READ_HEIGHTS = 8;

/**
 * A line with at least this many lines of a like height (within LIKE_HEIGHT_RATIO) in its image is a row of a texture,
 * not print: rows of digits, tiles, herringbone and weaves. On the matching benchmark's family images the tallest lines
 * of such patterns had 6-28 of a like height (3-4 in three herringbones), while a logo's or badge's lines had 1-2; their
 * readings decided nothing and were the check's dearest (100-500 ms a pattern on a 2-core host).
 */
const TEXTURE_ROWS = 5;
const LIKE_HEIGHT_RATIO = 1.25;

/** A query's line is the collection image's at its place when their heights are within this ratio... */
const SAME_LINE_HEIGHT_RATIO = 1.5;
/** ...and they share this share of the lower one's rows. */
const SAME_LINE_ROWS = 0.6;

export interface LineReading {
  /** The line in the collection image's pixels. */
  band: TextBand;
  collection: OcrLine[];
  query: OcrLine[];
}

/** Reads bands of print of a grey image (one mosaic, `OcrPool.readBands`): the lines of each band, in its pixels. */
export type BandReader = (grey: GrayImage, bands: TextBand[]) => Promise<OcrLine[][]>;

/**
 * The collection image's lines of print where the query shows them, read in both: in the collection image, and in the
 * query resampled into the collection image's frame (so a rotated or scaled query reads upright at the same size). A
 * line the query shows in part (a crop through a name) is read in both over the columns the query shows. Rows that
 * repeat down the image like a texture's (`withoutTextureRows`) are not read at all, and the query is read only where
 * the collection image's reading has letters to compare (`sureLetters`): rows of figures and patterns taken for print
 * cost a reading and decide nothing. The query's print is cut by its own glyphs (`findTextLines` over the resampled
 * image): a shorter name in the box of a longer one leaves ground and shapes beside it that tesseract reads badly.
 */
export async function readAlignedLines(read: BandReader, query: GrayImage, collection: GrayImage, toQuery: ToQuery): Promise<LineReading[]> {
  const bands = withoutTextureRows(findTextLines(collection))
    .flatMap((band) => visiblePart(band, toQuery, query) ?? [])
    .slice(0, MAX_LINES);
  if (bands.length === 0) return [];
  const inCollection = await read(collection, bands);
  const readings: LineReading[] = bands.map((band, i) => ({ band, collection: inCollection[i] ?? [], query: [] }));
  const worthReading = readings.filter((r) => sureLetters(r.collection).length > 0);
  if (worthReading.length === 0) return readings;
  const resampled = resampledInto(query, collection, toQuery);
  const found = findTextLines(resampled);
  // Each counterpart over the columns read in the collection image; a sliver left at its side holds no letter.
  const counterparts = worthReading.map(({ band }) =>
    found.flatMap((q) => {
      const box = { ...q.box, x0: Math.max(q.box.x0, band.box.x0), x1: Math.min(q.box.x1, band.box.x1) };
      return sameLine(q.box, band.box) && box.x1 - box.x0 >= box.y1 - box.y0 ? [{ ...q, box }] : [];
    }),
  );
  const inQuery = await read(resampled, counterparts.flat());
  let next = 0;
  worthReading.forEach((reading, i) => reading.query.push(...counterparts[i].flatMap(() => inQuery[next++] ?? [])));
  return readings;
}

/** `lines` without the rows of a texture (TEXTURE_ROWS): a name is printed once, a pattern's rows repeat down it. */
function withoutTextureRows(lines: TextBand[]): TextBand[] {
  return lines.filter((line) => lines.filter((other) => heightsWithin(line.box, other.box, LIKE_HEIGHT_RATIO)).length < TEXTURE_ROWS);
}

/** Whether the taller of two boxes is at most `ratio` times as high as the other. */
function heightsWithin(a: PixelBox, b: PixelBox, ratio: number): boolean {
  const ha = a.y1 - a.y0, hb = b.y1 - b.y0;
  return Math.max(ha, hb) <= ratio * Math.min(ha, hb);
}

/**
 * The longest run of a line's columns that the query shows, with LINE_MARGIN_SHARE of ground above and below, at least
 * MIN_VISIBLE_HEIGHTS of its height wide and at most MAX_READ_HEIGHTS about its middle; null when there is none. Where
 * the run ends inside the line (the query's edge cuts it), it is narrowed by the margin `bandMosaic` reads round a band,
 * so that neither image is read past the query's edge.
 */
function visiblePart(band: TextBand, toQuery: ToQuery, query: GrayImage): TextBand | null {
  const { box } = band;
  const h = box.y1 - box.y0;
  const m = h * LINE_MARGIN_SHARE;
  const inside = (x: number, y: number) => {
    const [qx, qy] = toQuery(x, y);
    return qx >= 0 && qy >= 0 && qx <= query.width - 1 && qy <= query.height - 1;
  };
  let best = { x0: 0, x1: 0 };
  let start = -1;
  for (let x = box.x0; x <= box.x1; x++) {
    const shown = x < box.x1 && inside(x + 0.5, box.y0 - m) && inside(x + 0.5, box.y1 + m);
    if (shown && start < 0) start = x;
    if (!shown && start >= 0) {
      if (x - start > best.x1 - best.x0) best = { x0: start, x1: x };
      start = -1;
    }
  }
  const inset = Math.ceil(h * BAND_MARGIN_SHARE);
  const x0 = best.x0 > box.x0 ? best.x0 + inset : best.x0;
  const x1 = best.x1 < box.x1 ? best.x1 - inset : best.x1;
  if (x1 - x0 < MIN_VISIBLE_HEIGHTS * h) return null;
  const excess = Math.max(0, x1 - x0 - MAX_READ_HEIGHTS * h);
  return { box: { ...box, x0: Math.round(x0 + excess / 2), x1: Math.round(x1 - excess / 2) }, lightInk: band.lightInk };
}

/**
 * Whether a line found in the resampled query is the collection image's line at that place: of a like height, on the
 * same rows (overlapping by most of the lower one) and overlapping in columns. A fit extrapolated far from its inliers
 * (a label wrapped round a bottle) can put the neighbouring line there, whose words are of course others.
 */
function sameLine(q: PixelBox, c: PixelBox): boolean {
  const rows = Math.min(q.y1, c.y1) - Math.max(q.y0, c.y0);
  const columns = Math.min(q.x1, c.x1) - Math.max(q.x0, c.x0);
  return heightsWithin(q, c, SAME_LINE_HEIGHT_RATIO) && rows >= SAME_LINE_ROWS * Math.min(q.y1 - q.y0, c.y1 - c.y0) && columns > 0;
}

/**
 * Whether some line reads surely in both images as other letters: the shorter reading is not found in the longer one
 * with at most one edit per four letters (`fuzzyContained`). OCR slips (O for Q, l for i), a reading that lost a
 * letter, and a word cut by the query's edge (the collection image reads "ince", the query "nce") are contained; two
 * names are not. A line one side cannot read surely decides nothing: a blurred or re-encoded copy may lose its print, a
 * different design may have none there. Figures are left out: one misread figure of a year would refuse a copy.
 */
export function readingsDisagree(readings: LineReading[]): boolean {
  return readings.some(({ collection, query }) => {
    const a = sureLetters(collection);
    const b = sureLetters(query);
    if (a.length === 0 || b.length === 0) return false;
    const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
    return !fuzzyContained(shorter, longer);
  });
}

/**
 * The letters of the words read surely (in capitals, words of two letters or more), when there are SURE_LETTERS of them;
 * '' otherwise.
 */
function sureLetters(lines: OcrLine[]): string {
  const letters = lines
    .flatMap((l) => l.words)
    .filter((w) => w.confidence >= SURE_CONFIDENCE)
    .map((w) => w.text.replace(/[^\p{L}]/gu, '').toUpperCase())
    .filter((w) => w.length >= 2)
    .join('');
  return letters.length >= SURE_LETTERS ? letters : '';
}

/** Letters per edit a reading may differ by from its place in the other and still count as the same print. */
const LETTERS_PER_EDIT = 4;

/**
 * Whether `needle` matches some substring of `hay` within max(1, ⌊|needle| / LETTERS_PER_EDIT⌋) edits (Levenshtein, the
 * substring's ends free: Sellers' approximate string matching).
 */
export function fuzzyContained(needle: string, hay: string): boolean {
  const allowed = Math.max(1, Math.floor(needle.length / LETTERS_PER_EDIT));
  let previous = new Array<number>(hay.length + 1).fill(0);
  for (let i = 1; i <= needle.length; i++) {
    const row = new Array<number>(hay.length + 1);
    row[0] = i;
    for (let j = 1; j <= hay.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (needle[i - 1] === hay[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return Math.min(...previous) <= allowed;
}

/**
 * The query resampled (bilinear) into the collection image's frame, the query's edge pixels repeated where the frame
 * reaches past it. The whole frame, not the lines alone: a line's glyphs are found against the mean of their
 * surroundings (`findTextLines`), and a line on a ribbon pasted on white would be one blob with its ribbon.
 */
function resampledInto(query: GrayImage, frame: GrayImage, toQuery: ToQuery): GrayImage {
  const out: GrayImage = { data: new Uint8Array(frame.width * frame.height), width: frame.width, height: frame.height };
  for (let y = 0; y < frame.height; y++) {
    for (let x = 0; x < frame.width; x++) {
      const [qx, qy] = toQuery(x + 0.5, y + 0.5);
      out.data[y * frame.width + x] = bilinear(query, qx - 0.5, qy - 0.5);
    }
  }
  return out;
}

function bilinear(g: GrayImage, x: number, y: number): number {
  const x0 = Math.max(0, Math.min(g.width - 1, Math.floor(x)));
  const y0 = Math.max(0, Math.min(g.height - 1, Math.floor(y)));
  const x1 = Math.min(g.width - 1, x0 + 1), y1 = Math.min(g.height - 1, y0 + 1);
  const fx = Math.max(0, Math.min(1, x - x0)), fy = Math.max(0, Math.min(1, y - y0));
  const top = g.data[y0 * g.width + x0] * (1 - fx) + g.data[y0 * g.width + x1] * fx;
  const bottom = g.data[y1 * g.width + x0] * (1 - fx) + g.data[y1 * g.width + x1] * fx;
  return Math.round(top * (1 - fy) + bottom * fy);
}
