import { ColorForm, ColorParseError, parseColor, Rgb } from '@loupe/color';
import { ParamError, Params, quoteInput } from '@loupe/envelope';
import {
  BackgroundOptions, ColorQueryColor, JsonRgb, MetadataError, normalizeStoredMetadata, parseMetadataQuery, parseMetadataText,
  parseReturnMetadata, ReturnKey,
} from '@loupe/jobs';
import type { MetadataQuery } from '@loupe/storage';

/** Specification 8: colors per search. */
export const MAX_QUERY_COLORS = 5;
/** Specification 4 "Colors input": weights are integers 1-100 summing to 100. */
const MIN_WEIGHT = 1;
const WEIGHT_TOTAL = 100;
const WILDCARD = 'wildcard';

/** A color as the client wrote it, so answers can echo the same form (compatibility.md "Colors"). */
export interface GivenColor {
  rgb: JsonRgb;
  form: ColorForm;
}

function toJson(rgb: Rgb): JsonRgb {
  return [rgb[0], rgb[1], rgb[2]];
}

/**
 * Longest color text read: "r,g,b" or "#rrggbb" with generous spaces. The parser's refusal quotes the whole text,
 * so a longer one is refused here, quoting a short prefix (a 100 kB `colors[0]` made a 100 kB answer).
 */
const MAX_COLOR_CHARS = 64;

export function readColor(name: string, text: string): GivenColor {
  if (text.length > MAX_COLOR_CHARS) {
    throw new ParamError(`${name}: ${quoteInput(text)} is not a color; expected "r,g,b" with integers from 0 to 255, or six hex digits "rrggbb".`);
  }
  try {
    const parsed = parseColor(text);
    return { rgb: toJson(parsed.rgb), form: parsed.form };
  } catch (error) {
    if (error instanceof ColorParseError) throw new ParamError(`${name}: ${error.message}`);
    throw error;
  }
}

/**
 * `colors[n]` with optional `weights[n]` (specification 4 "Colors input"): at most 5 colors, `wildcard` only where
 * allowed and at most once, weights integers 1-100 for every color and summing to 100; without weights each color
 * gets an equal share. Undefined when no colors were sent.
 */
export function readColorQuery(params: Params, options: { allowWildcard: boolean }): ColorQueryColor[] | undefined {
  const colors = params.list('colors').filter((c) => c.trim() !== '');
  const weights = params.list('weights').filter((w) => w.trim() !== '');
  if (colors.length === 0) {
    if (weights.length > 0) throw new ParamError('weights[n] were sent without colors[n]; please specify the colors they belong to.');
    return undefined;
  }
  if (colors.length > MAX_QUERY_COLORS) throw new ParamError(`At most ${MAX_QUERY_COLORS} colors may be sent per search; ${colors.length} were sent.`);
  if (weights.length > 0 && weights.length !== colors.length) throw new ParamError('Please specify the same number of weights as colors.');
  const parsedWeights = weights.map((w, i) => {
    if (!/^\s*\d+\s*$/.test(w) || Number(w) < MIN_WEIGHT || Number(w) > WEIGHT_TOTAL) {
      throw new ParamError(`weights[${i}]: ${quoteInput(w)} is not an integer from ${MIN_WEIGHT} to ${WEIGHT_TOTAL}.`);
    }
    return Number(w);
  });
  const sum = parsedWeights.reduce((s, w) => s + w, 0);
  if (parsedWeights.length > 0 && sum !== WEIGHT_TOTAL) throw new ParamError(`The weights must sum to ${WEIGHT_TOTAL}; they sum to ${sum}.`);
  let wildcards = 0;
  return colors.map((text, i) => {
    const weight = parsedWeights.length > 0 ? parsedWeights[i] : WEIGHT_TOTAL / colors.length;
    if (text.trim().toLowerCase() === WILDCARD) {
      if (!options.allowWildcard) throw new ParamError(`colors[${i}]: a wildcard is allowed only in color_search.`);
      if (++wildcards > 1) throw new ParamError('Only one of the colors may be a wildcard.');
      return { rgb: WILDCARD, weight };
    }
    return { rgb: readColor(`colors[${i}]`, text).rgb, weight };
  });
}

/** `count_colors[n]`: the palette colors to count, at least one. */
export function readCountColors(params: Params): GivenColor[] {
  const texts = params.list('count_colors').filter((c) => c.trim() !== '');
  if (texts.length === 0) throw new ParamError('Please specify the colors to count: count_colors[n].');
  return texts.map((t, i) => readColor(`count_colors[${i}]`, t));
}

export function readColorFormat(params: Params): ColorForm {
  const value = (params.string('color_format') ?? 'rgb').toLowerCase();
  if (value !== 'rgb' && value !== 'hex') throw new ParamError(`color_format: ${quoteInput(value)} is not valid; use rgb or hex.`);
  return value;
}

export function readBackground(params: Params): BackgroundOptions {
  return {
    ignore_background: params.bool('ignore_background'),
    ignore_interior_background: params.bool('ignore_interior_background'),
  };
}

function asParamError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof MetadataError) throw new ParamError(error.message);
    throw error;
  }
}

/** A metadata query parameter (JSON or XML) with the document as sent, for echoing (count_metadata). */
export function readMetadataQuery(name: string, text: string): { query: MetadataQuery; sent: Record<string, unknown> } {
  return asParamError(() => {
    const sent = parseMetadataText(text, name);
    return { query: parseMetadataQuery(sent, name), sent };
  });
}

export function readOptionalMetadataQuery(params: Params, name = 'metadata'): MetadataQuery | undefined {
  const text = params.string(name);
  return text === undefined ? undefined : readMetadataQuery(name, text).query;
}

export function readReturnMetadata(params: Params): ReturnKey[] | undefined {
  const text = params.string('return_metadata');
  if (text === undefined) return undefined;
  return asParamError(() => parseReturnMetadata(parseMetadataText(text, 'return_metadata'), 'return_metadata'));
}

/** Metadata to store (update, update_metadata), validated and in stored form. */
export function readStoredMetadata(name: string, text: string): Record<string, unknown> {
  return asParamError(() => normalizeStoredMetadata(parseMetadataText(text, name), name));
}
