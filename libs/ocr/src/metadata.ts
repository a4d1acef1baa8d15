import { toPercentRect, unionBox } from './box';
import { defaultDictionary, type Dictionary, type TermCategory } from './dictionary';
import { findTermHits, hitProminence, type TermHit } from './phrase-matcher';
import { tokenize } from './normalize';
import type { OcrLine, PixelBox, WineMetadata } from './types';
import { findVintage } from './vintage';

/** Best hit of a category: exact readings first, then appellations over regions, then larger print, then first. */
function pickHit(hits: TermHit[], category: TermCategory): TermHit | undefined {
  return hits
    .filter((h) => h.entry.category === category)
    .sort(
      (a, b) =>
        a.edits - b.edits ||
        Number(!!b.entry.parent) - Number(!!a.entry.parent) ||
        hitProminence(b) - hitProminence(a) ||
        a.lineIndex - b.lineIndex ||
        a.start - b.start,
    )[0];
}

/**
 * Wine label metadata (docs/protocol.md §8) from OCR lines. Rectangles are percentages of imageSize;
 * label_rect is labelBox when given, else the extent of the text.
 */
export function parseWineMetadata(
  lines: OcrLine[],
  imageSize: { width: number; height: number },
  labelBox?: PixelBox,
  options: { dictionary?: Dictionary; now?: Date } = {},
): WineMetadata {
  const textLines = lines.map((l) => l.text.replace(/\s+/g, ' ').trim()).filter((t) => t.length > 0);
  const meta: WineMetadata = {
    text_lines: textLines,
    text_tokens: [...new Set(textLines.flatMap((t) => tokenize(t)))],
  };
  const rect = (b: PixelBox) => toPercentRect(b, imageSize);
  const hits = findTermHits(lines, options.dictionary ?? defaultDictionary());

  const variety = pickHit(hits, 'variety');
  if (variety) {
    // As printed: a label that says Shiraz reads Shiraz; search takes synonyms as one grape (sameVariety).
    meta.variety_type = variety.entry.spelling;
    meta.variety_rect = rect(variety.box);
  }
  const vintage = findVintage(lines, options.now);
  if (vintage) {
    meta.vintage_year = vintage.year;
    meta.vintage_rect = rect(vintage.box);
  }
  const color = pickHit(hits, 'color');
  if (color) {
    meta.color_type = color.entry.canonical;
    meta.color_rect = rect(color.box);
  }
  // A grape named after its appellation ("Lambrusco di Sorbara") is the variety line; another region wins.
  const sameSpan = (a: TermHit, b: TermHit) => a.lineIndex === b.lineIndex && a.start === b.start && a.end === b.end;
  const region = pickHit(hits.filter((h) => !(variety && sameSpan(h, variety))), 'region') ?? pickHit(hits, 'region');
  if (region) {
    meta.region_name = region.entry.canonical;
    meta.region_rect = rect(region.box);
  }
  const country = pickHit(hits, 'country');
  if (country) {
    meta.country_name = country.entry.canonical;
    meta.country_rect = rect(country.box);
  }
  const misc = hits.filter((h) => h.entry.category === 'misc');
  const inferred = region?.entry.country ?? misc.find((h) => h.entry.country)?.entry.country;
  if (inferred) meta.country_name_inferred = inferred;
  if (misc.length > 0) meta.misc_info = [...new Set(misc.map((h) => h.entry.canonical))];

  const extent = labelBox ?? (lines.length > 0 ? unionBox(lines.map((l) => l.box)) : undefined);
  if (extent) meta.label_rect = rect(extent);
  return meta;
}
