import { DEFAULT_COLOR_MIN_SCORE } from '../services/color.service';
import type { ServiceName } from '../services/operation';

/**
 * The declarative catalog of the collection services' operations, from which the OpenAPI document and the /docs page
 * are generated. It mirrors the operation tables in services/*.service.ts: `docs.test.ts` fails when a table gains an
 * operation this catalog does not describe (or the catalog describes one no table has).
 *
 * Vocabulary: `in: 'query'` means a plain field, accepted in the query string or in the form body (the protocol merges
 * both); `in: 'formData'` means an upload, only in a multipart body. `indexed` parameters are lists sent as `name[0]`,
 * `name[1]`, … (or `name[]`); where `single` is set, one value may also be sent under that name without an index.
 */

export type ParamType = 'string' | 'integer' | 'number' | 'boolean' | 'file';

export interface ParamDoc {
  name: string;
  in: 'query' | 'formData';
  type: ParamType;
  description: string;
  /** A list sent as `name[0]`, `name[1]`, … */
  indexed?: boolean;
  /** For an indexed list: the un-indexed name that sends one value (`filepath` for `filepaths[0]`). */
  single?: string;
  default?: string | number | boolean;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  maxLength?: number;
  enum?: string[];
  required?: boolean;
}

/** Names of result item schemas in `#/components/schemas`. */
export type ResultSchema =
  | 'Nothing' | 'MatchItem' | 'WineMatchItem' | 'InfoItem' | 'ImageIdMetadataItem' | 'Filepath' | 'Count' | 'PaletteColor'
  | 'ColorCount' | 'ColorSearchHit' | 'CountMetadataItem' | 'MetadataItem' | 'MetadataKey' | 'WineLabelItem' | 'WineTextItem';

export interface OperationDoc {
  summary: string;
  description?: string;
  /** HTTP methods worth documenting (the gateway accepts any method; uploads need POST). */
  methods: Array<'get' | 'post' | 'delete'>;
  params: ParamDoc[];
  result: ResultSchema;
  /** `query_image` in the envelope: `filepath`, or `filepath` and the label `metadata` (wine search). */
  queryImage?: 'filepath' | 'filepath+metadata';
  /** Fields of `stats` besides `time_total` (which every envelope has). `time_*` are seconds. */
  stats: string[];
  /** Stats present only in some calls, e.g. time_download when a URL was given. */
  optionalStats?: string[];
}

export type ServiceCatalog = Record<ServiceName, Record<string, OperationDoc>>;

/** Specification 8 limits, repeated in parameter descriptions. */
const MAX_IMAGES = 10;
const MAX_PATHS = 10;
const MAX_IMAGE_ID = 255;
const MAX_FILEPATH = 1024;
/** MAX_GLOB_LENGTH of @loupe/jobs: the longest name_filter or path_filter. */
const MAX_GLOB_LENGTH = 1000;

const GET_POST: OperationDoc['methods'] = ['get', 'post'];
const POST: OperationDoc['methods'] = ['post'];

// ---- parameter building blocks -------------------------------------------------------------------------------------

const q = (name: string, type: ParamType, description: string, extra: Partial<ParamDoc> = {}): ParamDoc => ({ name, in: 'query', type, description, ...extra });
const file = (name: string, description: string, extra: Partial<ParamDoc> = {}): ParamDoc => ({ name, in: 'formData', type: 'file', description, ...extra });
const flag = (name: string, description: string): ParamDoc => q(name, 'boolean', `${description} (true/false/True/False/1/0).`, { default: false });

/** Parameters every operation reads, appended to each operation's own. */
export const COMMON_PARAMS: ParamDoc[] = [
  q('format', 'string', 'Answer format: JSON, or XML with root `data` and list entries as `item`.', { enum: ['json', 'xml'], default: 'json' }),
  q('callback', 'string', 'JSONP: wraps the JSON answer in a call of this function.'),
  q('timeout', 'number', 'Seconds the call may wait and run (0 = no limit); a call still queued or running then gets a `fail` envelope saying which.', { default: 0, minimum: 0, maximum: 86_400 }),
];

const addInputs: ParamDoc[] = [
  file('image', 'One image to add (JPEG, PNG, WEBP, AVIF, GIF, BMP, TIFF).'),
  q('filepath', 'string', 'Collection path of `image` or `url`; for an upload, the multipart file name (folders kept) when absent.', { maxLength: MAX_FILEPATH }),
  q('image_id', 'string', 'An identifier of the caller\'s, stored with the image and returned by get_metadata.', { maxLength: MAX_IMAGE_ID }),
  file('images', `Several images in one call (at most ${MAX_IMAGES} images and URLs together).`, { indexed: true, maxItems: MAX_IMAGES }),
  q('filepaths', 'string', 'Paths of `images[n]`, then of `urls[n]` continuing the numbering.', { indexed: true, maxItems: MAX_IMAGES, maxLength: MAX_FILEPATH }),
  q('image_ids', 'string', 'Identifiers of `images[n]` / `urls[n]`, numbered like `filepaths[n]`.', { indexed: true, maxItems: MAX_IMAGES, maxLength: MAX_IMAGE_ID }),
  q('url', 'string', 'An http(s) image URL the gateway downloads (needs `filepath`).'),
  q('urls', 'string', 'Several image URLs (each needs its `filepaths[n]`).', { indexed: true, maxItems: MAX_IMAGES }),
];

const queryImage = (suffix = ''): ParamDoc[] => [
  file(`image${suffix}`, 'The query image as an upload. Exactly one of the three query forms.'),
  q(`filepath${suffix}`, 'string', 'The query as a collection path (a search by path returns that image first).'),
  q(`url${suffix}`, 'string', 'The query as an http(s) URL, downloaded by the gateway.'),
];

const extractInputs: ParamDoc[] = [
  file('image', 'One image.'),
  file('images', `Several images (at most ${MAX_IMAGES} images and URLs together).`, { indexed: true, maxItems: MAX_IMAGES }),
  q('url', 'string', 'An http(s) image URL.'),
  q('urls', 'string', 'Several image URLs.', { indexed: true, maxItems: MAX_IMAGES }),
];

const paths = (what: string): ParamDoc[] => [
  q('filepaths', 'string', `Collection paths ${what}, at most ${MAX_PATHS}, answered in order.`, { indexed: true, single: 'filepath', maxItems: MAX_PATHS, required: true }),
];

const minScore = q('min_score', 'number', 'Leave out matches scoring below this (0-100).', { default: 0, minimum: 0, maximum: 100 });
const page = (limit: number, what: string): ParamDoc[] => [
  q('offset', 'integer', `${what} to skip.`, { default: 0, minimum: 0 }),
  q('limit', 'integer', `${what} to return (0 = all).`, { default: limit, minimum: 0 }),
];
const filters: ParamDoc[] = [
  q('name_filter', 'string', 'Shell-style glob on the file name (after the last `/`): `*`, `**`, `?`, `[a-z]`, `[!abc]`; case-sensitive, whole name.', { maxLength: MAX_GLOB_LENGTH }),
  q('path_filter', 'string', 'Shell-style glob on the folder part (before the last `/`, empty for top-level files), e.g. `catalog/2026/**`.', { maxLength: MAX_GLOB_LENGTH }),
];
const flip = flag('check_horizontal_flip', 'Also find mirrored copies');
const overlay = flag('generate_overlay', 'Render an overlay per match (`overlay/<id>.jpg`, fetched with the same Basic auth)');
const background = [
  flag('ignore_background', 'Leave the background color (the color touching the image border) out of the palette'),
  flag('ignore_interior_background', 'Also leave out background-colored regions inside the image'),
];
const colorFormat = q('color_format', 'string', 'How colors are written in the answer: `[r,g,b]` or hex `rrggbb`.', { enum: ['rgb', 'hex'], default: 'rgb' });
const colorQuery = [
  q('colors', 'string', 'Query colors as `r,g,b` or hex; at most 5; `wildcard` (color_search only) matches any color once.', { indexed: true, maxItems: 5 }),
  q('weights', 'integer', 'Weight of each color, integers 1-100 summing to 100; equal shares when absent.', { indexed: true, maxItems: 5, minimum: 1, maximum: 100 }),
];
const metadataQuery = q('metadata', 'string', 'A metadata query (JSON or XML): keywords, numbers and ranges.');
const scope: ParamDoc[] = [
  metadataQuery,
  ...colorQuery.map((p) => ({ ...p, description: `Scope: ${p.description}` })),
  q('filepaths', 'string', 'Scope: these collection paths only.', { indexed: true, single: 'filepath' }),
  q('min_score', 'number', 'Scope by colors: images scoring at least this much.', { minimum: 0, maximum: 100 }),
];
const countColors = q('count_colors', 'string', 'Colors to count (`r,g,b` or hex), at least one.', { indexed: true, required: true });

// ---- operations shared by several services -------------------------------------------------------------------------

const addStats = ['time_download', 'time_resize', 'time_add'];

const collectionOps = (service: string): Record<string, OperationDoc> => ({
  delete: {
    summary: 'Remove images from the collection',
    description: 'Unknown paths give `warn` naming them; the others are still deleted.',
    methods: ['get', 'post', 'delete'],
    params: paths('to delete'),
    result: 'Nothing',
    stats: ['time_delete'],
  },
  list: {
    summary: 'File paths of the collection in insertion order',
    methods: GET_POST,
    params: page(20, 'Paths'),
    result: 'Filepath',
    stats: ['time_list'],
  },
  count: { summary: `Number of images in the ${service} collection`, methods: GET_POST, params: [], result: 'Count', stats: ['time_count'] },
  ping: { summary: 'Checks that the service answers and the credentials are right', methods: GET_POST, params: [], result: 'Nothing', stats: [] },
});

const matchSearch: OperationDoc = {
  summary: 'Find collection images in a query image',
  description: 'Best matches first. Queries that are extremely small, single color or have fewer than 12 distinctive points are refused with a `fail` envelope.',
  methods: GET_POST,
  params: [...queryImage(), ...page(10, 'Matches'), minScore, flip, overlay, ...filters],
  result: 'MatchItem',
  queryImage: 'filepath',
  stats: ['total_results', 'total_filtered_results', 'total_returned_results', 'time_resize', 'time_search'],
  optionalStats: ['time_download'],
};

const matchCompare: OperationDoc = {
  summary: 'Compare two images',
  description: 'Both images as uploads or both as URLs (or collection paths), not a mixture. One match item, or `[]` when the images do not match.',
  methods: GET_POST,
  params: [
    ...queryImage('1'),
    ...queryImage('2'),
    minScore,
    flip,
    overlay,
    flag('compute_enhanced_score', 'Add `score_enhanced`: gradient correlation over the aligned overlap'),
    flag('compare_color', 'Add `score_color` and `compare_color`: palettes of the matched regions compared'),
  ],
  result: 'MatchItem',
  queryImage: 'filepath',
  stats: ['time_download', 'time_resize', 'time_compare'],
};

// ---- the catalog ---------------------------------------------------------------------------------------------------

export const CATALOG: ServiceCatalog = {
  mobile: {
    add: {
      summary: 'Add images to the collection',
      description: 'An existing path is refused (naming it); the rest of the batch is still added.',
      methods: POST,
      params: addInputs,
      result: 'Nothing',
      stats: addStats,
    },
    search: matchSearch,
    compare: matchCompare,
    get_info: {
      summary: 'Presence, size and fingerprint health of images',
      description: 'Unknown paths are answered `missing` with zeros and date `0000-00-00`.',
      methods: GET_POST,
      params: paths('to report'),
      result: 'InfoItem',
      stats: ['time_get_info'],
    },
    get_metadata: {
      summary: 'The image_id stored with images',
      methods: GET_POST,
      params: paths('to read'),
      result: 'ImageIdMetadataItem',
      stats: ['time_get_metadata'],
    },
    ...collectionOps('mobile'),
  },
  match: {
    compare: matchCompare,
    search: matchSearch,
    add: {
      summary: 'Add images to the collection (an existing path is replaced)',
      methods: POST,
      params: addInputs,
      result: 'Nothing',
      stats: addStats,
    },
    ...collectionOps('match'),
  },
  color: {
    color_search: {
      summary: 'Find collection images by color, by image or by metadata',
      description: 'Exactly one of image, filepath, url or colors[n]; or metadata alone. metadata may also narrow any of them.',
      methods: GET_POST,
      params: [
        file('image', 'A query image: images with a similar palette.'),
        q('filepath', 'string', 'A collection image as the query.'),
        q('url', 'string', 'A query image URL.'),
        ...colorQuery,
        metadataQuery,
        q('return_metadata', 'string', 'Metadata keys to return with each hit (JSON or XML).'),
        flag('sort_metadata', 'Order hits by metadata score before color score'),
        ...background,
        q('min_score', 'number', `Leave out hits scoring below this (0-100). By default ${DEFAULT_COLOR_MIN_SCORE} for a search by image, path, URL or colors (unrelated palettes score below it; docs/benchmarks.md), 0 for metadata alone.`, {
          default: DEFAULT_COLOR_MIN_SCORE, minimum: 0, maximum: 100,
        }),
        ...page(10, 'Hits'),
        ...filters,
      ],
      result: 'ColorSearchHit',
      queryImage: 'filepath',
      stats: ['total_results', 'total_filtered_results', 'total_returned_results', 'time_resize', 'time_search'],
      optionalStats: ['time_download'],
    },
    extract_image_colors: {
      summary: 'Palette of one or several images',
      methods: GET_POST,
      params: [...extractInputs, colorFormat, ...background, q('target_number_colors', 'integer', 'Colors to aim for in the palette.', { minimum: 1 }), q('limit', 'integer', 'Colors to return (0 = all).', { default: 32, minimum: 0 })],
      result: 'PaletteColor',
      stats: ['time_resize', 'time_extract'],
      optionalStats: ['time_download'],
    },
    count_image_colors: {
      summary: 'How many of the given images contain each color',
      methods: GET_POST,
      params: [...extractInputs, countColors, ...background],
      result: 'ColorCount',
      stats: ['time_resize', 'time_count'],
    },
    extract_collection_colors: {
      summary: 'Palette of the collection, or of a scope of it',
      methods: GET_POST,
      params: [...scope, colorFormat, q('limit', 'integer', 'Colors to return (0 = all).', { default: 32, minimum: 0 })],
      result: 'PaletteColor',
      stats: ['time_extract'],
    },
    count_collection_colors: {
      summary: 'How many collection images contain each color',
      methods: GET_POST,
      params: [...scope, countColors],
      result: 'ColorCount',
      stats: ['time_count'],
    },
    count_metadata: {
      summary: 'How many collection images match each metadata query',
      methods: GET_POST,
      params: [q('count_metadata', 'string', 'Metadata queries (JSON or XML) to count, at least one.', { indexed: true, required: true }), ...scope],
      result: 'CountMetadataItem',
      stats: ['time_count'],
    },
    add: {
      summary: 'Add or replace images with their keyword metadata (as update; the call the client libraries make)',
      methods: POST,
      params: [...addInputs, q('metadata', 'string', 'Metadata (JSON or XML) of the image at the same position.', { indexed: true }), ...background],
      result: 'Nothing',
      stats: ['time_download', 'time_resize', 'time_add'],
    },
    update: {
      summary: 'Add or replace images with their keyword metadata',
      methods: POST,
      params: [...addInputs, q('metadata', 'string', 'Metadata (JSON or XML) of the image at the same position.', { indexed: true }), ...background],
      result: 'Nothing',
      stats: ['time_download', 'time_resize', 'time_update'],
    },
    update_metadata: {
      summary: 'Replace the metadata of collection images',
      methods: GET_POST,
      params: [...paths('to update'), q('metadata', 'string', 'One metadata document (JSON or XML) per path, in order (also `metadatas[n]`).', { indexed: true, required: true })],
      result: 'Nothing',
      stats: ['time_update'],
    },
    get_metadata: {
      summary: 'Stored metadata of images',
      methods: GET_POST,
      params: paths('to read'),
      result: 'MetadataItem',
      stats: ['time_get_metadata'],
    },
    get_search_metadata: {
      summary: 'Searchable metadata keys with their types and image counts (and keyword counts)',
      methods: GET_POST,
      params: [],
      result: 'MetadataKey',
      stats: ['time_get_metadata'],
    },
    get_return_metadata: {
      summary: 'Returnable metadata keys with their types and image counts',
      methods: GET_POST,
      params: [],
      result: 'MetadataKey',
      stats: ['time_get_metadata'],
    },
    get_info: {
      summary: 'Presence and size of images (fingerprint is always 0 on this service)',
      methods: GET_POST,
      params: paths('to report'),
      result: 'InfoItem',
      stats: ['time_get_info'],
    },
    ...collectionOps('color'),
  },
  wine: {
    add: {
      summary: 'Add wine-label images; each label is read and its metadata stored',
      description: 'An existing path is refused (naming it).',
      methods: POST,
      params: addInputs,
      result: 'Nothing',
      stats: ['time_download', 'time_resize', 'time_detect_label', 'time_add'],
    },
    search: {
      summary: 'Find a wine label: image matching, best results ordered by label text',
      methods: GET_POST,
      params: [...queryImage(), ...page(10, 'Matches'), overlay, ...filters],
      result: 'WineMatchItem',
      queryImage: 'filepath+metadata',
      stats: ['total_results', 'total_filtered_results', 'total_returned_results', 'time_resize', 'time_detect_label', 'time_extract_text', 'time_compare_text', 'time_search'],
    },
    compare: {
      ...matchCompare,
      description: `${matchCompare.description} The images are prepared as wine labels are (borders cropped, preferred side 1000 px).`,
    },
    extract_metadata: {
      summary: 'Read the labels of images: variety, vintage, color, region, country, text',
      description: 'One item per image that had a readable label, in input order.',
      methods: GET_POST,
      params: extractInputs,
      result: 'WineLabelItem',
      stats: ['time_download', 'time_resize', 'time_detect_label', 'time_extract_text'],
    },
    extract_text: {
      summary: 'The text lines of the labels of images',
      methods: GET_POST,
      params: extractInputs,
      result: 'WineTextItem',
      stats: ['time_resize', 'time_detect_label', 'time_extract_text'],
    },
    ...collectionOps('wine'),
  },
};

/** What each service is for, shown as the OpenAPI tag descriptions. */
export const SERVICE_DESCRIPTIONS: Record<ServiceName, string> = {
  mobile: 'Add images, search and compare them, report their presence and fingerprint health.',
  match: 'Compare two images (score, matching regions, enhanced and color scores, overlay); a searchable collection whose add replaces.',
  color: 'Palettes, color search, keyword metadata search and counts.',
  wine: 'Wine-label search, label text and label metadata.',
};
