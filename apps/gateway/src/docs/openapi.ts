import { SERVICE_NAMES, ServiceName } from '../services/operation';
import { CATALOG, COMMON_PARAMS, OperationDoc, ParamDoc, SERVICE_DESCRIPTIONS, ServiceCatalog } from './catalog';

/** A JSON value of the document; kept loose on purpose, the shape is checked by the docs test against a schema. */
type Json = Record<string, unknown>;

export type OperationNames = Record<ServiceName, readonly string[]>;

/** Operations served (a controller's handler) but not in the catalog (`mobile.frobnicate`), and the reverse. */
export function catalogGaps(operations: OperationNames, catalog: ServiceCatalog = CATALOG): { undocumented: string[]; unknown: string[] } {
  const undocumented: string[] = [];
  const unknown: string[] = [];
  for (const service of SERVICE_NAMES) {
    const documented = new Set(Object.keys(catalog[service] ?? {}));
    const real = new Set(operations[service] ?? []);
    for (const op of real) if (!documented.has(op)) undocumented.push(`${service}.${op}`);
    for (const op of documented) if (!real.has(op)) unknown.push(`${service}.${op}`);
  }
  return { undocumented, unknown };
}

const rect = {
  type: 'object',
  description: 'Bounding box in percent of the (border-cropped) image: `left`, `right` of its width, `top`, `bottom` of its height.',
  properties: { left: { type: 'number' }, right: { type: 'number' }, top: { type: 'number' }, bottom: { type: 'number' } },
  required: ['left', 'right', 'top', 'bottom'],
};
const rgbOrHex = { oneOf: [{ type: 'array', items: { type: 'integer', minimum: 0, maximum: 255 }, minItems: 3, maxItems: 3 }, { type: 'string', pattern: '^[0-9a-f]{6}$' }] };
const colorDiff = { type: 'object', properties: { color: { type: 'array', items: { type: 'integer' } }, class: { type: 'string' } } };

const matchItemProperties = {
  filepath: { type: 'string' },
  score: { type: 'number', minimum: 0, maximum: 100, description: '100 · (1 − e^(−inliers/30)): 12 inliers score 33.3, 30 score 63, 90 score 95.' },
  match_percent: { type: 'number', description: "Percentage of the query's features inside the collection image's outline projected into the query." },
  query_overlap_percent: { type: 'number', description: "Percentage of the query's area covered by the projected collection image." },
  target_overlap_percent: { type: 'number', description: "Percentage of the collection image's area covered by the projected query." },
  query_match_rect: { $ref: '#/components/schemas/Rect' },
  target_match_rect: { $ref: '#/components/schemas/Rect' },
  overlay: { type: 'string', description: '`overlay/<id>.jpg`, relative to `/<service>/<account>/rest/` (generate_overlay).' },
  score_enhanced: { type: 'number', description: 'Gradient correlation over the aligned overlap, 0-100 (compute_enhanced_score).' },
  score_color: { type: 'number', description: 'Color-search score of one matched region against the other (compare_color).' },
  compare_color: {
    type: 'object',
    properties: {
      color_percent_diff: { type: 'number' },
      query_colors_diff: { type: 'array', items: colorDiff },
      target_colors_diff: { type: 'array', items: colorDiff },
    },
  },
};

const wineMetadata = {
  type: 'object',
  description: 'Label metadata: every field but the text lists is optional.',
  properties: {
    variety_type: { type: 'string' }, variety_rect: { $ref: '#/components/schemas/Rect' },
    vintage_year: { type: 'integer' }, vintage_rect: { $ref: '#/components/schemas/Rect' },
    color_type: { type: 'string' }, color_rect: { $ref: '#/components/schemas/Rect' },
    region_name: { type: 'string' }, region_rect: { $ref: '#/components/schemas/Rect' },
    country_name: { type: 'string' }, country_rect: { $ref: '#/components/schemas/Rect' },
    country_name_inferred: { type: 'string' },
    misc_info: { type: 'array', items: { type: 'string' } },
    label_rect: { $ref: '#/components/schemas/Rect' },
    text_lines: { type: 'array', items: { type: 'string' } },
    text_tokens: { type: 'array', items: { type: 'string' } },
  },
};

/** Result item schemas, named as in the catalog. */
const RESULT_SCHEMAS: Record<string, Json> = {
  Nothing: { description: 'The result list is always empty.', not: {} },
  MatchItem: { type: 'object', properties: matchItemProperties, required: ['filepath', 'score', 'match_percent', 'query_overlap_percent', 'target_overlap_percent', 'query_match_rect', 'target_match_rect'] },
  WineMatchItem: { allOf: [{ $ref: '#/components/schemas/MatchItem' }, { type: 'object', properties: { score_text: { type: 'number' }, metadata: { $ref: '#/components/schemas/WineLabelMetadata' } } }] },
  InfoItem: {
    type: 'object',
    properties: {
      filepath: { type: 'string' },
      width: { type: 'integer' },
      height: { type: 'integer' },
      fingerprint: { type: 'integer', minimum: 0, maximum: 100, description: 'Fingerprint health (0 for images never in results).' },
      date: { type: 'string', description: 'YYYY-MM-DD the image was added; `0000-00-00` when missing.' },
      status: { type: 'string', enum: ['healthy', 'missing'] },
    },
    required: ['filepath', 'width', 'height', 'fingerprint', 'date', 'status'],
  },
  ImageIdMetadataItem: { type: 'object', properties: { filepath: { type: 'string' }, metadata: { type: 'object', properties: { image_id: { type: 'string' } } } }, required: ['filepath', 'metadata'] },
  Filepath: { type: 'string', description: 'A collection path.' },
  Count: { type: 'integer', minimum: 0, description: 'The number of images.' },
  PaletteColor: {
    type: 'object',
    properties: { color: rgbOrHex, rank: { type: 'integer', minimum: 1 }, class: { type: 'string', description: 'Color class name.' }, weight: { type: 'number', description: 'Share of the image, percent.' } },
    required: ['color', 'rank', 'class', 'weight'],
  },
  ColorCount: {
    type: 'object',
    properties: { color: rgbOrHex, num_images_partial_area: { type: 'integer' }, num_images_full_area: { type: 'integer' }, class: { type: 'string' } },
    required: ['color', 'num_images_partial_area', 'num_images_full_area', 'class'],
  },
  ColorSearchHit: { type: 'object', properties: { filepath: { type: 'string' }, score: { type: 'number' }, metadata: { type: 'object' }, score_metadata: { type: 'number' } }, required: ['filepath'] },
  CountMetadataItem: { type: 'object', properties: { metadata: { type: 'array', items: { type: 'object', properties: { 'count-metadata': { type: 'object' } } } } } },
  MetadataItem: { type: 'object', properties: { filepath: { type: 'string' }, metadata: { type: 'object' } }, required: ['filepath', 'metadata'] },
  MetadataKey: {
    type: 'object',
    properties: { key: { type: 'string' }, type: { type: 'string' }, count: { type: 'integer' }, keywords: { type: 'array', items: { type: 'object', properties: { keyword: { type: 'string' }, count: { type: 'integer' } } } } },
    required: ['key', 'type', 'count'],
  },
  WineLabelItem: { type: 'object', properties: { filepath: { type: 'string' }, metadata: { $ref: '#/components/schemas/WineLabelMetadata' } }, required: ['filepath', 'metadata'] },
  WineTextItem: { type: 'object', properties: { filepath: { type: 'string' }, text_lines: { type: 'array', items: { type: 'string' } } }, required: ['filepath', 'text_lines'] },
};

const ENVELOPE = {
  type: 'object',
  description:
    'Every answer. `status` is `ok`; `warn` when the call partly succeeded or did nothing (e.g. deleting an unknown path); `fail` when nothing was done. ' +
    'Parameter and input problems are `fail` envelopes with HTTP 200. `format=xml` gives the same structure as XML.',
  properties: {
    method: { type: 'string', description: 'The operation called.' },
    status: { type: 'string', enum: ['ok', 'warn', 'fail'] },
    error: { type: 'array', items: { type: 'string' }, description: 'Messages naming the input, e.g. `folder/a.jpg: This file already exists in the image collection.`' },
    result: { type: 'array', description: 'Always a list (empty on `fail`).' },
    query_image: { type: 'object', description: 'Searches and compares: the query as named by the caller.' },
    stats: { type: 'object', description: 'Counts and timings; every `time_*` is in seconds (decimal, microsecond resolution).', properties: { time_total: { type: 'number', minimum: 0 } }, required: ['time_total'] },
  },
  required: ['method', 'status', 'error', 'result', 'stats'],
};

const STAT_DESCRIPTIONS: Record<string, string> = {
  total_results: 'Matches found before filters.',
  total_filtered_results: 'Matches left after name/path filters.',
  total_returned_results: 'Items in `result` (after offset and limit).',
  time_download: 'Seconds downloading URL inputs, in the gateway.',
  time_resize: 'Seconds decoding and normalising, in the worker.',
};

function statsSchema(op: OperationDoc): Json {
  const properties: Json = { time_total: { type: 'number', minimum: 0, description: 'Seconds around the whole call.' } };
  for (const name of [...op.stats, ...(op.optionalStats ?? [])]) {
    const optional = op.optionalStats?.includes(name) ? ' Present only when URL inputs were given.' : '';
    const base = name.startsWith('time_') ? { type: 'number', minimum: 0 } : { type: 'integer', minimum: 0 };
    properties[name] = { ...base, description: `${STAT_DESCRIPTIONS[name] ?? (name.startsWith('time_') ? 'Seconds.' : 'Count.')}${optional}` };
  }
  return { type: 'object', properties, required: ['time_total', ...op.stats] };
}

function scalarSchema(p: ParamDoc): Json {
  const schema: Json = p.type === 'file' ? { type: 'string', contentMediaType: 'application/octet-stream' } : { type: p.type };
  for (const key of ['default', 'minimum', 'maximum', 'maxLength', 'enum'] as const) if (p[key] !== undefined) schema[key] = p[key];
  return schema;
}

function describe(p: ParamDoc): string {
  const forms = p.indexed ? ` Sent as \`${p.name}[0]\`, \`${p.name}[1]\`, … (also \`${p.name}[]\`)${p.single ? `; one value may be sent as \`${p.single}\`` : ''}.` : '';
  return `${p.description}${forms}`;
}

/** The escaped regular expression of an indexed form's names, for `patternProperties`. */
function indexedPattern(name: string): string {
  return `^${name}\\[\\d*\\]$`;
}

function parameterObject(p: ParamDoc): Json {
  const name = p.indexed ? `${p.name}[n]` : p.name;
  const schema = p.indexed ? { type: 'array', items: scalarSchema(p), ...(p.maxItems ? { maxItems: p.maxItems } : {}) } : scalarSchema(p);
  return { name, in: 'query', required: false, description: describe(p), schema, ...(p.indexed ? { 'x-indexed': true } : {}) };
}

function formSchema(params: ParamDoc[], withFiles: boolean): Json {
  const properties: Json = {};
  const patternProperties: Json = {};
  for (const p of params) {
    if (p.type === 'file' && !withFiles) continue;
    const entry = { ...scalarSchema(p), description: describe(p) };
    if (p.indexed) {
      patternProperties[indexedPattern(p.name)] = entry;
      if (p.single) properties[p.single] = { ...scalarSchema(p), description: `One value of \`${p.name}[n]\`.` };
    } else {
      properties[p.name] = entry;
    }
  }
  return { type: 'object', properties, ...(Object.keys(patternProperties).length > 0 ? { patternProperties } : {}) };
}

function envelopeRef(service: string, op: string): string {
  return `#/components/schemas/${service}.${op}.envelope`;
}

function operationObject(service: ServiceName, name: string, op: OperationDoc, method: string): Json {
  const params = [...op.params, ...COMMON_PARAMS];
  const queryParams = params.filter((p) => p.in === 'query').map(parameterObject);
  const hasFiles = params.some((p) => p.type === 'file');
  const requirements = op.params.filter((p) => p.required).map((p) => `\`${p.indexed ? `${p.name}[n]` : p.name}\``);
  const description = [
    op.description ?? '',
    requirements.length > 0 ? `Required: ${requirements.join(', ')}.` : '',
    'Every parameter but uploads may be sent in the query string or in the form body; the two are merged.',
  ].filter(Boolean).join('\n\n');
  const operation: Json = {
    operationId: `${service}_${name}${method === 'get' ? '' : `_${method}`}`,
    tags: [service],
    summary: op.summary,
    description,
    parameters: queryParams,
    responses: {
      '200': {
        description: 'An envelope (also for `fail`: parameter and input problems are answered with HTTP 200).',
        content: {
          'application/json': { schema: { $ref: envelopeRef(service, name) } },
          'application/xml': { schema: { type: 'string', description: 'The same envelope as XML (`format=xml`): root `data`, list entries `item`.' } },
        },
      },
      '401': { $ref: '#/components/responses/Unauthorized' },
      '404': { $ref: '#/components/responses/NotFound' },
      '413': { $ref: '#/components/responses/PayloadTooLarge' },
      '500': { $ref: '#/components/responses/ServerError' },
    },
  };
  if (method === 'post') {
    operation.requestBody = {
      required: false,
      content: {
        'multipart/form-data': { schema: formSchema(params, true) },
        ...(hasFiles ? {} : { 'application/x-www-form-urlencoded': { schema: formSchema(params, false) } }),
      },
    };
  }
  return operation;
}

function envelopeSchema(op: OperationDoc, name: string): Json {
  const properties: Json = {
    method: { const: name },
    result: { type: 'array', items: { $ref: `#/components/schemas/${op.result}` } },
    stats: statsSchema(op),
  };
  if (op.queryImage) {
    properties.query_image = {
      type: 'object',
      properties: { filepath: { type: 'string' }, ...(op.queryImage === 'filepath+metadata' ? { metadata: { $ref: '#/components/schemas/WineLabelMetadata' } } : {}) },
    };
  }
  return { allOf: [{ $ref: '#/components/schemas/Envelope' }, { type: 'object', properties }] };
}

const ACCOUNT_PARAM = { name: 'account', in: 'path', required: true, description: 'The account whose collection is used; Basic credentials of one of its users.', schema: { type: 'string' } };

function errorResponse(description: string, extraHeaders: Json = {}): Json {
  return {
    description,
    headers: extraHeaders,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Envelope' } } },
  };
}

/** An authenticated GET of a JPEG addressed by one path parameter beside the account. */
function jpegRoute(service: string, route: { operationId: string; param: string; paramDescription: string; summary: string; description: string; found: string; missing: string }): Json {
  return {
    parameters: [ACCOUNT_PARAM, { name: route.param, in: 'path', required: true, description: route.paramDescription, schema: { type: 'string' } }],
    get: {
      operationId: `${service}_${route.operationId}`,
      tags: [service],
      summary: route.summary,
      description: route.description,
      responses: {
        '200': { description: route.found, content: { 'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg' } } } },
        '401': { description: 'Missing or wrong credentials.' },
        '404': { description: route.missing },
      },
    },
  };
}

/** Routes beside the operations: overlays, and the normalised copy of a collection image. */
function imagePaths(): Json {
  const paths: Json = {};
  for (const service of SERVICE_NAMES) {
    paths[`/${service}/{account}/rest/overlay/{file}`] = jpegRoute(service, {
      operationId: 'overlay',
      param: 'file',
      paramDescription: '`<id>.jpg` from a match item\'s `overlay`.',
      summary: 'An overlay rendered by a search or compare (generate_overlay)',
      description: 'Served only to the account that made it: the collection image on the left, the query warped into its frame on the right.',
      found: 'The overlay.',
      missing: 'No such overlay.',
    });
    paths[`/${service}/{account}/rest/image/{filepath}`] = jpegRoute(service, {
      operationId: 'image',
      param: 'filepath',
      paramDescription: 'A collection path; its `/` are kept (e.g. `image/prints/a.jpg`).',
      summary: 'The normalised copy of a collection image (read-only)',
      description:
        'The JPEG the index works on: EXIF orientation applied, sRGB, smallest side at most the service\'s preferred side, solid borders cropped where the service crops them; match rectangles (`target_match_rect`) refer to this image.',
      found: 'The image.',
      missing: 'No such image in this collection.',
    });
  }
  return paths;
}

/**
 * The OpenAPI 3.1 document of every operation of every service. `operations` are the operations the controllers
 * serve (servedOperations): an operation missing from the catalog still gets a path, marked `x-undocumented`, so the
 * gap shows (and fails the docs test) instead of silently disappearing.
 */
export function buildOpenApi(operations: OperationNames, catalog: ServiceCatalog = CATALOG): Json {
  const paths: Json = {};
  const schemas: Json = { Envelope: ENVELOPE, Rect: rect, WineLabelMetadata: wineMetadata, ...RESULT_SCHEMAS };
  for (const service of SERVICE_NAMES) {
    for (const name of operations[service] ?? []) {
      const op = catalog[service]?.[name];
      const path = `/${service}/{account}/rest/${name}/`;
      if (!op) {
        paths[path] = {
          parameters: [ACCOUNT_PARAM],
          post: { operationId: `${service}_${name}`, tags: [service], summary: 'Undocumented operation', 'x-undocumented': true, responses: { '200': { description: 'An envelope.' } } },
        };
        continue;
      }
      const item: Json = { parameters: [ACCOUNT_PARAM] };
      for (const method of op.methods) item[method] = operationObject(service, name, op, method);
      paths[path] = item;
      schemas[`${service}.${name}.envelope`] = envelopeSchema(op, name);
    }
  }
  Object.assign(paths, imagePaths());
  return {
    openapi: '3.1.0',
    info: {
      title: 'Loupe collection services',
      version: '1',
      description:
        'Every operation is reached as `/<service>/<account>/rest/<operation>/` (with or without the trailing slash), with HTTP Basic credentials of a user of the account. ' +
        'Lists use `name[0]`, `name[1]` (also `name[]`); booleans are `true/false/True/False/1/0`. At most 10 images per add, 10 paths per get_info/get_metadata/delete; ' +
        'at most 4 searches/compares run at once per account and service and 1 write per account, further calls wait in arrival order.',
    },
    servers: [{ url: '/' }],
    security: [{ basic: [] }],
    tags: SERVICE_NAMES.map((name) => ({ name, description: SERVICE_DESCRIPTIONS[name] })),
    paths,
    components: {
      securitySchemes: { basic: { type: 'http', scheme: 'basic', description: 'A user of the account named in the path.' } },
      schemas,
      responses: {
        Unauthorized: errorResponse('Missing or wrong credentials, or a user of another account (never says whether the account exists).', {
          'WWW-Authenticate': { schema: { type: 'string' }, description: '`Basic realm="Loupe", charset="UTF-8"`' },
        }),
        NotFound: errorResponse('Unknown service or operation (a `fail` envelope).'),
        PayloadTooLarge: errorResponse('The body is larger than MAX_BODY_MB (a `fail` envelope).'),
        ServerError: errorResponse('A server fault (a `fail` envelope; details are logged).'),
      },
    },
  };
}
