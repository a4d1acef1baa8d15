import { ParamError } from '@loupe/envelope';
import type { ServiceName } from '../services/operation';
import {
  collectionScope, colorFormat, countColors, countMetadataQueries, ignoreBackground, ignoreInteriorBackground, metadataPerPath, metadataQuery,
  positionalMetadata, returnMetadata, searchColors,
} from './color-inputs';
import { contract, OperationContract } from './contract';
import {
  addInputs, flip, imagePair, limit, minScore, nameFilter, offset, overlay, paths, pathFilter, queryImage, queryImages, refuseBadPath, searchLimit,
} from './inputs';
import { DEFAULT_COLOR_MIN_SCORE, DEFAULT_EXTRACT_LIMIT, DEFAULT_LIST_LIMIT } from './limits';
import { check, flag, int, num, param, text, uploadDoc } from './params';

/**
 * One contract per operation of every collection service. Parameters are declared in the order the operation reads
 * them: a request with several problems is refused for the first, as clients have always been told.
 */

const GET_POST: OperationContract['methods'] = ['get', 'post'];
const POST: OperationContract['methods'] = ['post'];

// ---- operations shared by several services -------------------------------------------------------------------------

const add = (summary: string, description?: string, stats = ['time_download', 'time_resize', 'time_add']) =>
  contract({ summary, description, methods: POST, params: { images: addInputs() }, result: 'Nothing', stats });

const deleteOp = contract({
  summary: 'Remove images from the collection',
  description: 'Unknown paths give `warn` naming them; the others are still deleted.',
  methods: ['get', 'post', 'delete'],
  params: { filepaths: paths('to delete') },
  result: 'Nothing',
  stats: ['time_delete'],
});

const list = contract({
  summary: 'File paths of the collection in insertion order',
  methods: GET_POST,
  params: { offset: offset('Paths'), limit: limit(DEFAULT_LIST_LIMIT, 'Paths') },
  result: 'Filepath',
  stats: ['time_list'],
});

const count = (service: ServiceName) =>
  contract({ summary: `Number of images in the ${service} collection`, methods: GET_POST, params: {}, result: 'Count', stats: ['time_count'] });

const ping = contract({ summary: 'Checks that the service answers and the credentials are right', methods: GET_POST, params: {}, result: 'Nothing', stats: [] });

const collectionOps = (service: ServiceName) => ({ delete: deleteOp, list, count: count(service), ping });

const getInfo = (summary: string, description?: string) =>
  contract({ summary, description, methods: GET_POST, params: { filepaths: paths('to report') }, result: 'InfoItem', stats: ['time_get_info'] });

const matchSearch = contract({
  summary: 'Find collection images in a query image',
  description: 'Best matches first. Queries that are extremely small, single color or have fewer than 12 distinctive points are refused with a `fail` envelope.',
  methods: GET_POST,
  params: {
    min_score: minScore,
    check_horizontal_flip: flip,
    generate_overlay: overlay,
    offset: offset('Matches'),
    limit: searchLimit('Matches'),
    name_filter: nameFilter,
    path_filter: pathFilter,
    query: queryImage(),
  },
  result: 'MatchItem',
  queryImage: 'filepath',
  stats: ['total_results', 'total_filtered_results', 'total_returned_results', 'time_resize', 'time_search'],
  optionalStats: ['time_download'],
});

const compareDescription = 'Both images as uploads or both as URLs (or collection paths), not a mixture. One match item, or `[]` when the images do not match.';
const compare = (description: string) =>
  contract({
    summary: 'Compare two images',
    description,
    methods: GET_POST,
    params: {
      min_score: minScore,
      check_horizontal_flip: flip,
      generate_overlay: overlay,
      compute_enhanced_score: flag('compute_enhanced_score', 'Add `score_enhanced`: gradient correlation over the aligned overlap'),
      compare_color: flag('compare_color', 'Add `score_color` and `compare_color`: palettes of the matched regions compared'),
      images: imagePair(),
    },
    result: 'MatchItem',
    queryImage: 'filepath',
    stats: ['time_download', 'time_resize', 'time_compare'],
  });
const matchCompare = compare(compareDescription);

// ---- mobile and match ----------------------------------------------------------------------------------------------

const MOBILE = {
  add: add('Add images to the collection', 'An existing path is refused (naming it); the rest of the batch is still added.'),
  search: matchSearch,
  compare: matchCompare,
  get_info: getInfo('Presence, size and fingerprint health of images', 'Unknown paths are answered `missing` with zeros and date `0000-00-00`.'),
  get_metadata: contract({
    summary: 'The image_id stored with images',
    methods: GET_POST,
    params: { filepaths: paths('to read') },
    result: 'ImageIdMetadataItem',
    stats: ['time_get_metadata'],
  }),
  ...collectionOps('mobile'),
};

const MATCH = {
  compare: matchCompare,
  search: matchSearch,
  add: add('Add images to the collection (an existing path is replaced)'),
  ...collectionOps('match'),
};

// ---- color ---------------------------------------------------------------------------------------------------------

/** What a color search was asked by: an image, a collection path, a URL, colors (at most one). */
function colorSources(before: Readonly<Record<string, unknown>>): number {
  return [(before.image as unknown[]).length > 0, before.filepath !== undefined, before.url !== undefined, before.colors !== undefined].filter(Boolean).length;
}

const COLOR_MIN_SCORE_RULE = { min: 0, max: 100 };
const colorMinScore = num('min_score', { ...COLOR_MIN_SCORE_RULE, default: DEFAULT_COLOR_MIN_SCORE }, `Leave out hits scoring below this (0-100). By default ${DEFAULT_COLOR_MIN_SCORE} for a search by image, path, URL or colors (unrelated palettes score below it; docs/benchmarks.md), 0 for metadata alone.`);
const colorLimit = limit(DEFAULT_EXTRACT_LIMIT, 'Colors');

const colorSearch = contract({
  summary: 'Find collection images by color, by image or by metadata',
  description: 'Exactly one of image, filepath, url or colors[n]; or metadata alone. metadata may also narrow any of them.',
  methods: GET_POST,
  params: {
    colors: searchColors,
    filepath: param(text('filepath', 'A collection image as the query.').docs, (p) => {
      const filepath = p.string('filepath');
      if (filepath !== undefined) refuseBadPath(filepath);
      return filepath;
    }),
    // Counted here, taken one only after every other parameter (two uploads under `image` are refused last).
    image: param([uploadDoc('image', 'A query image: images with a similar palette.')], (p) => p.files('image')),
    url: text('url', 'A query image URL.'),
    oneSource: check((before) => {
      if (colorSources(before) > 1) throw new ParamError('Please specify only one of image, filepath, url or colors[n].');
    }),
    metadata: metadataQuery,
    return_metadata: returnMetadata,
    someQuery: check((before) => {
      if (colorSources(before) === 0 && !before.metadata) throw new ParamError('Please specify image, filepath, url, colors[n] or metadata.');
    }),
    ignore_background: ignoreBackground,
    ignore_interior_background: ignoreInteriorBackground,
    // A metadata-only search ranks by metadata score, which the color floor does not describe.
    min_score: param(colorMinScore.docs, (p, before) =>
      p.number('min_score', { ...COLOR_MIN_SCORE_RULE, default: colorSources(before) > 0 ? DEFAULT_COLOR_MIN_SCORE : 0 })!,
    ),
    offset: offset('Hits'),
    limit: searchLimit('Hits'),
    name_filter: nameFilter,
    path_filter: pathFilter,
    sort_metadata: flag('sort_metadata', 'Order hits by metadata score before color score'),
    oneImage: check((before) => {
      const sent = (before.image as unknown[]).length;
      if (sent > 1) throw new ParamError(`image: ${sent} files were sent under this name; send one.`);
    }),
  },
  result: 'ColorSearchHit',
  queryImage: 'filepath',
  stats: ['total_results', 'total_filtered_results', 'total_returned_results', 'time_resize', 'time_search'],
  optionalStats: ['time_download'],
});

const colorUpdate = (summary: string, timeName: string) =>
  contract({
    summary,
    methods: POST,
    params: {
      metadata: positionalMetadata,
      ignore_background: ignoreBackground,
      ignore_interior_background: ignoreInteriorBackground,
      images: addInputs(),
    },
    result: 'Nothing',
    stats: ['time_download', 'time_resize', timeName],
  });

const metadataKeys = (summary: string) => contract({ summary, methods: GET_POST, params: {}, result: 'MetadataKey', stats: ['time_get_metadata'] });

const COLOR = {
  color_search: colorSearch,
  extract_image_colors: contract({
    summary: 'Palette of one or several images',
    methods: GET_POST,
    params: {
      color_format: colorFormat,
      ignore_background: ignoreBackground,
      ignore_interior_background: ignoreInteriorBackground,
      target_number_colors: int('target_number_colors', { min: 1 }, 'Colors to aim for in the palette.'),
      limit: colorLimit,
      images: queryImages({ required: true }),
    },
    result: 'PaletteColor',
    stats: ['time_resize', 'time_extract'],
    optionalStats: ['time_download'],
  }),
  count_image_colors: contract({
    summary: 'How many of the given images contain each color',
    methods: GET_POST,
    params: {
      count_colors: countColors,
      ignore_background: ignoreBackground,
      ignore_interior_background: ignoreInteriorBackground,
      images: queryImages({ required: true }),
    },
    result: 'ColorCount',
    stats: ['time_resize', 'time_count'],
  }),
  extract_collection_colors: contract({
    summary: 'Palette of the collection, or of a scope of it',
    methods: GET_POST,
    params: { color_format: colorFormat, scope: collectionScope, limit: colorLimit },
    result: 'PaletteColor',
    stats: ['time_extract'],
  }),
  count_collection_colors: contract({
    summary: 'How many collection images contain each color',
    methods: GET_POST,
    params: { count_colors: countColors, scope: collectionScope, limit: colorLimit },
    result: 'ColorCount',
    stats: ['time_count'],
  }),
  count_metadata: contract({
    summary: 'How many collection images match each metadata query',
    methods: GET_POST,
    params: { count_metadata: countMetadataQueries, scope: collectionScope },
    result: 'CountMetadataItem',
    stats: ['time_count'],
  }),
  // docs/protocol.md §6 (color add): both MulticolorEngine clients fill a collection with add, never update.
  add: colorUpdate('Add or replace images with their keyword metadata (as update; the call the client libraries make)', 'time_add'),
  update: colorUpdate('Add or replace images with their keyword metadata', 'time_update'),
  update_metadata: contract({
    summary: 'Replace the metadata of collection images',
    methods: GET_POST,
    params: { filepaths: paths('to update'), metadata: metadataPerPath },
    result: 'Nothing',
    stats: ['time_update'],
  }),
  get_metadata: contract({
    summary: 'Stored metadata of images',
    methods: GET_POST,
    params: { filepaths: paths('to read') },
    result: 'MetadataItem',
    stats: ['time_get_metadata'],
  }),
  get_search_metadata: metadataKeys('Searchable metadata keys with their types and image counts (and keyword counts)'),
  get_return_metadata: metadataKeys('Returnable metadata keys with their types and image counts'),
  // docs/protocol.md §8: the color service shows the fingerprint field as 0 for every file.
  get_info: getInfo('Presence and size of images (fingerprint is always 0 on this service)'),
  ...collectionOps('color'),
};

// ---- wine ----------------------------------------------------------------------------------------------------------

const WINE = {
  add: add('Add wine-label images; each label is read and its metadata stored', 'An existing path is refused (naming it).', [
    'time_download', 'time_resize', 'time_detect_label', 'time_add',
  ]),
  search: contract({
    summary: 'Find a wine label: image matching, best results ordered by label text',
    methods: GET_POST,
    params: {
      generate_overlay: overlay,
      offset: offset('Matches'),
      limit: searchLimit('Matches'),
      name_filter: nameFilter,
      path_filter: pathFilter,
      query: queryImage(),
    },
    result: 'WineMatchItem',
    queryImage: 'filepath+metadata',
    stats: ['total_results', 'total_filtered_results', 'total_returned_results', 'time_resize', 'time_detect_label', 'time_extract_text', 'time_compare_text', 'time_search'],
  }),
  compare: compare(`${compareDescription} The images are prepared as wine labels are (borders cropped, preferred side 1000 px).`),
  extract_metadata: contract({
    summary: 'Read the labels of images: variety, vintage, color, region, country, text',
    description: 'One item per image that had a readable label, in input order.',
    methods: GET_POST,
    params: { images: queryImages({ required: true }) },
    result: 'WineLabelItem',
    stats: ['time_download', 'time_resize', 'time_detect_label', 'time_extract_text'],
  }),
  extract_text: contract({
    summary: 'The text lines of the labels of images',
    methods: GET_POST,
    params: { images: queryImages({ required: true }) },
    result: 'WineTextItem',
    stats: ['time_resize', 'time_detect_label', 'time_extract_text'],
  }),
  ...collectionOps('wine'),
};

/** Every operation of every collection service. */
export const CONTRACTS = { mobile: MOBILE, match: MATCH, color: COLOR, wine: WINE } satisfies Record<ServiceName, Record<string, OperationContract>>;
