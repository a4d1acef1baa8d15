import { ColorForm, ColorParseError, parseColor, Rgb } from '@loupe/color';
import { ParamError, quoteInput } from '@loupe/envelope';
import {
  BackgroundOptions, ColorQueryColor, ColorScope, JsonRgb, MetadataError, normalizeStoredMetadata, parseMetadataQuery, parseMetadataText,
  parseReturnMetadata, ReturnKey,
} from '@loupe/jobs';
import type { MetadataQuery } from '@loupe/storage';
import { z } from 'zod';
import { refuseBadPath } from './inputs';
import { MAX_QUERY_COLORS } from './limits';
import { choice, flag, listDoc, num, Param, param, ParamReader, textDoc } from './params';

/** docs/protocol.md §7 (colors input): weights are integers 1-100 summing to 100. */
const MIN_WEIGHT = 1;
const WEIGHT_TOTAL = 100;
const WILDCARD = 'wildcard';

/** A color as the client wrote it, so answers can echo the same form (docs/protocol.md §6). */
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

function colorQueryDocs(scope: string) {
  return [
    listDoc('colors', 'string', `${scope}Query colors as \`r,g,b\` or hex; at most ${MAX_QUERY_COLORS}; \`wildcard\` (color_search only) matches any color once.`, { maxItems: MAX_QUERY_COLORS }),
    listDoc('weights', 'integer', `${scope}Weight of each color, integers ${MIN_WEIGHT}-${WEIGHT_TOTAL} summing to ${WEIGHT_TOTAL}; equal shares when absent.`, {
      maxItems: MAX_QUERY_COLORS,
      items: z.int().min(MIN_WEIGHT).max(WEIGHT_TOTAL),
    }),
  ];
}

/**
 * `colors[n]` with optional `weights[n]` (docs/protocol.md §7): at most 5 colors, `wildcard` only where
 * allowed and at most once, weights integers 1-100 for every color and summing to 100; without weights each color
 * gets an equal share. Undefined when no colors were sent.
 */
export function readColorQuery(p: ParamReader, options: { allowWildcard: boolean }): ColorQueryColor[] | undefined {
  const colors = p.list('colors').filter((c) => c.trim() !== '');
  const weights = p.list('weights').filter((w) => w.trim() !== '');
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

/** The query colors of color_search, where one may be a wildcard. */
export const searchColors: Param<ColorQueryColor[] | undefined> = param(colorQueryDocs(''), (p) => readColorQuery(p, { allowWildcard: true }));

/** `count_colors[n]`: the palette colors to count, at least one. */
export const countColors: Param<GivenColor[]> = param(
  [listDoc('count_colors', 'string', 'Colors to count (`r,g,b` or hex), at least one.', { required: true })],
  (p) => {
    const texts = p.list('count_colors').filter((c) => c.trim() !== '');
    if (texts.length === 0) throw new ParamError('Please specify the colors to count: count_colors[n].');
    return texts.map((t, i) => readColor(`count_colors[${i}]`, t));
  },
);

export const colorFormat = choice('color_format', ['rgb', 'hex'], 'rgb', 'How colors are written in the answer: `[r,g,b]` or hex `rrggbb`.', (p) => {
  const value = (p.string('color_format') ?? 'rgb').toLowerCase();
  if (value !== 'rgb' && value !== 'hex') throw new ParamError(`color_format: ${quoteInput(value)} is not valid; use rgb or hex.`);
  return value;
});

export const ignoreBackground = flag('ignore_background', 'Leave the background color (the color touching the image border) out of the palette');
export const ignoreInteriorBackground = flag('ignore_interior_background', 'Also leave out background-colored regions inside the image');

export function background(input: { ignore_background: boolean; ignore_interior_background: boolean }): BackgroundOptions {
  return { ignore_background: input.ignore_background, ignore_interior_background: input.ignore_interior_background };
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

const metadataQueryDoc = textDoc('metadata', 'A metadata query (JSON or XML): keywords, numbers and ranges.');

function readOptionalMetadataQuery(p: ParamReader): MetadataQuery | undefined {
  const text = p.string('metadata');
  return text === undefined ? undefined : readMetadataQuery('metadata', text).query;
}

export const metadataQuery: Param<MetadataQuery | undefined> = param([metadataQueryDoc], readOptionalMetadataQuery);

export const returnMetadata: Param<ReturnKey[] | undefined> = param(
  [textDoc('return_metadata', 'Metadata keys to return with each hit (JSON or XML).')],
  (p) => {
    const text = p.string('return_metadata');
    if (text === undefined) return undefined;
    return asParamError(() => parseReturnMetadata(parseMetadataText(text, 'return_metadata'), 'return_metadata'));
  },
);

/** Metadata to store (update, update_metadata), validated and in stored form. */
export function readStoredMetadata(name: string, text: string): Record<string, unknown> {
  return asParamError(() => normalizeStoredMetadata(parseMetadataText(text, name), name));
}

/** `metadata[n]` of an add or update: the document of the image at the same position, by position. */
export const positionalMetadata: Param<Map<number, Record<string, unknown>>> = param(
  [listDoc('metadata', 'string', 'Metadata (JSON or XML) of the image at the same position.')],
  (p) => {
    const metadata = new Map<number, Record<string, unknown>>();
    for (const [position, text] of p.indexed('metadata')) {
      if (text.trim() !== '') metadata.set(position, readStoredMetadata(`metadata[${position}]`, text));
    }
    return metadata;
  },
);

/** update_metadata: one document per path read before it (`metadata[n]`, also `metadatas[n]`), in order. */
export const metadataPerPath: Param<Array<{ filepath: string; metadata: Record<string, unknown> }>> = param(
  [listDoc('metadata', 'string', 'One metadata document (JSON or XML) per path, in order (also `metadatas[n]`).', { required: true, aliases: ['metadatas'] })],
  (p, before) => {
    const paths = before.filepaths as string[];
    const texts = [...p.list('metadata'), ...p.list('metadatas')];
    if (texts.length !== paths.length) throw new ParamError('Please specify one metadata (metadata[n]) for each filepath (filepaths[n]).');
    return paths.map((filepath, i) => ({ filepath, metadata: readStoredMetadata(`metadata[${i}]`, texts[i] || '{}') }));
  },
);

/** `count_metadata[n]`: metadata queries to count, at least one, each with the document as sent. */
export const countMetadataQueries: Param<Array<{ query: MetadataQuery; sent: Record<string, unknown> }>> = param(
  [listDoc('count_metadata', 'string', 'Metadata queries (JSON or XML) to count, at least one.', { required: true })],
  (p) => {
    const texts = p.list('count_metadata').filter((t) => t.trim() !== '');
    if (texts.length === 0) throw new ParamError('Please specify at least one metadata query to count: count_metadata[n].');
    return texts.map((t, i) => readMetadataQuery(`count_metadata[${i}]`, t));
  },
);

const scopeMinScore = num('min_score', { min: 0, max: 100 }, 'Scope by colors: images scoring at least this much.');

/** The scope of a collection extraction or count: metadata, colors[n]+weights[n], or filepaths[n]; at most one. */
export const collectionScope: Param<ColorScope> = param(
  [
    metadataQueryDoc,
    ...colorQueryDocs('Scope: '),
    listDoc('filepaths', 'string', 'Scope: these collection paths only.', { single: 'filepath' }),
    ...scopeMinScore.docs,
  ],
  (p, before) => {
    const metadata = readOptionalMetadataQuery(p);
    const colors = readColorQuery(p, { allowWildcard: false });
    const filepaths = p.list('filepaths', 'filepath').filter((f) => f !== '');
    filepaths.forEach(refuseBadPath);
    const given = [metadata !== undefined, colors !== undefined, filepaths.length > 0].filter(Boolean).length;
    if (given > 1) throw new ParamError('Please specify only one scope: metadata, colors[n] with weights[n], or filepaths[n].');
    const minScore = scopeMinScore.read(p, before);
    if (filepaths.length > 0) return { filepaths };
    return { metadata, colors, min_score: minScore };
  },
);
